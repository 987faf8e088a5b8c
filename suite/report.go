package suite

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"

	"mpivet/check"
	"mpivet/report"
)

// Outputs says which reports of a suite to write: the text summary to
// Text (nil: none), and the files JSON, SARIF, HTML and JUnit at their
// paths ("" for a report not wanted). Rules are the SARIF log's rules (what
// mpivet explain says of each kind: report.RulesOf).
type Outputs struct {
	Text                     io.Writer
	JSON, SARIF, HTML, JUnit string
	Rules                    []report.Rule
}

// Outcomes of a launch, as the suite's reports give them: the verdict of
// its report (report.Report's "ok", "error", "incomplete"), or one of these.
const (
	// NotVerified: passed through to the real launcher unchecked.
	NotVerified = "not verified"
	// Failed: mpivet could not verify it (its exit status 2, or no
	// readable report).
	Failed = "mpivet failed"
)

// Result is one launch of a suite with what its verification gave.
type Result struct {
	Launch
	// Report is the launch's JSON report (nil: not verified, or mpivet
	// failed); Problem says why a verified launch has none.
	Report  *report.Report `json:"report,omitempty"`
	Problem string         `json:"problem,omitempty"`
	// Path is the launch's directory (Launch.Dir), in the JSON.
	Path string `json:"dir"`
	// Outcome is its report's verdict, NotVerified or Failed.
	Outcome string `json:"outcome"`
}

// outcome is the launch's outcome: its report's verdict, NotVerified or
// Failed.
func (r *Result) outcome() string {
	switch {
	case !r.Verified:
		return NotVerified
	case r.Report == nil || r.MpivetStatus == 2:
		return Failed
	}
	return r.Report.Verdict
}

// Counts counts the launch's findings: errors, warnings, and findings by
// kind (errors and warnings together).
func (r *Result) Counts() (errs, warns int, kinds map[string]int) {
	kinds = map[string]int{}
	if r.Report == nil {
		return 0, 0, kinds
	}
	for _, f := range r.Report.Findings {
		if f.Severity == check.Error {
			errs++
		} else {
			warns++
		}
		kinds[f.Kind]++
	}
	return errs, warns, kinds
}

// Results reads the reports of the launches (the launch records Load
// gives).
func Results(launches []Launch) []Result {
	out := make([]Result, len(launches))
	for i, l := range launches {
		out[i] = Result{Launch: l, Path: l.Dir}
		if l.Verified {
			out[i].Report, out[i].Problem = readReport(l)
		}
		out[i].Outcome = out[i].outcome()
		if out[i].Outcome == Failed && out[i].Problem == "" {
			out[i].Problem = l.Error
			if l.Error == "" {
				out[i].Problem = fmt.Sprintf("mpivet exited with status %d", l.MpivetStatus)
			}
		}
	}
	return out
}

// readReport reads a verified launch's report, or says why there is none.
func readReport(l Launch) (*report.Report, string) {
	data, err := os.ReadFile(l.Report())
	if errors.Is(err, fs.ErrNotExist) {
		if l.Error != "" {
			return nil, l.Error
		}
		return nil, fmt.Sprintf("no report (%s): mpivet exited with status %d", l.Report(), l.MpivetStatus)
	}
	if err != nil {
		return nil, fmt.Sprintf("cannot read the report: %v", err)
	}
	var r report.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Sprintf("%s is not a JSON report: %v", l.Report(), err)
	}
	if r.Findings == nil {
		r.Findings = []check.Finding{}
	}
	return &r, ""
}

// Totals count a suite's launches by outcome and their findings.
type Totals struct {
	Launches    int            `json:"launches"`
	OK          int            `json:"ok"`
	Error       int            `json:"error"`
	Incomplete  int            `json:"incomplete"`
	Failed      int            `json:"mpivet_failed"`
	NotVerified int            `json:"not_verified"`
	Errors      int            `json:"errors"`
	Warnings    int            `json:"warnings"`
	Kinds       map[string]int `json:"kinds"` // findings by kind
}

// Total counts the results.
func Total(rs []Result) Totals {
	t := Totals{Launches: len(rs), Kinds: map[string]int{}}
	for i := range rs {
		switch rs[i].Outcome {
		case "ok":
			t.OK++
		case "error":
			t.Error++
		case "incomplete":
			t.Incomplete++
		case Failed:
			t.Failed++
		case NotVerified:
			t.NotVerified++
		}
		e, w, ks := rs[i].Counts()
		t.Errors += e
		t.Warnings += w
		for k, n := range ks {
			t.Kinds[k] += n
		}
	}
	return t
}

// Verdict is the suite's verdict: "error" when a launch has errors, else
// "mpivet failed" when mpivet could not verify a launch, else "incomplete"
// when a verification stopped early, else "ok". Launches not verified do
// not count.
func (t Totals) Verdict() string {
	switch {
	case t.Error > 0:
		return "error"
	case t.Failed > 0:
		return Failed
	case t.Incomplete > 0:
		return "incomplete"
	}
	return "ok"
}

// ExitCode is mpivet's exit status for the suite: 1 errors found, 2 mpivet
// failed on a launch, 3 incomplete, 0 otherwise.
func (t Totals) ExitCode() int {
	switch t.Verdict() {
	case "error":
		return 1
	case Failed:
		return 2
	case "incomplete":
		return 3
	}
	return 0
}

// KindList writes findings by kind as "deadlock 1, resource-leak 2", in
// the order of the kinds' names.
func KindList(kinds map[string]int) string {
	var ks []string
	for k := range kinds {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	for i, k := range ks {
		ks[i] = fmt.Sprintf("%s %d", k, kinds[k])
	}
	return strings.Join(ks, ", ")
}

// Write writes the reports of the suite in directory dir, whose launches
// are given (Load reads them): each one asked for in out. The HTML index
// also writes each verified launch's own HTML page (report.html beside its
// report.json) where it is missing.
func Write(dir string, launches []Launch, out Outputs) error {
	return New(dir, launches).Write(out)
}

// New reads the reports of the launches of the suite in dir, and counts
// them.
func New(dir string, launches []Launch) *Suite {
	rs := Results(launches)
	s := &Suite{Dir: dir, Results: rs, Totals: Total(rs)}
	s.Verdict = s.Totals.Verdict()
	return s
}

// Write writes the reports asked for in out (see the function Write).
func (s *Suite) Write(out Outputs) error {
	if out.Text != nil {
		if err := s.PrintText(out.Text); err != nil {
			return err
		}
	}
	for _, f := range []struct {
		name, path string
		write      func(io.Writer) error
	}{
		{"JSON", out.JSON, s.PrintJSON},
		{"SARIF", out.SARIF, func(w io.Writer) error { return s.PrintSARIF(w, out.Rules) }},
		{"HTML", out.HTML, func(w io.Writer) error { return s.PrintHTML(w, out.HTML) }},
		{"JUnit", out.JUnit, s.PrintJUnit},
	} {
		if f.path == "" {
			continue
		}
		if err := writeFile(f.path, f.write); err != nil {
			return fmt.Errorf("cannot write the suite's %s report: %v", f.name, err)
		}
	}
	return nil
}

// Suite is a suite's launches and their reports, as its reports print them.
type Suite struct {
	Dir     string   `json:"dir"`
	Verdict string   `json:"verdict"`
	Totals  Totals   `json:"totals"`
	Results []Result `json:"launches"`
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
