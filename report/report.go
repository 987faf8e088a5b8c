// Package report prints the outcome of an mpivet run: on a terminal, one
// block per finding, and as the JSON document that tools and tests read.
// Each format is one Print function; they share the Report value.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

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
// did not give a checkable execution.
type Coverage struct {
	Done       int `json:"done"`
	Queued     int `json:"queued"`
	Infeasible int `json:"infeasible"` // a forced match that could not happen
	Diverged   int `json:"diverged"`   // the program took another path before the forced match
	TimedOut   int `json:"timed_out"`
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
	for _, f := range findings {
		if f.Severity == check.Error {
			r.Verdict = "error"
		}
	}
	return r
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

// WriteJSON writes the JSON document to path.
func (r *Report) WriteJSON(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// Colors used on terminals: MUST's convention, red errors, yellow warnings,
// green for a clean run.
type palette struct{ red, yellow, green, bold, dim, reset string }

func colors(on bool) palette {
	if !on {
		return palette{}
	}
	return palette{"\x1b[31m", "\x1b[33m", "\x1b[32m", "\x1b[1m", "\x1b[2m", "\x1b[0m"}
}

// PrintText writes the terminal report.
func (r *Report) PrintText(w io.Writer, color bool) {
	c := colors(color)
	fmt.Fprintf(w, "\n%s== mpivet: %s, %d %s, %s ==%s\n", c.bold, r.Program, r.Ranks, check.Plural(r.Ranks, "rank", "ranks"), r.MPI, c.reset)
	for _, f := range r.Findings {
		col := c.yellow
		if f.Severity == check.Error {
			col = c.red
		}
		ranks := ""
		if len(f.Ranks) > 0 {
			ranks = fmt.Sprintf(" %s %s", check.Plural(len(f.Ranks), "rank", "ranks"), check.RankList(f.Ranks))
		}
		fmt.Fprintf(w, "\n%s%s[%s]%s%s%s\n", col, f.Severity, f.Kind, c.reset, ranks, r.interleaving(f))
		msg := strings.ReplaceAll(f.Message, "\n", "\n    ")
		fmt.Fprintf(w, "  %s\n", msg)
		for _, l := range f.Locations {
			note := ""
			if l.Note != "" {
				note = c.dim + "  (" + l.Note + ")" + c.reset
			}
			fmt.Fprintf(w, "    rank %d: %s%s\n", l.Rank, l.String(), note)
		}
	}
	for _, il := range r.Explored {
		fmt.Fprintf(w, "\n%sinterleaving %d%s:\n", c.bold, il.N, c.reset)
		for _, s := range il.Steps {
			fmt.Fprintf(w, "    %s\n", s)
		}
		fmt.Fprintf(w, "  replay: %s\n", il.Replay)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\n%snote: %s%s\n", c.dim, n, c.reset)
	}
	errs, warns := 0, 0
	for _, f := range r.Findings {
		if f.Severity == check.Error {
			errs++
		} else {
			warns++
		}
	}
	fmt.Fprintln(w)
	if !r.Complete {
		fmt.Fprintf(w, "%sincomplete:%s %s; %s\n", c.yellow, c.reset, r.Stopped, r.Coverage)
	}
	if len(r.Findings) == 0 {
		if r.Verdict == "incomplete" {
			fmt.Fprintf(w, "%sverdict: incomplete%s: no MPI usage errors found in the %d %s covered (records: %s)\n",
				c.yellow, c.reset, r.Interleavings, check.Plural(r.Interleavings, "interleaving", "interleavings"), r.RunDir)
			return
		}
		fmt.Fprintf(w, "%sverdict: ok%s: no MPI usage errors found in %d %s (records: %s)\n",
			c.green, c.reset, r.Interleavings, check.Plural(r.Interleavings, "interleaving", "interleavings"), r.RunDir)
		return
	}
	col := c.yellow
	if r.Verdict == "error" {
		col = c.red
	}
	fmt.Fprintf(w, "%sverdict: %s%s: %d %s, %d %s in %d %s (records: %s)\n", col, r.Verdict, c.reset,
		errs, check.Plural(errs, "error", "errors"), warns, check.Plural(warns, "warning", "warnings"),
		r.Interleavings, check.Plural(r.Interleavings, "interleaving", "interleavings"), r.RunDir)
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

// interleaving names the interleaving a finding comes from, when there were several.
func (r *Report) interleaving(f check.Finding) string {
	if r.Interleavings > 1 && f.Interleaving > 0 {
		return fmt.Sprintf(" (interleaving %d)", f.Interleaving)
	}
	return ""
}
