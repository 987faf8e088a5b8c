package suite_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"mpivet/check"
	"mpivet/internal/sarifcheck"
	"mpivet/report"
	"mpivet/suite"
)

// leak is a finding as mpivet reports it: the same one in every launch
// of one program (one fingerprint).
func leak(rank int) check.Finding {
	return check.Finding{Kind: "resource-leak", Severity: check.Error, Ranks: []int{rank},
		Message: "a datatype created is never freed",
		Locations: []check.Location{{Rank: rank, File: "leak.c", Line: 12, Function: "main", Call: "MPI_Type_contiguous"},
			{Rank: rank, File: "leak.c", Line: 20, Function: "main", Call: "MPI_Finalize", Note: "found here"}}}
}

func warning() check.Finding {
	return check.Finding{Kind: "buffer-reuse", Severity: check.Warning, Ranks: []int{1}, Message: "a warning",
		Locations: []check.Location{{Rank: 1, File: "leak.c", Line: 15, Function: "main", Call: "MPI_Isend"}}}
}

// handMade writes a suite directory of hand-made launch records: two
// launches of one program that both find the same leak (one with a
// warning too), a clean one, one passed through, one mpivet failed on
// (status 2, its message recorded), one whose report is missing, and one
// incomplete.
func handMade(t *testing.T) (string, []suite.Launch) {
	t.Helper()
	dir := t.TempDir()
	start := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	reports := []*report.Report{
		report.New([]check.Finding{leak(0), warning()}, ""),
		report.New([]check.Finding{leak(0)}, ""),
		report.New(nil, ""),
		nil, nil, nil,
		report.New(nil, "the time budget (2m0s) ran out"),
	}
	launches := []suite.Launch{
		{Program: "./leak", Args: []string{"1"}, Ranks: 2, Verified: true, MpivetStatus: 1, WorkDir: "/p/build/tests/a"},
		{Program: "./leak", Args: []string{"two words"}, Ranks: 2, Verified: true, MpivetStatus: 1, WorkDir: "/p/build/tests/b.1"},
		{Program: "./clean", Ranks: 4, Verified: true, WorkDir: "/p/build/tests/a"},
		{Command: []string{"mpirun", "-n", "2", "hostname"}, Verified: false, Reason: "not an MPI program", WorkDir: "/p/build/tests/a"},
		{Program: "./broken", Ranks: 2, Verified: true, MpivetStatus: 2, Error: "mpivet: the launcher failed: mpirun: not found", WorkDir: "/p/build/tests/a"},
		{Program: "./killed", Ranks: 2, Verified: true, MpivetStatus: 0, WorkDir: "/p/build/tests/a"},
		{Program: "./slow", Ranks: 3, Verified: true, MpivetStatus: 3, WorkDir: "/p/build/tests/a"},
	}
	for i := range launches {
		l := &launches[i]
		l.Index = i + 1
		l.Dir = filepath.Join(dir, "launches", fmt.Sprintf("%04d", l.Index))
		if l.Command == nil {
			l.Command = append([]string{"mpirun", "-n", "2", l.Program}, l.Args...)
		}
		l.Started = start.Add(time.Duration(i) * time.Minute)
		l.Ended = l.Started.Add(1500 * time.Millisecond)
		if err := os.MkdirAll(l.Dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := l.Save(); err != nil {
			t.Fatal(err)
		}
		if r := reports[i]; r != nil {
			r.Program, r.Args, r.Ranks, r.RunDir = l.Program, l.Args, l.Ranks, filepath.Join(l.WorkDir, ".mpivet", "run")
			if err := report.WriteJSON(l.Report(), r); err != nil {
				t.Fatal(err)
			}
		}
	}
	ls, err := suite.Load(dir)
	if err != nil || len(ls) != len(launches) {
		t.Fatalf("Load: %d launches, %v", len(ls), err)
	}
	return dir, ls
}

func writeAll(t *testing.T, dir string, ls []suite.Launch) (text string, out suite.Outputs) {
	t.Helper()
	var b bytes.Buffer
	o := t.TempDir()
	out = suite.Outputs{Text: &b, JSON: filepath.Join(o, "suite.json"), SARIF: filepath.Join(o, "suite.sarif"),
		HTML: filepath.Join(o, "index.html"), JUnit: filepath.Join(o, "junit.xml")}
	if err := suite.Write(dir, ls, out); err != nil {
		t.Fatal(err)
	}
	return b.String(), out
}

// The text summary has a line per launch with its outcome, findings by
// kind and records, the launches not verified with their reason, mpivet's
// failures with its message, and the totals.
func TestText(t *testing.T) {
	dir, ls := handMade(t)
	text, _ := writeAll(t, dir, ls)
	for _, want := range []string{
		"== mpivet suite: " + dir + ", 7 launches ==",
		"[1] ./leak 1 (2 ranks): error: 1 error, 1 warning: buffer-reuse 1, resource-leak 1\n    records: /p/build/tests/a/.mpivet/run (launch: " + filepath.Join(dir, "launches", "0001") + ")",
		`[2] ./leak "two words" (2 ranks): error: 1 error, 0 warnings: resource-leak 1`,
		"[3] ./clean (4 ranks): ok\n",
		"[4] mpirun -n 2 hostname: not verified: not an MPI program\n",
		"[5] ./broken (2 ranks): mpivet failed (exit status 2): mpivet: the launcher failed: mpirun: not found\n",
		"[6] ./killed (2 ranks): mpivet failed (exit status 0): no report (",
		"[7] ./slow (3 ranks): incomplete (stopped: the time budget (2m0s) ran out)",
		"totals: 7 launches: 1 ok, 2 error, 1 incomplete, 2 mpivet failed, 1 not verified; 2 errors, 1 warning (buffer-reuse 1, resource-leak 2)\nverdict: error\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the text summary lacks %q:\n%s", want, text)
		}
	}
}

// The verdict and exit status: errors first, then mpivet's failures,
// then incomplete verifications; launches not verified do not count.
func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		t       suite.Totals
		verdict string
		code    int
	}{
		{suite.Totals{OK: 1, NotVerified: 3}, "ok", 0},
		{suite.Totals{}, "ok", 0},
		{suite.Totals{OK: 1, Incomplete: 1}, "incomplete", 3},
		{suite.Totals{Failed: 1, Incomplete: 1}, suite.Failed, 2},
		{suite.Totals{Error: 1, Failed: 1, Incomplete: 1}, "error", 1},
	} {
		if v, code := c.t.Verdict(), c.t.ExitCode(); v != c.verdict || code != c.code {
			t.Errorf("%+v: %s (%d), want %s (%d)", c.t, v, code, c.verdict, c.code)
		}
	}
}

// The JSON has every launch's record, its outcome and its report.
func TestJSON(t *testing.T) {
	dir, ls := handMade(t)
	_, out := writeAll(t, dir, ls)
	data, err := os.ReadFile(out.JSON)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Dir, Verdict string
		Totals       suite.Totals
		Launches     []struct {
			Index, Ranks, MpivetStatus int
			Program, Outcome, Problem  string
			Dir                        string
			Verified                   bool
			Report                     *report.Report
		}
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if s.Dir != dir || s.Verdict != "error" || s.Totals.Errors != 2 || len(s.Launches) != 7 {
		t.Fatalf("suite JSON: %+v", s)
	}
	for i, l := range s.Launches {
		hasReport := i <= 2 || i == 6
		if l.Index != i+1 || l.Dir != ls[i].Dir || (l.Report != nil) != hasReport || l.Outcome == "" {
			t.Errorf("launch %d in the JSON: %+v", i+1, l)
		}
		if hasReport && l.Report.Program != ls[i].Program {
			t.Errorf("launch %d: the report of another program: %+v", i+1, l.Report)
		}
	}
	if s.Launches[0].Outcome != "error" || s.Launches[3].Outcome != suite.NotVerified || s.Launches[4].Outcome != suite.Failed ||
		!strings.Contains(s.Launches[5].Problem, "no report") || s.Launches[0].Report.Findings[0].Fingerprint == "" {
		t.Errorf("suite JSON outcomes: %s", data)
	}
}

// The SARIF log is one run that validates against the SARIF 2.1.0 schema;
// the leak two launches found is one result naming both, the warning one
// result naming the first; every verified launch is an invocation, the one
// mpivet failed on unsuccessful.
func TestSARIFMerged(t *testing.T) {
	dir, ls := handMade(t)
	_, out := writeAll(t, dir, ls)
	data := validSARIF(t, out.SARIF)
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct{ Rules []struct{ ID string } }
			}
			Invocations []struct {
				ExecutionSuccessful bool
				ExitCode            int
				Properties          struct{ Launch int }
			}
			Results []struct {
				RuleID              string
				RuleIndex           int
				PartialFingerprints map[string]string
				Properties          struct{ Launches []int }
			}
		}
	}
	if err := json.Unmarshal(data, &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("%v: %s", err, data)
	}
	run := log.Runs[0]
	if len(run.Results) != 2 {
		t.Fatalf("%d results, want 2 (the leak once, the warning): %s", len(run.Results), data)
	}
	got := map[string][]int{}
	for _, r := range run.Results {
		got[r.RuleID] = r.Properties.Launches
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID || r.PartialFingerprints[report.FingerprintKey] == "" {
			t.Errorf("result %s: rule index %d, fingerprints %v", r.RuleID, r.RuleIndex, r.PartialFingerprints)
		}
	}
	if !slices.Equal(got["resource-leak"], []int{1, 2}) || !slices.Equal(got["buffer-reuse"], []int{1}) {
		t.Errorf("the results' launches: %v", got)
	}
	if len(run.Invocations) != 6 {
		t.Fatalf("%d invocations, want one per verified launch (6)", len(run.Invocations))
	}
	for _, inv := range run.Invocations {
		failed := inv.Properties.Launch == 5 || inv.Properties.Launch == 6
		if inv.ExecutionSuccessful == failed {
			t.Errorf("invocation of launch %d: successful %v", inv.Properties.Launch, inv.ExecutionSuccessful)
		}
	}
}

// validSARIF validates the SARIF log at path against the SARIF 2.1.0
// schema.
func validSARIF(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := sarifcheck.Validate(data); err != nil {
		t.Errorf("%s does not validate: %v", path, err)
	}
	return data
}

// The HTML index links each verified launch's page, written from its
// report.json when missing (and kept when there), with the verdicts.
func TestHTMLIndex(t *testing.T) {
	dir, ls := handMade(t)
	kept := filepath.Join(ls[2].Dir, suite.HTMLFile)
	if err := os.WriteFile(kept, []byte("<p>the launch's own page</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, out := writeAll(t, dir, ls)
	page, err := os.ReadFile(out.HTML)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range ls {
		p := filepath.Join(l.Dir, suite.HTMLFile)
		rel, _ := filepath.Rel(filepath.Dir(out.HTML), p)
		_, err := os.Stat(p)
		linked := strings.Contains(string(page), `href="`+rel+`"`)
		if has := i <= 2 || i == 6; linked != has || (err == nil) != has {
			t.Errorf("launch %d: linked %v, page %v", i+1, linked, err)
		}
	}
	if b, _ := os.ReadFile(kept); string(b) != "<p>the launch's own page</p>" {
		t.Errorf("a launch's page was written over")
	}
	if b, _ := os.ReadFile(filepath.Join(ls[0].Dir, suite.HTMLFile)); !bytes.Contains(b, []byte("resource-leak")) {
		t.Errorf("the page written for launch 1 does not show its finding")
	}
	for _, want := range []string{`id="verdict">error<`, "not an MPI program", "mpivet: the launcher failed: mpirun: not found",
		`./leak &#34;two words&#34;`, "<style>", "buffer-reuse 1, resource-leak 1"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the index lacks %q", want)
		}
	}
	if strings.Contains(string(page), "<script src") || strings.Contains(string(page), "<link") {
		t.Errorf("the index is not self-contained")
	}
}

// A launch's page written from its report.json has the wait-for graph its
// deadlock's message names, from the .dot file the run left.
func TestHTMLGraph(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	os.MkdirAll(run, 0o755)
	os.WriteFile(filepath.Join(run, "deadlock.dot"), []byte(`digraph { r0 [label="rank 0: MPI_Recv"]; r1 [label="rank 1"]; r0 -> r1; r1 -> r0 }`), 0o644)
	l := suite.Launch{Index: 1, Dir: filepath.Join(dir, "launches", "0001"), Program: "./ring", Ranks: 2, Verified: true, MpivetStatus: 1}
	os.MkdirAll(l.Dir, 0o755)
	r := report.New([]check.Finding{{Kind: "deadlock", Severity: check.Error, Ranks: []int{0, 1},
		Message:   "ranks 0-1 wait for each other\nwait-for graph: " + filepath.Join(run, "deadlock.svg"),
		Locations: []check.Location{{Rank: 0, File: "ring.c", Line: 9, Function: "main", Call: "MPI_Recv"}}}}, "")
	if err := report.WriteJSON(l.Report(), r); err != nil {
		t.Fatal(err)
	}
	if err := suite.Write(dir, []suite.Launch{l}, suite.Outputs{HTML: filepath.Join(dir, "index.html")}); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(l.Dir, suite.HTMLFile))
	if err != nil || !bytes.Contains(page, []byte("rank 0: MPI_Recv</text>")) {
		t.Errorf("the launch's page has no wait-for graph (%v)", err)
	}
}
