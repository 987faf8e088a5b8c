package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mpivet/trace/tracetest"
)

// mpivet dump prints the records of a run, and says clearly why it cannot:
// a missing path, a plain file, a directory without records, a rank that
// is not in them (each an error: exit status 2).
func TestDump(t *testing.T) {
	dir := t.TempDir()
	for r := 0; r < 2; r++ {
		l := tracetest.New(r, 2)
		l.Call("MPI_Barrier", 0x10, map[string]any{"comm": tracetest.Consts["MPI_COMM_WORLD"]}, nil)
		if err := os.WriteFile(filepath.Join(dir, "p.testhost."+string(rune('1'+r))+".log"), l.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(dir, "output.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, c := range []struct {
		dir  string
		rank int
		msg  string
	}{
		{filepath.Join(dir, "missing"), -1, "missing: no such file or directory"},
		{file, -1, "output.txt: not a directory (mpivet dump takes a run directory"},
		{t.TempDir(), -1, ": no records of ranks there"},
		{dir, 99, ": no rank 99 in these records (ranks: 0, 1)"},
		{dir, -2, "--rank -2: a rank is 0 or more (-1: all)"},
	} {
		var out bytes.Buffer
		err := dump(&out, c.dir, c.rank)
		if err == nil || !strings.Contains(err.Error(), c.msg) || out.Len() > 0 {
			t.Errorf("dump %s --rank %d: %v (printed %q), want %q", c.dir, c.rank, err, out.String(), c.msg)
		}
	}
	var out bytes.Buffer
	if err := dump(&out, dir, 1); err != nil || !strings.Contains(out.String(), "== rank 1 ") ||
		strings.Contains(out.String(), "== rank 0 ") || !strings.Contains(out.String(), "MPI_Barrier") {
		t.Errorf("dump --rank 1: %v\n%s", err, out.String())
	}
	// through the command line: an error, which main turns into exit status 2
	code := exitOK
	cmd := rootCmd(&code)
	cmd.SetArgs([]string{"dump", "--rank", "99", dir})
	cmd.SetOut(&bytes.Buffer{})
	if err := cmd.Execute(); err == nil {
		t.Error("mpivet dump --rank 99: no error")
	}
}
