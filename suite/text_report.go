package suite

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"mpivet/check"
	"mpivet/report"
)

// PrintText writes the suite's summary for a terminal: one entry per
// launch (its index, program and arguments, ranks, outcome and findings by
// kind, its run directory), the launches not verified with their reason,
// then the totals and the suite's verdict.
func (s *Suite) PrintText(w io.Writer) error {
	var ew bytes.Buffer // the summary is small: written at once, its one error returned
	fmt.Fprintf(&ew, "\n== mpivet suite: %s, %d %s ==\n", report.Printable(s.Dir), len(s.Results),
		check.Plural(len(s.Results), "launch", "launches"))
	for i := range s.Results {
		s.Results[i].printText(&ew)
	}
	t := s.Totals
	fmt.Fprintf(&ew, "\ntotals: %d %s: %d ok, %d error, %d incomplete, %d mpivet failed, %d not verified; %d %s, %d %s",
		t.Launches, check.Plural(t.Launches, "launch", "launches"), t.OK, t.Error, t.Incomplete, t.Failed, t.NotVerified,
		t.Errors, check.Plural(t.Errors, "error", "errors"), t.Warnings, check.Plural(t.Warnings, "warning", "warnings"))
	if len(t.Kinds) > 0 {
		fmt.Fprintf(&ew, " (%s)", KindList(t.Kinds))
	}
	fmt.Fprintf(&ew, "\nverdict: %s\n", s.Verdict)
	_, err := w.Write(ew.Bytes())
	return err
}

func (r *Result) printText(w io.Writer) {
	fmt.Fprintf(w, "\n[%d] %s", r.Index, report.Printable(r.CommandLine()))
	if r.Ranks > 0 {
		fmt.Fprintf(w, " (%d %s)", r.Ranks, check.Plural(r.Ranks, "rank", "ranks"))
	}
	out := r.Outcome
	switch out {
	case NotVerified:
		fmt.Fprintf(w, ": not verified: %s\n", report.Printable(r.Reason))
		return
	case Failed:
		fmt.Fprintf(w, ": mpivet failed (exit status %d): %s\n", r.MpivetStatus, report.Printable(r.Problem))
		fmt.Fprintf(w, "    launch: %s\n", report.Printable(r.Dir))
		return
	}
	errs, warns, kinds := r.Counts()
	fmt.Fprintf(w, ": %s", out)
	if errs+warns > 0 {
		fmt.Fprintf(w, ": %d %s, %d %s: %s", errs, check.Plural(errs, "error", "errors"), warns,
			check.Plural(warns, "warning", "warnings"), KindList(kinds))
	}
	if r.Report.Stopped != "" {
		fmt.Fprintf(w, " (stopped: %s)", report.Printable(r.Report.Stopped))
	}
	fmt.Fprintf(w, "\n    records: %s (launch: %s)\n", report.Printable(r.Report.RunDir), report.Printable(r.Dir))
}

// CommandLine is the launch's program and arguments, or for a launch
// not verified the command the suite ran, with arguments quoted where a
// shell would need it.
func (r *Result) CommandLine() string {
	words := append([]string{r.Program}, r.Args...)
	if r.Program == "" {
		words = r.Command
	}
	q := make([]string, len(words))
	for i, a := range words {
		q[i] = a
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`*?[]{}()<>|&;#~") {
			q[i] = strconv.Quote(a)
		}
	}
	return strings.Join(q, " ")
}

// PrintJSON writes the suite as JSON: its directory, verdict and totals,
// and every launch's record with its report (see docs/guide/reports.md).
func (s *Suite) PrintJSON(w io.Writer) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}
