package funclen

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// root is the repository, two levels up.
const root = "../.."

// No function of the project's Go sources (tests and generated files
// aside) or of the C layer's hand-written sources (layer/src, generated/
// aside) has a body over Limit lines, unless its comment says why.
func TestNoLongFunctions(t *testing.T) {
	var all []Func
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "generated" || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		var ls []Func
		switch {
		case strings.HasSuffix(path, "_test.go"):
		case strings.HasSuffix(path, ".go"):
			if generated(t, path) {
				return nil
			}
			ls, err = Go(path)
		case strings.HasSuffix(path, ".c") && strings.Contains(filepath.ToSlash(path), "layer/src/"):
			ls, err = C(path)
		}
		all = append(all, ls...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, l := range all {
		count[l.Language]++
	}
	// (the scanners must see the sources, or the test proves nothing)
	if count["Go"] < 300 || count["C"] < 150 {
		t.Fatalf("found only %d Go and %d C functions", count["Go"], count["C"])
	}
	for _, l := range all {
		if !l.Long() {
			continue
		}
		rel, _ := filepath.Rel(root, l.File)
		l.File = rel
		if l.Excused {
			t.Logf("%v (its comment says why)", l)
			continue
		}
		t.Errorf("%v: split it, or say why it is long in its comment (\"over 80 lines: ...\")", l)
	}
	t.Logf("%d Go and %d C functions measured", count["Go"], count["C"])
}

func generated(t *testing.T, path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(string(data), "\n// Code generated ") || strings.HasPrefix(string(data), "// Code generated ")
}

// The scanners find what they must: a long Go function and a long C
// function, excused or not, and nothing in short ones.
func TestScanners(t *testing.T) {
	dir := t.TempDir()
	body := strings.Repeat("\tx++;\n", Limit+1)
	c := "/* short */\nstatic int short_one(void)\n{\n\treturn 0;\n}\n\n" +
		"/* long_one does much. */\nstatic void\nlong_one(int a,\n\tint b)\n{\n\tint x = 0;\n" + body + "}\n\n" +
		"/* excused: over 80 lines: a table. */\nvoid excused_one(void)\n{\n" + body + "}\n"
	os.WriteFile(filepath.Join(dir, "a.c"), []byte(c), 0o644)
	ls, err := C(filepath.Join(dir, "a.c"))
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 3 || ls[0].Name != "short_one" || ls[0].Long() || ls[0].Lines != 1 {
		t.Errorf("C: %+v", ls)
	}
	ls = long(ls)
	if len(ls) != 2 || ls[0].Name != "long_one" || ls[0].Excused || ls[0].Lines != Limit+2 || ls[0].Line != 8 ||
		ls[1].Name != "excused_one" || !ls[1].Excused {
		t.Errorf("C: %+v", ls)
	}
	os.WriteFile(filepath.Join(dir, "b.c"), []byte("static int f(void) {\n\treturn 0;\n}\n"), 0o644)
	if _, err := C(filepath.Join(dir, "b.c")); err == nil {
		t.Error("C measured a function whose brace is on its declarator's line")
	}
	g := "package p\n\nfunc short() {}\n\n// T.long is long.\nfunc (t *T) long() {\n" + strings.Repeat("\tprintln()\n", Limit+1) + "}\n\n" +
		"// excused is over 80 lines: one case per kind.\nfunc excused() {\n" + strings.Repeat("\tprintln()\n", Limit+1) + "}\n\ntype T struct{}\n"
	os.WriteFile(filepath.Join(dir, "a.go"), []byte(g), 0o644)
	if ls, err = Go(filepath.Join(dir, "a.go")); err != nil {
		t.Fatal(err)
	}
	if ls = long(ls); len(ls) != 2 || ls[0].Name != "T.long" || ls[0].Excused || ls[0].Lines != Limit+1 || ls[1].Name != "excused" || !ls[1].Excused {
		t.Errorf("Go: %+v", ls)
	}
}

func long(fs []Func) []Func {
	var out []Func
	for _, f := range fs {
		if f.Long() {
			out = append(out, f)
		}
	}
	return out
}
