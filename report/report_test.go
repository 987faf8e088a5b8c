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
