// Package fuzzing runs every fuzz target of mpivet (the Fuzz functions of
// its packages' tests: the parsers of the files a user or another run can
// damage) for a few seconds each, as part of the test suite. A target
// that finds an input making it fail fails this test, and Go writes the
// input to the target's testdata/fuzz/FuzzXxx/, where it stays as a seed
// once the fault is fixed.
//
// MPIVET_FUZZTIME sets each target's time (default 2s): a longer hunt is
// MPIVET_FUZZTIME=5m go test ./internal/fuzzing. Skipped with -short.
package fuzzing

import (
	"bytes"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// target is a fuzz target: package directory (relative to the module) and
// function name.
type target struct{ dir, name string }

// targets finds the fuzz targets under root: functions FuzzXxx(*testing.F)
// in _test.go files.
func targets(t *testing.T, root string) []target {
	var out []target
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if ok && fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "Fuzz") && fn.Type.Params.NumFields() == 1 {
				rel, _ := filepath.Rel(root, filepath.Dir(path))
				out = append(out, target{"./" + rel, fn.Name.Name})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestFuzzTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	fuzztime := os.Getenv("MPIVET_FUZZTIME")
	if fuzztime == "" {
		fuzztime = "2s"
	}
	root, _ := filepath.Abs(filepath.Join("..", ".."))
	ts := targets(t, root)
	if len(ts) < 7 {
		t.Fatalf("%d fuzz targets found, want the 7 of the record decoder, exit records, command.json, witnesses, decision files and suppression files: %v", len(ts), ts)
	}
	// the go command of the toolchain that built this test
	goBin := filepath.Join(build.Default.GOROOT, "bin", "go")
	for _, tg := range ts {
		t.Run(tg.name, func(t *testing.T) {
			start := time.Now()
			// One worker (the suite runs other tests beside), and new
			// inputs minimised briefly: a recorded log is kilobytes.
			fuzz := func() ([]byte, error) {
				cmd := exec.Command(goBin, "test", "-run=^$", "-fuzz=^"+tg.name+"$", "-fuzztime="+fuzztime,
					"-fuzzminimizetime=1s", "-parallel=1", tg.dir)
				cmd.Dir = root
				return cmd.CombinedOutput()
			}
			out, err := fuzz()
			if err != nil && engineDeadline(out) {
				// Go's fuzzing engine, on a loaded machine, can miss its
				// own deadline with no failing input: once more
				t.Logf("%s: the fuzzing engine missed its deadline, no failing input; again", tg.name)
				out, err = fuzz()
				if err != nil && engineDeadline(out) {
					t.Logf("%s: again:\n%s", tg.name, out)
					return
				}
			}
			if err != nil {
				t.Fatalf("go test -fuzz=%s %s: %v\n%s", tg.name, tg.dir, err, out)
			}
			t.Logf("%s %s: %s", tg.dir, tg.name, time.Since(start).Round(time.Second))
		})
	}
}

// engineDeadline reports whether a fuzzing run failed only because the
// engine ran past its own time (context deadline exceeded) and found no
// failing input.
func engineDeadline(out []byte) bool {
	return bytes.Contains(out, []byte("context deadline exceeded")) && !bytes.Contains(out, []byte("Failing input written to"))
}
