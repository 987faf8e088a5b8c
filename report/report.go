// Package report owns the outcome of a verification: merging the findings
// of every interleaving under one identity (Fingerprint; Merge joins a
// finding's ranks, Findings keeps one finding per fingerprint across
// interleavings), the verdict and exit status (New, ExitCode), and the
// printers, one per format behind the Printer interface: Text (the
// terminal), JSON (what tools and tests read), HTML (one page with the
// graphs and each finding's trail), SARIF (code-scanning tools) and DOT
// (the graphs that go with findings, written as files: a deadlock's
// wait-for graph). Each printer has golden tests (testdata/*.golden; go
// test -update rewrites them).
//
// The files: report.go the Report, its coverage and bounds; merge.go
// fingerprints and merging; suppress.go suppression files; trail.go and
// spacetime.go a finding's trail (package spacetime builds it) and its
// space-time diagram; text.go, json.go, html.go, sarif.go and dot.go the
// printers.
package report

import (
	"fmt"
	"strings"
	"time"

	"mpivet/check"
)

// Report is the outcome of checking a program.
type Report struct {
	// Verdict is "error" when errors were found, "incomplete" when none
	// were but the verification stopped before covering what it set out to
	// (Stopped says why), and "ok" otherwise.
	Verdict       string   `json:"verdict"`
	Complete      bool     `json:"complete"`
	Stopped       string   `json:"stopped,omitempty"` // why the verification is incomplete
	Interleavings int      `json:"interleavings"`
	Coverage      Coverage `json:"coverage"`
	// Bounds the exploration ran within (nil: no exploration).
	Bounds   *Bounds         `json:"bounds,omitempty"`
	Findings []check.Finding `json:"findings"`
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
// did not give a checkable execution; the nondeterministic events found
// with other possible outcomes (Events), and of those outcomes how many were
// run (Explored), left out as equivalent completion orders (Equivalent),
// left out by --mixing-bound or --order-bound (Pruned), or left out by the
// budget, --max-interleavings or an interrupt (Queued); and the same per
// call site (Sites). Outcomes not known (those replays never run would have
// found) are in none: coverage is never a share of the outcomes known.
type Coverage struct {
	Done       int `json:"done"`
	Queued     int `json:"queued"`
	Infeasible int `json:"infeasible"` // a forced match that could not happen
	Diverged   int `json:"diverged"`   // the program took another path before the forced match
	TimedOut   int `json:"timed_out"`
	Events     int `json:"wildcard_events"`
	Explored   int `json:"explored"`
	Equivalent int `json:"equivalent"`
	Pruned     int `json:"pruned"`
	// NotReplayable: outcomes left out because replays diverged, before
	// their forced match, at a place they must repeat: the program's
	// MPI calls depend on timing there.
	NotReplayable int `json:"not_replayable,omitempty"`
	// Library: outcomes not explored, their call sites being in installed
	// libraries (--explore=program).
	Library int    `json:"library,omitempty"`
	Sites   []Site `json:"sites,omitempty"`
}

// Site is what the exploration did at one nondeterministic call site: the
// outcomes its events could have had instead (Alternatives: run, equivalent,
// pruned, queued), and the size of its space where it could be computed.
type Site struct {
	Location string `json:"location"` // file:line, or module+offset
	Call     string `json:"call,omitempty"`
	Kind     string `json:"kind"` // "wildcard receive", "wildcard probe", "completion order"
	Ranks    []int  `json:"ranks"`
	Events   int    `json:"events"` // events with other outcomes (each time an interleaving planned showed one)
	Run      int    `json:"run"`    // other outcomes replayed
	// Unchecked: of those, replays that did not give the execution asked
	// for (infeasible, diverged): tried, not checked.
	Unchecked int `json:"unchecked,omitempty"`
	Known     int `json:"known_not_run"` // known, not run: stopped by the budget, --max-interleavings or an interrupt
	Bounded   int `json:"cut_by_bounds"` // left out by --mixing-bound or --order-bound
	// Equivalent: completion orders not replayed, another order in the same
	// context having led to the same MPI calls.
	Equivalent int `json:"equivalent"`
	// NotReplayable: left out, replays diverging before they reach them
	// (Coverage.NotReplayable).
	NotReplayable int `json:"not_replayable,omitempty"`
	// Library: not explored, the site being in an installed library
	// (Coverage.Library).
	Library int `json:"library,omitempty"`
	// Space is the size of the site's space of outcomes in the first run, in
	// decimal ("" not computed): for wildcard receives and probes, the
	// orders in which their messages could have been matched; for completion
	// calls, a bound on the orders of completion. SpaceNote says which.
	Space     string `json:"space,omitempty"`
	SpaceNote string `json:"space_note,omitempty"`
}

// Summary says what the exploration covered, in a sentence, for the
// reports people read.
func (c Coverage) Summary() string {
	if c.Events == 0 && c.Explored == 0 {
		return fmt.Sprintf("%s; no nondeterministic event had another possible outcome", c)
	}
	s := fmt.Sprintf("%s; %d nondeterministic %s with other possible outcomes: of those outcomes, %d run, %d cut by bounds, %d known and not run",
		c, c.Events, check.Plural(c.Events, "event", "events"), c.Explored, c.Pruned, c.Queued)
	if c.Equivalent > 0 {
		s += fmt.Sprintf(", %d equivalent completion %s not replayed", c.Equivalent, check.Plural(c.Equivalent, "order", "orders"))
	}
	if c.NotReplayable > 0 {
		s += fmt.Sprintf(", %d not replayable (replays diverge before them)", c.NotReplayable)
	}
	if c.Library > 0 {
		s += fmt.Sprintf(", %d in installed libraries not explored (--explore=all)", c.Library)
	}
	return s
}

// Bounds are the bounds the exploration ran within: a complete verdict is
// complete within them.
type Bounds struct {
	MixingBound      int     `json:"mixing_bound"`          // -1: none
	OrderBound       int     `json:"order_bound"`           // -1: none
	CompletionOrders string  `json:"completion_orders"`     // reduce, all
	Explore          string  `json:"explore,omitempty"`     // program, all
	MaxInterleavings int     `json:"max_interleavings"`     // 0: none
	Budget           float64 `json:"budget_seconds"`        // 0: none
	BudgetRule       string  `json:"budget_rule,omitempty"` // how the budget was chosen, when not given
}

// String names the bounds, for the reports people read.
func (b Bounds) String() string {
	var s []string
	if b.MixingBound < 0 {
		s = append(s, "every combination of wildcard matches (--mixing-bound -1)")
	} else {
		s = append(s, fmt.Sprintf("at most %d nested changes of wildcard matches (--mixing-bound %d)", b.MixingBound+1, b.MixingBound))
	}
	switch {
	case b.OrderBound < 0:
		s = append(s, "every completion order (--order-bound -1)")
	case b.OrderBound == 0:
		s = append(s, "each other outcome of each Waitany/Waitsome/Testany/Testsome once (--order-bound 0)")
	default:
		s = append(s, fmt.Sprintf("at most %d nested changes of completion order (--order-bound %d)", b.OrderBound+1, b.OrderBound))
	}
	if b.CompletionOrders == "reduce" {
		s = append(s, "completion orders replayed once per context where they change no later MPI call (--completion-orders=all replays them all)")
	}
	if b.Explore == "program" {
		s = append(s, "the program's own call sites (--explore=all explores those in installed libraries too)")
	}
	if b.MaxInterleavings > 0 {
		s = append(s, fmt.Sprintf("--max-interleavings %d", b.MaxInterleavings))
	}
	if b.Budget > 0 {
		d := time.Duration(b.Budget * float64(time.Second)).Round(time.Second)
		if b.BudgetRule != "" {
			s = append(s, fmt.Sprintf("a time budget of %s (%s)", d, b.BudgetRule))
		} else {
			s = append(s, fmt.Sprintf("a time budget of %s (--budget)", d))
		}
	} else {
		s = append(s, "no time budget")
	}
	return strings.Join(s, "; ")
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
