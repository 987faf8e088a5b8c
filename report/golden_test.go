package report

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	r.Coverage.Events, r.Coverage.Explored, r.Coverage.Pruned = 2, 2, 1
	r.Coverage.Sites = sampleSites()
	r.Bounds = &Bounds{MixingBound: -1, CompletionOrders: "reduce", MaxInterleavings: 1000, Budget: 120, BudgetRule: "the default: the larger of 2 minutes and 20 times the first run"}
	r.Trails = []Trail{sampleTrail(2)}
	r.Notes = []string{"1 forced match could not happen"}
	r.Buffering = "not checked"
	r.Program, r.Args, r.Ranks, r.MPI, r.RunDir, r.Seconds = "/src/dl", []string{"-x"}, 4, "Open MPI 4.1.4", "/run", 1.5
	return r
}

// sampleSites are a wildcard probe site stopped by the budget and a
// completion site whose orders were equivalent.
func sampleSites() []Site {
	return []Site{
		{Location: "dl.c:7", Call: "MPI_Iprobe", Kind: "wildcard probe", Ranks: []int{0}, Events: 24, Run: 1, Unchecked: 1, Known: 23,
			Space: "2704156", SpaceNote: "orders of the messages matched"},
		{Location: "dl.c:30", Call: "MPI_Waitsome", Kind: "completion order", Ranks: []int{0, 1, 2, 3}, Events: 800, Run: 4, Equivalent: 796,
			Space: "6668014432879854274079851790721257797144758322315908160396257811764037237817632071521432200871554290742929910593433240445888801654119365080363356052330830046095157579514014558463078285911814024728965016135886601981690748037476461291163877376", SpaceNote: "completion orders at most"},
	}
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

// sampleTrail is what ranks 0-2 did in interleaving n: rank 0's wildcard
// receive was forced to rank 2's message, then ranks 0 and 1 block
// receiving from each other.
func sampleTrail(n int) Trail {
	loc := func(line int) check.Location {
		return check.Location{File: "dl.c", Line: line, Function: "main", Path: "/src/dl.c"}
	}
	return Trail{Interleaving: n, Lanes: []Lane{
		{Rank: 0, Skipped: 2, End: "blocked in MPI_Recv", Calls: []Call{
			{Seq: 3, Name: "MPI_Recv", Peer: "from any: 2", Loc: loc(7), Forced: true, Wildcard: true},
			{Seq: 4, Name: "MPI_Recv", Peer: "from 1", Loc: loc(9), Stopped: true}}},
		{Rank: 1, Skipped: 2, End: "blocked in MPI_Recv", Calls: []Call{
			{Seq: 3, Name: "MPI_Recv", Peer: "from 0", Loc: loc(9), Stopped: true}}},
		{Rank: 2, Skipped: 2, End: "finalized", Calls: []Call{
			{Seq: 3, Name: "MPI_Send", Peer: "to 0", Loc: loc(12)},
			{Seq: 4, Name: "MPI_Finalize", Loc: loc(14)}}},
	}, Messages: []Message{{From: 2, FromSeq: 3, To: 0, ToSeq: 3}}}
}

// fakeSVG stands for Graphviz in golden tests (its output changes from
// version to version): the DOT's size, so that a change shows.
func fakeSVG(dot string) (string, error) {
	return fmt.Sprintf("<svg width=\"10pt\" height=\"10pt\"><desc>%d bytes of DOT</desc></svg>", len(dot)), nil
}

func TestHTMLGolden(t *testing.T) {
	r := sample("/run")
	r.Suppressed = []Suppressed{{Kind: "truncation", Fingerprint: "0123456789abcdef", Ranks: []int{3}, Severity: "error",
		By: ".mpivet-suppressions:2", Reason: "known, ticket 7"}}
	r.Unused = []string{".mpivet-suppressions:3: kind=leak file=old.c reason=gone"}
	var b bytes.Buffer
	h := NewHTML(&b)
	h.Render = fakeSVG
	h.ReadFile = func(path string) ([]byte, error) {
		if path != "/src/dl.c" && path != "dl.c" {
			return nil, os.ErrNotExist
		}
		var s strings.Builder
		for i := 1; i <= 16; i++ {
			fmt.Fprintf(&s, "line %d <of> dl.c\n", i)
		}
		return []byte(s.String()), nil
	}
	if err := h.Print(r); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.html.golden", b.Bytes())
	for _, want := range []string{`id="kind-filter"`, `data-ranks=" 0 1 "`, "line 9 &lt;of&gt; dl.c", "Space-time diagram of interleaving 2",
		"Wait-for graph", "2 nondeterministic events with other possible outcomes", "unused suppression",
		`<td><code>dl.c:30</code></td><td>MPI_Waitsome</td><td>0-3</td><td>800</td><td>4</td><td>796</td>`, "2,704,156 orders of the messages matched", `id="bounds"`} {
		if !bytes.Contains(b.Bytes(), []byte(want)) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

func TestSpaceTimeGolden(t *testing.T) {
	tr := sampleTrail(2)
	golden(t, "spacetime.dot.golden", []byte(SpaceTimeDOT(&tr)))
}

// 64 ranks of a ring that all made the same calls are one lane, and the
// lanes of ranks that differ stay apart.
func TestSpaceTimeCollapses(t *testing.T) {
	var tr Trail
	for r := 0; r < 64; r++ {
		l := Lane{Rank: r, End: "blocked in MPI_Recv", Calls: []Call{
			{Seq: 5, Name: "MPI_Send", Peer: fmt.Sprintf("to %d", (r+1)%64), Loc: check.Location{File: "ring.c", Line: 10}},
			{Seq: 6, Name: "MPI_Recv", Peer: fmt.Sprintf("from %d", (r+63)%64), Loc: check.Location{File: "ring.c", Line: 11}, Stopped: true}}}
		if r == 17 {
			l.Calls[1].Loc.Line = 12
		}
		tr.Lanes = append(tr.Lanes, l)
	}
	dot := SpaceTimeDOT(&tr)
	for _, want := range []string{`label="ranks 0-16, 18-63"`, `label="rank 17"`} {
		if !strings.Contains(dot, want) {
			t.Errorf("no %s in\n%s", want, dot)
		}
	}
	if n := strings.Count(dot, "MPI_Send"); n != 2 {
		t.Errorf("%d lanes drawn, want 2", n)
	}
	if _, err := exec.LookPath("dot"); err == nil {
		if _, err := RenderSVG(dot); err != nil {
			t.Error(err)
		}
	}
}
