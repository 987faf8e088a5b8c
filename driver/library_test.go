package driver

import (
	"os"
	"path/filepath"
	"testing"

	"mpivet/explore"
)

// Which modules are installed libraries: every one but the executable and
// those under its directory (and its prefix, when it is in a bin/ of one
// that is not the system's) or under the working directory.
func TestLibraryRule(t *testing.T) {
	root := t.TempDir()
	mk := func(p string) string {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, nil, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	app, cwd := mk("prefix/bin/app"), filepath.Join(root, "work")
	os.MkdirAll(cwd, 0o755)
	link := filepath.Join(root, "link")
	if err := os.Symlink(filepath.Join(root, "prefix"), link); err != nil {
		t.Fatal(err)
	}
	lib := libraryRule("program", filepath.Join(link, "bin", "app"), cwd) // run through a symbolic link
	for module, want := range map[string]bool{
		app:                                   false, // the executable
		mk("prefix/bin/libown.so"):            false, // beside it
		mk("prefix/lib/libown.so"):            false, // in its prefix
		mk("work/build/libown.so"):            false, // under the working directory
		mk("elsewhere/lib/libpetsc.so"):       true,
		"/usr/lib/x86_64-linux-gnu/libfoo.so": true,
		"[vdso]":                              false,
	} {
		if got := lib(module); got != want {
			t.Errorf("%s: installed library %v, want %v", module, got, want)
		}
	}
	if libraryRule("all", app, cwd) != nil {
		t.Error("--explore=all leaves sites out")
	}
	// A program in the system's bin/ (an interpreter) owns none of the
	// system's libraries.
	py := libraryRule("program", "/usr/bin/env", cwd)
	if !py("/usr/lib/x86_64-linux-gnu/libfoo.so") || py("/usr/bin/env") {
		t.Error("/usr/bin's program: /usr/lib is not its own")
	}
}

// The note counts the outcomes left out, their events and sites, names
// the libraries and the flag.
func TestLibraryNote(t *testing.T) {
	if n := libraryNote(explore.Stats{}); n != "" {
		t.Errorf("a note without outcomes left out: %q", n)
	}
	st := explore.Stats{Library: 8, Sites: []explore.SiteStats{
		{Key: "/usr/lib/libpetsc_real.so.3.18+0x74abcc", InLibrary: true, Library: 8, Events: 8},
		{Key: "/work/app+0x1234", Events: 2, Run: 2},
	}}
	want := "8 other outcomes of 8 nondeterministic events at 1 call site in installed libraries (libpetsc_real.so.3.18) were not explored: " +
		"those events ran as they happened, and every run was checked; --explore=all explores them too"
	if n := libraryNote(st); n != want {
		t.Errorf("note:\n%s\nwant\n%s", n, want)
	}
}
