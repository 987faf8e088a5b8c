package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mpivet/check"
)

func TestJSONFields(t *testing.T) {
	r := New([]check.Finding{{Kind: "resource-leak", Severity: check.Error, Ranks: []int{0},
		Message: "m", Locations: []check.Location{{Rank: 0, File: "leak.c", Line: 12, Function: "main"}}}}, "")
	r.Interleavings = 1
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteJSON(path, r); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["verdict"] != "error" || doc["interleavings"].(float64) != 1 {
		t.Fatalf("doc: %s", data)
	}
	f := doc["findings"].([]any)[0].(map[string]any)
	for _, k := range []string{"kind", "severity", "ranks", "message", "locations", "fingerprint"} {
		if _, ok := f[k]; !ok {
			t.Errorf("finding has no %q", k)
		}
	}
	loc := f["locations"].([]any)[0].(map[string]any)
	if loc["file"] != "leak.c" || loc["line"].(float64) != 12 || loc["function"] != "main" || loc["rank"].(float64) != 0 {
		t.Errorf("location: %v", loc)
	}
	if r.ExitCode() != 1 {
		t.Error("an error must give exit status 1")
	}
}

func TestCleanAndWarnings(t *testing.T) {
	r := New(nil, "")
	r.Interleavings = 1
	var b bytes.Buffer
	NewText(&b, false).Print(r)
	if r.Verdict != "ok" || r.ExitCode() != 0 || !strings.Contains(b.String(), "no MPI usage errors") {
		t.Fatalf("clean report: %s", b.String())
	}
	data, _ := json.Marshal(r)
	if !strings.Contains(string(data), `"findings":[]`) {
		t.Errorf("findings must be an empty list, not null: %s", data)
	}
	w := New([]check.Finding{{Kind: "request-lifecycle", Severity: check.Warning}}, "")
	if w.Verdict != "ok" || w.ExitCode() != 0 {
		t.Error("warnings alone must not fail the run")
	}
}

// A verification that stopped early says so: its own verdict and exit
// status when nothing was found, the error verdict when something was, and
// what was covered either way.
func TestIncomplete(t *testing.T) {
	r := New(nil, "interrupted (SIGINT)")
	r.Interleavings = 3
	r.Coverage = Coverage{Done: 3, Queued: 5, Diverged: 1}
	var b bytes.Buffer
	NewText(&b, false).Print(r)
	out := b.String()
	if r.Verdict != "incomplete" || r.ExitCode() != ExitIncomplete || r.Complete ||
		!strings.Contains(out, "verdict: incomplete") || !strings.Contains(out, "interrupted (SIGINT)") ||
		!strings.Contains(out, "3 interleavings run, 5 more known but not run, 1 diverged") {
		t.Fatalf("incomplete report (exit %d):\n%s", r.ExitCode(), out)
	}
	e := New([]check.Finding{{Kind: "deadlock", Severity: check.Error}}, "stopped at the time budget (1m0s)")
	b.Reset()
	NewText(&b, false).Print(e)
	if e.Verdict != "error" || e.ExitCode() != ExitErrors || e.Complete || !strings.Contains(b.String(), "incomplete: stopped at the time budget") {
		t.Fatalf("errors in an incomplete verification (exit %d):\n%s", e.ExitCode(), b.String())
	}
	data, _ := json.Marshal(e)
	if !strings.Contains(string(data), `"complete":false`) || !strings.Contains(string(data), `"stopped":"stopped at the time budget (1m0s)"`) {
		t.Errorf("JSON: %s", data)
	}
}

// Coverage per call site: every printer shows each site's outcomes run,
// equivalent, cut by bounds and known but not run, and its space; none
// shows a share of the outcomes known as coverage; a complete verdict
// names the bounds it is complete within.
func TestSiteCoverage(t *testing.T) {
	r := New(nil, "")
	r.Interleavings, r.Program, r.Ranks, r.MPI, r.RunDir = 5, "/src/ring", 4, "MPICH 4.0", "/run"
	r.Coverage = Coverage{Done: 5, Events: 824, Explored: 5, Equivalent: 819, Sites: sampleSites()}
	r.Bounds = &Bounds{MixingBound: -1, CompletionOrders: "reduce", Budget: 120, BudgetRule: "the default"}
	var text, js, page bytes.Buffer
	if err := NewText(&text, false).Print(r); err != nil {
		t.Fatal(err)
	}
	if err := NewJSON(&js).Print(r); err != nil {
		t.Fatal(err)
	}
	if err := NewHTML(&page).Print(r); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{
		"text": {"dl.c:7   MPI_Iprobe    0      24      1 (1 unchecked)  0           0              23              2,704,156 orders",
			"819 equivalent completion orders not replayed", "every outcome within the bounds covered", "a time budget of 2m0s (the default)"},
		"json": {`"known_not_run": 23`, `"unchecked": 1`, `"equivalent": 796`, `"cut_by_bounds": 0`, `"space": "2704156"`, `"budget_rule": "the default"`},
		"html": {"<td><code>dl.c:7</code></td><td>MPI_Iprobe</td><td>0</td><td>24</td><td>1 (1 unchecked)</td><td>0</td><td>0</td><td>23</td>", "≈6.6e240"},
	} {
		got := map[string]string{"text": text.String(), "json": js.String(), "html": page.String()}[name]
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%s lacks %q:\n%s", name, w, got)
			}
		}
		if strings.Contains(got, "% covered") || strings.Contains(got, "%) covered") {
			t.Errorf("%s shows a percentage as coverage", name)
		}
	}
	if r.ExitCode() != ExitOK {
		t.Errorf("complete within bounds: exit %d", r.ExitCode())
	}
}

// A verification interrupted before the program started says so: no
// interleaving covered, incomplete.
func TestNotStartedText(t *testing.T) {
	r := New(nil, "interrupted (SIGINT) before the program started: no interleaving was run")
	r.RunDir = ".mpivet/run-1"
	var out bytes.Buffer
	NewText(&out, false).Print(r)
	if !strings.Contains(out.String(), "verdict: incomplete: the program was not run, nothing was checked (records: .mpivet/run-1)") ||
		strings.Contains(out.String(), "covered") || r.ExitCode() != ExitIncomplete {
		t.Errorf("exit %d:\n%s", r.ExitCode(), out.String())
	}
}

// Outcomes left out at sites in installed libraries are shown in the
// site's cut-by-bounds cell, the coverage line and the bounds.
func TestLibraryCoverage(t *testing.T) {
	s := Site{Bounded: 2, Library: 8}
	if got := s.BoundedCell(); got != "2 (+8 in a library)" {
		t.Errorf("cell %q", got)
	}
	if got := (Site{Bounded: 2}).BoundedCell(); got != "2" {
		t.Errorf("cell without a library %q", got)
	}
	c := Coverage{Done: 1, Events: 8, Library: 8, Sites: []Site{s}}
	if got := c.Summary(); !strings.HasSuffix(got, ", 8 in installed libraries not explored (--explore=all)") {
		t.Errorf("summary %q", got)
	}
	if got := (Bounds{Explore: "program"}).String(); !strings.Contains(got, "the program's own call sites (--explore=all explores those in installed libraries too)") {
		t.Errorf("bounds %q", got)
	}
	if got := (Bounds{Explore: "all"}).String(); strings.Contains(got, "--explore") {
		t.Errorf("bounds with --explore=all %q", got)
	}
}
