package report

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"mpivet/check"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden with what the printers print")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the printer prints (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// sample is a report with a finding of each shape: an error on several
// ranks from a replayed interleaving, a deadlock with its graph, a warning
// without debug information, notes and an incomplete coverage.
func sample(dir string) *Report {
	fs := []check.Finding{
		{Kind: "resource-leak", Severity: check.Error, Ranks: []int{0, 1, 2, 3}, Interleaving: 1,
			Message: "5 objects: datatype created by MPI_Type_vector is never freed (MPI_Type_free)",
			Locations: []check.Location{
				{Rank: 0, File: "leak.c", Line: 12, Function: "main", Call: "MPI_Type_vector", Path: "/src/leak.c", Note: "created here"},
				{Rank: 0, File: "leak.c", Line: 20, Function: "main", Call: "MPI_Finalize", Path: "/src/leak.c", Note: "still allocated at MPI_Finalize"}}},
		{Kind: "deadlock", Severity: check.Error, Ranks: []int{0, 1}, Interleaving: 2,
			Message: "2 ranks (0, 1) can never return from their MPI calls:\nrank 0: MPI_Recv(source=1, tag=0, comm=MPI_COMM_WORLD) at dl.c:9 in main\nrank 1: MPI_Recv(source=0, tag=0, comm=MPI_COMM_WORLD) at dl.c:9 in main",
			Locations: []check.Location{
				{Rank: 0, File: "dl.c", Line: 9, Function: "main", Call: "MPI_Recv", Note: "in the core of the deadlock"},
				{Rank: 1, File: "dl.c", Line: 9, Function: "main", Call: "MPI_Recv", Note: "in the core of the deadlock"}},
			Graph: &check.Graph{Dir: dir, Name: "deadlock", DOT: "digraph waitfor {\n  p0 -> p1;\n  p1 -> p0;\n}\n"}},
		{Kind: "request-lifecycle", Severity: check.Warning, Ranks: []int{1}, Interleaving: 1,
			Message:   "request of MPI_Irecv is freed before its operation completed",
			Locations: []check.Location{{Rank: 1, Module: "/opt/app/solver", Offset: "0x11c9", Symbol: "main+0x1c", Call: "MPI_Request_free", Note: "freed here"}}},
	}
	r := New(fs, "stopped at the time budget (1m0s)")
	r.Interleavings = 3
	r.Coverage = Coverage{Done: 3, Queued: 2, Infeasible: 1}
	r.Explored = []Interleaving{{N: 2, Dir: "/run/interleaving-2", Steps: []string{"rank 0: wildcard event 1 at dl.c:7 in main matched rank 2 instead of rank 1"},
		Replay: "mpivet replay /run --interleaving 2"}}
	r.Notes = []string{"1 forced match could not happen"}
	r.Buffering = "not checked"
	r.Program, r.Args, r.Ranks, r.MPI, r.RunDir, r.Seconds = "/src/dl", []string{"-x"}, 4, "Open MPI 4.1.4", "/run", 1.5
	return r
}

func TestTextGolden(t *testing.T) {
	for _, color := range []bool{false, true} {
		var b bytes.Buffer
		if err := NewText(&b, color).Print(sample("/run")); err != nil {
			t.Fatal(err)
		}
		name := "text.golden"
		if color {
			name = "text-color.golden"
		}
		golden(t, name, b.Bytes())
	}
	var b bytes.Buffer
	r := New(nil, "")
	r.Interleavings, r.Program, r.Ranks, r.MPI, r.RunDir = 1, "/src/ok", 2, "MPICH 4.0", "/run"
	if err := NewText(&b, false).Print(r); err != nil {
		t.Fatal(err)
	}
	golden(t, "text-clean.golden", b.Bytes())
}

func TestJSONGolden(t *testing.T) {
	var b bytes.Buffer
	if err := NewJSON(&b).Print(sample("/run")); err != nil {
		t.Fatal(err)
	}
	golden(t, "json.golden", b.Bytes())
}

// The DOT printer writes each finding's graph where the finding's message
// says (check.Graph.Path), and nothing for findings without one.
func TestDOTGolden(t *testing.T) {
	dir := t.TempDir()
	if err := NewDOT().Print(sample(dir)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "deadlock.dot"))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "deadlock.dot.golden", data)
	g := sample(dir).Findings[1].Graph
	if _, err := exec.LookPath("dot"); err == nil {
		if _, err := os.Stat(filepath.Join(dir, "deadlock.svg")); err != nil || g.Path() != filepath.Join(dir, "deadlock.svg") {
			t.Errorf("with Graphviz: no deadlock.svg (%v), or the message names %s", err, g.Path())
		}
	} else if g.Path() != filepath.Join(dir, "deadlock.dot") {
		t.Errorf("without Graphviz the message names %s", g.Path())
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 2 {
		t.Errorf("files written: %v", ents)
	}
}
