package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"mpivet/check"
)

// Colors used on terminals: MUST's convention, red errors, yellow warnings,
// green for a clean run.
type palette struct{ red, yellow, green, bold, dim, reset string }

func colors(on bool) palette {
	if !on {
		return palette{}
	}
	return palette{"\x1b[31m", "\x1b[33m", "\x1b[32m", "\x1b[1m", "\x1b[2m", "\x1b[0m"}
}

// Text prints the report for a terminal: one block per finding (severity,
// kind, ranks, message, the locations), the replayed interleavings that
// findings come from, notes, and the verdict.
type Text struct {
	w     io.Writer
	color bool
}

// NewText returns a Text printer writing to w, in colours if color.
func NewText(w io.Writer, color bool) *Text { return &Text{w, color} }

// Print writes r.
func (t *Text) Print(r *Report) error {
	w := &errWriter{w: t.w}
	r.printText(w, colors(t.color))
	return w.err
}

// errWriter keeps the first error of its writes.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, nil
}

func (r *Report) printText(w io.Writer, c palette) {
	// Every text that may come from the program is Printable (q).
	q := Printable
	fmt.Fprintf(w, "\n%s== mpivet: %s, %d %s, %s ==%s\n", c.bold, q(r.Program), r.Ranks, check.Plural(r.Ranks, "rank", "ranks"), q(r.MPI), c.reset)
	for _, f := range r.Findings {
		fmt.Fprintln(w)
		r.printFinding(w, f, c)
	}
	for _, il := range r.Explored {
		fmt.Fprintf(w, "\n%sinterleaving %d%s:\n", c.bold, il.N, c.reset)
		for _, s := range il.Steps {
			fmt.Fprintf(w, "    %s\n", q(s))
		}
		fmt.Fprintf(w, "  replay: %s\n", q(il.Replay))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\n%snote: %s%s\n", c.dim, q(n), c.reset)
	}
	errs, warns := 0, 0
	for _, f := range r.Findings {
		if f.Severity == check.Error {
			errs++
		} else {
			warns++
		}
	}
	if r.Coverage.Events > 0 {
		fmt.Fprintf(w, "\n%scoverage: %s%s\n", c.dim, q(r.Coverage.Summary()), c.reset)
		r.Coverage.printSites(w)
	}
	if r.Bounds != nil && r.Coverage.Events > 0 {
		fmt.Fprintf(w, "\n%sbounds: %s%s\n", c.dim, r.Bounds, c.reset)
	}
	r.printSuppressions(w, c)
	fmt.Fprintln(w)
	if !r.Complete {
		fmt.Fprintf(w, "%sincomplete:%s %s; %s\n", c.yellow, c.reset, q(r.Stopped), q(r.Coverage.String()))
	}
	if len(r.Findings) == 0 {
		if r.Verdict == "incomplete" {
			if r.Interleavings == 0 {
				fmt.Fprintf(w, "%sverdict: incomplete%s: the program was not run, nothing was checked (records: %s)\n", c.yellow, c.reset, q(r.RunDir))
				return
			}
			fmt.Fprintf(w, "%sverdict: incomplete%s: no MPI usage errors found in the %d %s covered (records: %s)\n",
				c.yellow, c.reset, r.Interleavings, check.Plural(r.Interleavings, "interleaving", "interleavings"), q(r.RunDir))
			return
		}
		within := ""
		if r.Bounds != nil && r.Coverage.Events > 0 {
			within = ", every outcome within the bounds covered"
		}
		fmt.Fprintf(w, "%sverdict: ok%s: no MPI usage errors found in %d %s%s (records: %s)\n",
			c.green, c.reset, r.Interleavings, check.Plural(r.Interleavings, "interleaving", "interleavings"), within, q(r.RunDir))
		return
	}
	col := c.yellow
	if r.Verdict == "error" {
		col = c.red
	}
	fmt.Fprintf(w, "%sverdict: %s%s: %d %s, %d %s in %d %s (records: %s)\n", col, r.Verdict, c.reset,
		errs, check.Plural(errs, "error", "errors"), warns, check.Plural(warns, "warning", "warnings"),
		r.Interleavings, check.Plural(r.Interleavings, "interleaving", "interleavings"), q(r.RunDir))
}

// printFinding prints one finding's block: its severity, kind, ranks and
// interleaving, its message and its locations.
func (r *Report) printFinding(w io.Writer, f check.Finding, c palette) {
	q := Printable
	col := c.yellow
	if f.Severity == check.Error {
		col = c.red
	}
	ranks := ""
	if len(f.Ranks) > 0 {
		ranks = fmt.Sprintf(" %s %s", check.Plural(len(f.Ranks), "rank", "ranks"), check.RankList(f.Ranks))
	}
	fmt.Fprintf(w, "%s%s[%s]%s%s%s\n", col, f.Severity, f.Kind, c.reset, ranks, r.interleaving(f))
	msg := strings.ReplaceAll(q(f.Message), "\n", "\n    ")
	fmt.Fprintf(w, "  %s\n", msg)
	for _, l := range f.Locations {
		note := ""
		if l.Note != "" {
			note = c.dim + "  (" + q(l.Note) + ")" + c.reset
		}
		fmt.Fprintf(w, "    rank %d: %s%s\n", l.Rank, q(l.String()), note)
	}
}

// FindingText is the text report of one finding of r, without colours:
// its block, as the terminal shows it, and for a finding of a replayed
// interleaving the forced matches and the command that replays it.
func (r *Report) FindingText(f check.Finding) string {
	var b strings.Builder
	r.printFinding(&b, f, palette{})
	for _, il := range r.Explored {
		if il.N != f.Interleaving {
			continue
		}
		fmt.Fprintf(&b, "interleaving %d:\n", il.N)
		for _, s := range il.Steps {
			fmt.Fprintf(&b, "    %s\n", Printable(s))
		}
		fmt.Fprintf(&b, "  replay: %s\n", Printable(il.Replay))
	}
	return b.String()
}

// interleaving names the interleaving a finding comes from, when there were several.
func (r *Report) interleaving(f check.Finding) string {
	if r.Interleavings > 1 && f.Interleaving > 0 {
		return fmt.Sprintf(" (interleaving %d)", f.Interleaving)
	}
	return ""
}

// printSuppressions says how many findings suppressions silenced (they are
// not in the verdict) and which suppressions matched nothing.
func (r *Report) printSuppressions(w io.Writer, c palette) {
	if n := len(r.Suppressed); n > 0 {
		errs := 0
		for _, s := range r.Suppressed {
			if s.Severity == string(check.Error) {
				errs++
			}
		}
		fmt.Fprintf(w, "\n%ssuppressed: %d %s (%d %s), not counted in the verdict%s\n", c.dim, n,
			check.Plural(n, "finding", "findings"), errs, check.Plural(errs, "error", "errors"), c.reset)
	}
	for _, u := range r.Unused {
		fmt.Fprintf(w, "\n%sunused suppression:%s %s\n", c.yellow, c.reset, Printable(u))
	}
}

// printSites prints the coverage of each nondeterministic call site, a
// table.
func (c Coverage) printSites(w io.Writer) {
	if len(c.Sites) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  site\tcall\tranks\tevents\trun\tequivalent\tcut by bounds\tknown, not run\tspace")
	for _, s := range c.Sites {
		space := "-"
		if s.Space != "" {
			space = ShortNumber(s.Space) + " " + s.SpaceNote
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\t%d\t%s\t%s\t%s\n", Printable(s.Location), Printable(s.Call), check.RankList(s.Ranks), s.Events, s.RunCell(),
			s.Equivalent, s.BoundedCell(), s.KnownCell(), space)
	}
	tw.Flush()
}

// RunCell says how many outcomes were replayed, and how many of those
// gave no checkable execution.
func (s Site) RunCell() string {
	if s.Unchecked > 0 {
		return fmt.Sprintf("%d (%d unchecked)", s.Run, s.Unchecked)
	}
	return fmt.Sprint(s.Run)
}

// BoundedCell says how many outcomes the bounds cut, and how many were
// not explored, the site being in an installed library.
func (s Site) BoundedCell() string {
	if s.Library > 0 {
		return fmt.Sprintf("%d (+%d in a library)", s.Bounded, s.Library)
	}
	return fmt.Sprint(s.Bounded)
}

// KnownCell says how many outcomes known were not run, and how many of
// those were not replayable.
func (s Site) KnownCell() string {
	if s.NotReplayable > 0 {
		return fmt.Sprintf("%d (+%d not replayable)", s.Known, s.NotReplayable)
	}
	return fmt.Sprint(s.Known)
}

// ShortNumber writes a decimal number of more than 12 digits as "≈1.2e57".
func ShortNumber(d string) string {
	if len(d) <= 12 {
		n := len(d)
		var b strings.Builder
		for i, ch := range d {
			if i > 0 && (n-i)%3 == 0 {
				b.WriteByte(',')
			}
			b.WriteRune(ch)
		}
		return b.String()
	}
	return fmt.Sprintf("≈%c.%ce%d", d[0], d[1], len(d)-1)
}
