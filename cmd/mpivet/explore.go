package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"mpivet/check"
	"mpivet/checks/all"
	"mpivet/checks/deadlock"
	"mpivet/checks/unreceived"
	"mpivet/explore"
	"mpivet/launch"
	"mpivet/report"
	"mpivet/symbolize"
	"mpivet/trace"
)

// exploration runs and checks the interleavings of one program.
type exploration struct {
	ctx       context.Context
	sess      *launch.Session
	dir       string
	np        int
	timeout   time.Duration
	sym       *symbolize.Symbolizer
	findings  []check.Finding
	seen      map[string]bool // findings already reported, by what they say
	explored  []report.Interleaving
	branches  map[int]*explore.Branch
	notes     []string
	zero      int           // the interleaving run with zero buffering (bufferingCheck), 0 if none
	first     *trace.Run    // the records of interleaving 1
	firstWall time.Duration // how long the first run took
}

// zeroSteps describes the zero-buffering run in reports.
const zeroSteps = "interleaving 1 again (every wildcard event forced to its match), with standard-mode sends synchronous: the MPI buffers none of them"

// bufferingCheck runs interleaving 1 again as interleaving n, with zero
// buffering: a send that the MPI's eager buffering let return before its
// receive was posted now waits for it, so a program that relies on buffering
// the standard does not guarantee deadlocks, and the deadlock check reports
// that as unsafe-buffering. Only those findings are kept: the run is not one
// the MPI would make.
func (x *exploration) bufferingCheck(first *explore.Interleaving, n int) error {
	var ds []explore.Decision
	if clocksOff(first.Run) == "" {
		ds = explore.Complete(first.Run)
	}
	// A program that polls (MPI_Test) for a send that now waits for its
	// receive may spin instead of blocking: the run gets a few times the
	// first one's time, not the whole time limit.
	limit := 4*x.firstWall + 10*time.Second
	saved, savedLimit := x.sess.Opts.Buffering, x.sess.Opts.Timeout
	if savedLimit == 0 || limit < savedLimit {
		x.sess.Opts.Timeout = limit
	}
	x.sess.Opts.Buffering, x.zero, x.first = "zero", n, first.Run
	defer func() { x.sess.Opts.Buffering, x.sess.Opts.Timeout = saved, savedLimit }()
	il, err := x.once(n, ds, nil)
	if err != nil {
		return err
	}
	// replay runs it with zero buffering again
	if err := os.WriteFile(filepath.Join(interleavingDir(x.dir, n), "buffering"), []byte("zero\n"), 0o644); err != nil {
		return fmt.Errorf("cannot write to the run directory: %v", err)
	}
	switch {
	case il.Infeasible:
		x.notes = append(x.notes, "the zero-buffering run could not repeat the first interleaving's matches; buffering was not checked")
	case il.TimedOut:
		x.notes = append(x.notes, fmt.Sprintf("the zero-buffering run (standard-mode sends synchronous) did not end within %s; buffering was not checked (records: %s)",
			x.sess.Opts.Timeout, interleavingDir(x.dir, n)))
	}
	return nil
}

// found reports whether a finding of one of the kinds was made in
// interleaving n (0: in any).
func (x *exploration) found(n int, kinds ...string) bool {
	for _, f := range x.findings {
		for _, k := range kinds {
			if f.Kind == k && (n == 0 || f.Interleaving == n) {
				return true
			}
		}
	}
	return false
}

// errors reports whether an error was found.
func (x *exploration) errors() bool {
	for _, f := range x.findings {
		if f.Severity == check.Error {
			return true
		}
	}
	return false
}

// interleavingDir is where interleaving n keeps its records: the first in the
// run directory itself, replays below it.
func interleavingDir(dir string, n int) string {
	if n == 1 {
		return dir
	}
	return filepath.Join(dir, "interleaving-"+strconv.Itoa(n))
}

// once runs interleaving n with decisions ds forced and checks it.
func (x *exploration) once(n int, ds []explore.Decision, b *explore.Branch) (*explore.Interleaving, error) {
	d := interleavingDir(x.dir, n)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create %s: %v", d, err)
	}
	if ds != nil {
		if err := explore.WriteDecisions(filepath.Join(d, "decisions"), ds); err != nil {
			return nil, fmt.Errorf("cannot write the decisions: %v", err)
		}
	}
	res, err := x.sess.Run(x.ctx, d)
	if err != nil {
		return nil, err
	}
	if res.Interrupted {
		return nil, fmt.Errorf("interrupted; the run was stopped (records: %s)", d)
	}
	il := &explore.Interleaving{N: n, Decisions: ds, Branch: b, Run: res.Run, TimedOut: res.TimedOut}
	x.branches[n] = b
	// A forced match that cannot happen leaves its receive waiting: the
	// replay deadlocks, or times out, with a forced event unmatched. When
	// that receive is nonblocking, its match may have happened with the
	// call that completes it blocked (seed 003 Fig. 8): then a deadlock
	// that stays when the receive may match any source is the program's.
	if ds != nil && (res.TimedOut || res.Deadlocked) {
		if unmatched, blocked := explore.Unmatched(res.Run); unmatched && (!res.Deadlocked || blocked || deadlock.ForcedOnly(res.Run)) {
			il.Infeasible = true
			return il, nil
		}
	}
	in := &check.Input{Run: res.Run, NP: x.np, TimedOut: res.TimedOut, Stalled: res.Deadlocked, Timeout: x.timeout, Sym: x.sym,
		LauncherOutput: res.Output, LauncherExit: res.LauncherExit}
	fs, err := check.Run(all.Checks, in)
	if err != nil {
		return nil, err
	}
	fresh := false
	for _, f := range fs {
		if n == x.zero && (f.Kind != "unsafe-buffering" || unreceived.Explains(x.first, res.Run)) {
			continue
		}
		f.Interleaving = n
		il.Errors = il.Errors || f.Severity == check.Error
		key := f.Kind + "\x00" + f.Message
		for _, l := range f.Locations {
			key += fmt.Sprintf("\x00%d %s:%d", l.Rank, l.File, l.Line)
		}
		if x.seen[key] {
			continue
		}
		x.seen[key] = true
		x.findings = append(x.findings, f)
		fresh = true
	}
	if fresh && n > 1 {
		steps := x.steps(n)
		if n == x.zero {
			steps = []string{zeroSteps}
		}
		x.explored = append(x.explored, report.Interleaving{N: n, Dir: d, Steps: steps,
			Replay: fmt.Sprintf("mpivet replay %s --interleaving %d", x.dir, n)})
	}
	return il, nil
}

// steps describes how interleaving n differs from the first: the chain of
// forced matches that leads to it, oldest first.
func (x *exploration) steps(n int) []string {
	var out []string
	for b := x.branches[n]; b != nil; b = x.branches[b.From] {
		where := ""
		if b.Proc != nil {
			if l := x.sym.Lookup(b.Proc.Maps, b.PC); l.File != "" || l.Function != "" {
				where = " at " + l.String()
			}
		}
		step := fmt.Sprintf("rank %d: wildcard event %d%s matched rank %s instead of rank %s",
			b.Rank, b.Event, where, rankName(b.Forced), rankName(b.Was))
		if b.Kind == trace.WildAny {
			name := "a Waitany-family call"
			if b.Proc != nil && b.Event < uint64(len(b.Proc.Wild)) {
				if c := b.Proc.CallAt(b.Proc.Wild[b.Event].Offset); c != nil {
					name = c.Name()
				}
			}
			step = fmt.Sprintf("rank %d: event %d, %s%s, returned request [%d] first instead of [%d]",
				b.Rank, b.Event, name, where, b.Forced.Source, b.Was.Source)
		}
		out = append([]string{step}, out...)
	}
	return out
}

func rankName(a explore.Alt) string {
	if a.World >= 0 {
		return strconv.Itoa(a.World)
	}
	return fmt.Sprintf("%d of its communicator", a.Source)
}

// clocksOff says why the ranks did not track causality, if they did not.
// watchNote says how many nonblocking operations the buffer checker left
// unwatched in run r, if any.
func watchNote(r *trace.Run) string {
	var started, watched uint64
	for _, p := range r.Procs {
		if p.Watch != nil {
			started += p.Watch.Started
			watched += p.Watch.Watched
		}
	}
	if watched >= started {
		return ""
	}
	pct := fmt.Sprintf("%.0f%%", 100*float64(watched)/float64(started))
	if watched*100 < started {
		pct = "less than 1%"
	}
	return fmt.Sprintf("buffers: %d of %d nonblocking operations had their buffers watched (%s); to keep the checker's cost "+
		"within a fifth of the run, the others, started at call sites already watched many times, were not (--buffers=precise watches all)",
		watched, started, pct)
}

func clocksOff(r *trace.Run) string {
	for _, p := range r.Procs {
		if p.Clocks != nil && p.Clocks.Mode == 0 {
			return p.Clocks.Off
		}
	}
	return ""
}

// progress shows the exploration on a terminal (one line, rewritten) or, on
// a pipe, a line every few seconds.
type progressLine struct {
	w    io.Writer
	tty  bool
	last time.Time
	any  bool
}

func newProgress(f *os.File) *progressLine {
	return &progressLine{w: f, tty: term.IsTerminal(int(f.Fd()))}
}

func (p *progressLine) show(pr explore.Progress) {
	msg := fmt.Sprintf("mpivet: exploring: %d %s done, %d to try, %.1fs", pr.Done,
		check.Plural(pr.Done, "interleaving", "interleavings"), pr.Frontier, pr.Elapsed.Seconds())
	if pr.Infeasible > 0 {
		msg += fmt.Sprintf(", %d infeasible", pr.Infeasible)
	}
	switch {
	case p.tty:
		fmt.Fprintf(p.w, "\r\x1b[K%s", msg)
		p.any = true
	case time.Since(p.last) >= 5*time.Second:
		fmt.Fprintln(p.w, msg)
		p.last = time.Now()
	}
}

func (p *progressLine) done() {
	if p.any {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

// command is what a run directory remembers of the command that made it,
// so that replay can run it again.
type command struct {
	Program  string        `json:"program"`
	Args     []string      `json:"args"`
	NP       int           `json:"np"`
	Launcher string        `json:"launcher,omitempty"`
	Timeout  time.Duration `json:"timeout"`
	Buffer   string        `json:"buffering"`
	Buffers  string        `json:"buffers"`
	Clocks   string        `json:"clocks"`
}

func saveCommand(dir string, f runFlags, args []string) error {
	prog := args[0]
	if abs, err := filepath.Abs(prog); err == nil && strings.Contains(prog, "/") {
		prog = abs
	}
	data, _ := json.MarshalIndent(command{Program: prog, Args: args[1:], NP: f.np, Launcher: f.launcher, Timeout: f.timeout,
		Buffer: f.buffer, Buffers: f.buffers, Clocks: f.clocks}, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "command.json"), append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("cannot write to the run directory: %v", err)
	}
	return nil
}

func replayCmd(code *int) *cobra.Command {
	var n, gdb int
	var noColor bool
	var jsonOut string
	cmd := &cobra.Command{
		Use:   "replay RUN_DIR --interleaving N",
		Short: "run one interleaving of an earlier run again, exactly",
		Long: `Run the program of an earlier mpivet run again, forcing every wildcard
receive and probe to match as it did in interleaving N of that run (the report
names the interleaving of each finding), and check it.

With --gdb RANK, that rank stops after MPI_Init until a debugger attaches
(mpivet prints the gdb command); the buffer checker is off and there is no
time limit, so the program can be stepped through.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := replay(cmd.Context(), args[0], n, gdb, noColor, jsonOut)
			*code = c
			return err
		},
	}
	cmd.Flags().IntVar(&n, "interleaving", 1, "the interleaving to replay")
	cmd.Flags().IntVar(&gdb, "gdb", -1, "start this `rank` under a debugger (it waits for gdb -p PID)")
	cmd.Flags().BoolVar(&noColor, "no-color", false, "no colours in the terminal report")
	cmd.Flags().StringVar(&jsonOut, "json", "", "also write the report as JSON to `FILE`")
	return cmd
}

func replay(ctx context.Context, dir string, n, gdb int, noColor bool, jsonOut string) (int, error) {
	data, err := os.ReadFile(filepath.Join(dir, "command.json"))
	if err != nil {
		return exitFailure, fmt.Errorf("%s is not an mpivet run directory (no command.json)", dir)
	}
	var c command
	if err := json.Unmarshal(data, &c); err != nil {
		return exitFailure, fmt.Errorf("%s/command.json: %v", dir, err)
	}
	src := interleavingDir(dir, n)
	r, err := trace.ReadRun(src)
	if err != nil || len(r.Procs) == 0 {
		return exitFailure, fmt.Errorf("no interleaving %d in %s", n, dir)
	}
	ds := explore.Complete(r)
	if ds == nil {
		ds = []explore.Decision{}
	}
	out := filepath.Join(dir, fmt.Sprintf("replay-%d-%s", n, time.Now().Format("150405")))
	if err := os.MkdirAll(out, 0o755); err != nil {
		return exitFailure, err
	}
	f := runFlags{np: c.NP, launcher: c.Launcher, timeout: c.Timeout, buffer: c.Buffer, buffers: c.Buffers, clocks: c.Clocks,
		noColor: noColor, json: jsonOut, gdb: gdb}
	if f.clocks == "off" {
		f.clocks = "lamport" // decisions need the protocol
	}
	if b, err := os.ReadFile(filepath.Join(src, "buffering")); err == nil {
		f.buffer = strings.TrimSpace(string(b)) // the zero-buffering run
	}
	if gdb >= 0 {
		f.buffers, f.timeout = "off", 0 // the trap flag and a debugger do not mix; a person takes time
	}
	fmt.Fprintf(os.Stderr, "mpivet: replaying interleaving %d of %s (%d forced %s) in %s\n", n, dir, len(ds),
		check.Plural(len(ds), "match", "matches"), out)
	return verify(ctx, f, append([]string{c.Program}, c.Args...), out, ds)
}
