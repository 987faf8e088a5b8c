// Package report owns the outcome of a verification: merging the findings
// of every interleaving under one identity (Fingerprint; Merge joins a
// finding's ranks, Findings keeps one finding per fingerprint across
// interleavings), the verdict and exit status (New, ExitCode), and the
// printers, one per format behind the Printer interface: Text (the
// terminal), JSON (what tools and tests read) and DOT (the graphs that go
// with findings, written as files: a deadlock's wait-for graph). Each
// printer has golden tests (testdata/*.golden; go test -update rewrites
// them).
package report

import (
	"fmt"

	"mpivet/check"
)

// Report is the outcome of checking a program.
type Report struct {
	// Verdict is "error" when errors were found, "incomplete" when none
	// were but the verification stopped before covering what it set out to
	// (Stopped says why), and "ok" otherwise.
	Verdict       string          `json:"verdict"`
	Complete      bool            `json:"complete"`
	Stopped       string          `json:"stopped,omitempty"` // why the verification is incomplete
	Interleavings int             `json:"interleavings"`
	Coverage      Coverage        `json:"coverage"`
	Findings      []check.Finding `json:"findings"`
	// Explored describes the replayed interleavings findings come from.
	Explored []Interleaving `json:"explored,omitempty"`
	Notes    []string       `json:"notes,omitempty"` // what limited the verification
	// Trails are what the ranks did before the findings, one per
	// interleaving with a finding (bounded: the last calls of each rank).
	Trails []Trail `json:"trails,omitempty"`
	// Suppressed are the findings a suppression file silenced: counted,
	// not printed, and not in the verdict. Unused are the suppressions
	// that matched no finding.
	Suppressed []Suppressed `json:"suppressed,omitempty"`
	Unused     []string     `json:"unused_suppressions,omitempty"`
	// Buffering says how deadlocks hidden by the MPI's buffering were
	// looked for (unsafe-buffering): offline, from the records, or by a
	// run with zero buffering.
	Buffering string   `json:"buffering,omitempty"`
	Program   string   `json:"program"`
	Args      []string `json:"args"`
	Ranks     int      `json:"ranks"`
	MPI       string   `json:"mpi"`
	RunDir    string   `json:"run_dir"`
	Seconds   float64  `json:"seconds"`
}

// Coverage says what the exploration covered: interleavings run (Done),
// alternatives known but not run when it stopped (Queued), and replays that
// did not give a checkable execution; the wildcard events found with other
// possible outcomes (Events), and of those outcomes how many were run
// (Explored), left out by --mixing-bound or --order-bound (Pruned), or left
// out by --budget, --max-interleavings or an interrupt (Queued).
type Coverage struct {
	Done       int `json:"done"`
	Queued     int `json:"queued"`
	Infeasible int `json:"infeasible"` // a forced match that could not happen
	Diverged   int `json:"diverged"`   // the program took another path before the forced match
	TimedOut   int `json:"timed_out"`
	Events     int `json:"wildcard_events"`
	Explored   int `json:"explored"`
	Pruned     int `json:"pruned"`
}

// Percent is the share of the known outcomes of wildcard events that were
// run: 100 when there were none to run.
func (c Coverage) Percent() float64 {
	all := c.Explored + c.Pruned + c.Queued
	if all == 0 {
		return 100
	}
	return 100 * float64(c.Explored) / float64(all)
}

// Summary says what the exploration covered, in a sentence, for the
// reports people read.
func (c Coverage) Summary() string {
	if c.Events == 0 && c.Explored == 0 {
		return fmt.Sprintf("%s; no wildcard event had another possible outcome", c)
	}
	return fmt.Sprintf("%s; %d wildcard %s with other possible outcomes: %d %s explored, %d pruned by bounds, %d skipped by budget or limits (%.0f%% covered)",
		c, c.Events, check.Plural(c.Events, "event", "events"), c.Explored, check.Plural(c.Explored, "alternative", "alternatives"),
		c.Pruned, c.Queued, c.Percent())
}

// Interleaving is a replayed execution: the forced matches that make it
// differ from the first run, and the command that runs it again.
type Interleaving struct {
	N      int      `json:"n"`
	Dir    string   `json:"dir"`
	Steps  []string `json:"steps"`
	Replay string   `json:"replay"`
}

// New builds a report and its verdict from findings, for a verification
// that stopped early (stopped says why) or went to its end (stopped empty).
func New(findings []check.Finding, stopped string) *Report {
	r := &Report{Verdict: "ok", Findings: findings, Complete: stopped == "", Stopped: stopped}
	if stopped != "" {
		r.Verdict = "incomplete"
	}
	if r.Findings == nil {
		r.Findings = []check.Finding{}
	}
	for i, f := range r.Findings {
		if f.Fingerprint == "" {
			r.Findings[i].Fingerprint = Fingerprint(f)
		}
	}
	r.verdict()
	return r
}

// verdict sets Verdict from the findings (those not suppressed) and Stopped.
func (r *Report) verdict() {
	r.Verdict = "ok"
	if r.Stopped != "" {
		r.Verdict = "incomplete"
	}
	for _, f := range r.Findings {
		if f.Severity == check.Error {
			r.Verdict = "error"
		}
	}
}

// Exit statuses of a verification that ran (2, mpivet could not do its
// job, is the command's own).
const (
	ExitOK         = 0 // no error found, everything covered
	ExitErrors     = 1 // errors found (complete or not)
	ExitIncomplete = 3 // no error found in what was covered, but the verification stopped early
)

// ExitCode is mpivet's exit status for the report.
func (r *Report) ExitCode() int {
	switch r.Verdict {
	case "error":
		return ExitErrors
	case "incomplete":
		return ExitIncomplete
	}
	return ExitOK
}

// String says what was covered, in words.
func (c Coverage) String() string {
	s := fmt.Sprintf("%d %s run", c.Done, check.Plural(c.Done, "interleaving", "interleavings"))
	if c.Queued > 0 {
		s += fmt.Sprintf(", %d more known but not run", c.Queued)
	}
	for _, x := range []struct {
		n    int
		what string
	}{{c.Infeasible, "infeasible"}, {c.Diverged, "diverged"}, {c.TimedOut, "timed out"}} {
		if x.n > 0 {
			s += fmt.Sprintf(", %d %s", x.n, x.what)
		}
	}
	return s
}

// Printer writes a report in one format.
type Printer interface {
	Print(r *Report) error
}
