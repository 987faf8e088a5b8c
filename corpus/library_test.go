package corpus

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mpivet/report"
)

// The nondeterminism of an installed library is explored only on request
// (--explore=all); the program's own is explored by default. The program
// (testdata/library/app.c) calls a shared library (pick.c) built in a
// directory of its own, outside the program's and the working directory,
// as an installed library is; each has a wildcard receive with a failure
// behind its other match. By default the program's failure is found in a
// replay, the library's site is counted as not explored, and a note says
// how to explore it; with --explore=all the library's failure is found too.
func TestLibrarySites(t *testing.T) {
	parallel(t)
	src, _ := filepath.Abs(filepath.Join("testdata", "library"))
	for _, m := range available(t) {
		t.Run(m.name, func(t *testing.T) {
			if !serial {
				t.Parallel()
			}
			libDir, appDir := t.TempDir(), t.TempDir()
			build(t, m.cc, "-g", "-O0", "-shared", "-fPIC", "-o", filepath.Join(libDir, "libpick.so"), filepath.Join(src, "pick.c"))
			bin := filepath.Join(appDir, "app")
			build(t, m.cc, "-g", "-O0", "-o", bin, filepath.Join(src, "app.c"), "-L"+libDir, "-lpick", "-Wl,-rpath,"+libDir)
			p := &Program{NP: 3, Timeout: "60s", Dir: appDir}

			r, out, code := RunMpivet(t, p, bin)
			if code != 1 || !failedIn(r, "app.c") || failedIn(r, "pick.c") {
				t.Errorf("default: exit %d, want 1 with the program's failure only:\n%s", code, out)
			}
			lib, own := siteIn(r, "pick.c"), siteIn(r, "app.c")
			if lib == nil || lib.Run != 0 || lib.Library == 0 || own == nil || own.Run == 0 || own.Library != 0 || r.Coverage.Library != lib.Library {
				t.Errorf("default: the library's site must be left out, the program's explored: %+v:\n%s", r.Coverage, out)
			}
			if !hasNote(r, "--explore=all") {
				t.Errorf("default: no note on the library's site left out:\n%s", out)
			}

			r, out, code = RunMpivet(t, p, bin, "--explore=all")
			if code != 1 || !failedIn(r, "app.c") || !failedIn(r, "pick.c") {
				t.Errorf("--explore=all: exit %d, want 1 with both failures:\n%s", code, out)
			}
			if lib := siteIn(r, "pick.c"); lib == nil || lib.Run == 0 || r.Coverage.Library != 0 || hasNote(r, "--explore=all") {
				t.Errorf("--explore=all: the library's site must be explored: %+v:\n%s", r.Coverage, out)
			}
		})
	}
}

func build(t *testing.T, cc string, args ...string) {
	t.Helper()
	if b, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", cc, args, err, b)
	}
}

// failedIn reports whether r has a program-failure located in file.
func failedIn(r *Report, file string) bool {
	for _, f := range r.Findings {
		for _, l := range f.Locations {
			if f.Kind == "program-failure" && filepath.Base(l.File) == file {
				return true
			}
		}
	}
	return false
}

// siteIn returns the coverage of r's call site in file (nil: none).
func siteIn(r *Report, file string) *report.Site {
	for i, s := range r.Coverage.Sites {
		if strings.HasPrefix(filepath.Base(s.Location), file+":") {
			return &r.Coverage.Sites[i]
		}
	}
	return nil
}

func hasNote(r *Report, text string) bool {
	for _, n := range r.Notes {
		if strings.Contains(n, text) {
			return true
		}
	}
	return false
}
