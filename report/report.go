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
	Verdict       string          `json:"verdict"` // "ok" or "error"
	Interleavings int             `json:"interleavings"`
	Findings      []check.Finding `json:"findings"`
	// Explored describes the replayed interleavings findings come from.
	Explored []Interleaving `json:"explored,omitempty"`
	Notes    []string       `json:"notes,omitempty"` // what limited the verification`
	Program  string         `json:"program"`
	Args     []string       `json:"args"`
	Ranks    int            `json:"ranks"`
	MPI      string         `json:"mpi"`
	RunDir   string         `json:"run_dir"`
	Seconds  float64        `json:"seconds"`
}

// Interleaving is a replayed execution: the forced matches that make it
// differ from the first run, and the command that runs it again.
type Interleaving struct {
	N      int      `json:"n"`
	Dir    string   `json:"dir"`
	Steps  []string `json:"steps"`
	Replay string   `json:"replay"`
}

// New builds a report and its verdict from findings.
func New(findings []check.Finding) *Report {
	r := &Report{Verdict: "ok", Findings: findings}
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

// ExitCode is mpivet's exit status for the report: 0 clean, 1 errors found.
func (r *Report) ExitCode() int {
	if r.Verdict == "error" {
		return 1
	}
	return 0
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
	if len(r.Findings) == 0 {
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

// interleaving names the interleaving a finding comes from, when there were several.
func (r *Report) interleaving(f check.Finding) string {
	if r.Interleavings > 1 && f.Interleaving > 0 {
		return fmt.Sprintf(" (interleaving %d)", f.Interleaving)
	}
	return ""
}
