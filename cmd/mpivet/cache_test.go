package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mpivet cache shows what the cache holds and what is not its own;
// mpivet cache clean removes the builds and leaves the rest alone.
func TestCacheCommand(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("MPIVET_CACHE", cache)
	for _, d := range []string{"0123456789abcdef", "lammps-omp"} {
		os.Mkdir(filepath.Join(cache, d), 0o700)
		os.WriteFile(filepath.Join(cache, d, "f"), make([]byte, 10000), 0o600)
	}
	run := func(args ...string) string {
		var code int
		var out bytes.Buffer
		cmd := rootCmd(&code)
		cmd.SetArgs(args)
		cmd.SetOut(&out)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("mpivet %s: %v", strings.Join(args, " "), err)
		}
		return out.String()
	}
	out := run("cache")
	for _, want := range []string{cache + "\n", "layer builds        1", "last trim: never", "left alone: lammps-omp"} {
		if !strings.Contains(out, want) {
			t.Errorf("mpivet cache: no %q in\n%s", want, out)
		}
	}
	out = run("cache", "clean")
	if !strings.Contains(out, "removed from "+cache+": 1 layer builds") {
		t.Errorf("mpivet cache clean: %s", out)
	}
	if _, err := os.Stat(filepath.Join(cache, "0123456789abcdef")); !os.IsNotExist(err) {
		t.Errorf("the build is still there (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(cache, "lammps-omp", "f")); err != nil {
		t.Errorf("lammps-omp: %v", err)
	}
	if out = run("cache"); !strings.Contains(out, "last trim: "+time.Now().UTC().Format("2006-01-02")) {
		t.Errorf("after a clean: %s", out)
	}
}
