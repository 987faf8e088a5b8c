package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The report files are checked before anything runs: a path that is a
// directory, in a missing directory or under a plain file is refused by
// mpivet run (exit status 2) before the program is looked at.
func TestOutputsCheckedFirst(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "file")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct{ flag, path, msg string }{
		{"--json", tmp, "--json " + tmp + ": is a directory"},
		{"--html", filepath.Join(tmp, "missing", "r.html"), ": no directory " + filepath.Join(tmp, "missing")},
		{"--sarif", filepath.Join(file, "r.sarif"), ": " + file + " is not a directory"},
	} {
		code := exitOK
		cmd := rootCmd(&code)
		// The program does not exist: a check after the run would say so first.
		cmd.SetArgs([]string{"run", "-n", "1", "--dir", filepath.Join(tmp, "run"), c.flag, c.path, filepath.Join(tmp, "no-program")})
		cmd.SetOut(&bytes.Buffer{})
		err := cmd.Execute()
		if err == nil || !strings.Contains(err.Error(), c.msg) || code != exitFailure {
			t.Errorf("%s %s: exit %d, %v, want %q", c.flag, c.path, code, err, c.msg)
		}
		if _, err := os.Stat(filepath.Join(tmp, "run")); err == nil {
			t.Fatalf("%s %s: a run directory was created", c.flag, c.path)
		}
	}
	if err := (output{json: filepath.Join(tmp, "new.json"), html: file}).check(); err != nil {
		t.Errorf("a new file and an existing one: %v", err)
	}
	if os.Geteuid() != 0 { // root writes anywhere
		ro := filepath.Join(tmp, "ro")
		os.Mkdir(ro, 0o555)
		if err := (output{json: filepath.Join(ro, "r.json")}).check(); err == nil || !strings.Contains(err.Error(), "cannot create it in") {
			t.Errorf("a directory without write permission: %v", err)
		}
	}
}

// mpivet replay's own number: interleavings are numbered from 1.
func TestReplayInterleavingChecked(t *testing.T) {
	for _, n := range []string{"0", "-1"} {
		code := exitOK
		cmd := rootCmd(&code)
		cmd.SetArgs([]string{"replay", t.TempDir(), "--interleaving", n})
		err := cmd.Execute()
		if err == nil || !strings.Contains(err.Error(), "--interleaving "+n+": interleavings are numbered from 1") || code != exitFailure {
			t.Errorf("--interleaving %s: exit %d, %v", n, code, err)
		}
	}
}
