package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"mpivet/api"
	"mpivet/check"
	"mpivet/checks/all"
	"mpivet/checks/stall"
	"mpivet/checks/unreceived"
	"mpivet/checks/zerobuf"
	"mpivet/explore"
	"mpivet/launch"
	"mpivet/report"
	"mpivet/symbolize"
	"mpivet/trace"
)

// exploration runs and checks the interleavings of one program.
type exploration struct {
	ctx       context.Context
	sig       *interrupts
	deadline  time.Time // of the time budget (zero: none)
	budget    time.Duration
	keep      bool         // keep the records of replays without new findings
	hook      string       // shell command run before each replay (--replay-hook)
	fresh     map[int]bool // replays that gave a new finding (their records are kept)
	diverged  []string     // how the first diverged replays diverged
	sess      *launch.Session
	dir       string
	np        int
	timeout   time.Duration
	sym       *symbolize.Symbolizer
	findings  report.Findings // one per fingerprint, in the order found
	explored  []report.Interleaving
	branches  map[int]*explore.Branch
	notes     []string
	zero      int           // the interleaving run with zero buffering (bufferingCheck), 0 if none
	first     *trace.Run    // of interleaving 1's records, only the messages never received (unreceivedOnly)
	firstUnit *check.Unit   // interleaving 1's analyses, until simulate has used them
	firstWall time.Duration // how long the first run took
	slack     bool          // buffering-aware exploration (--slack=minimal)
}

// zeroSteps describes the zero-buffering run in reports.
const zeroSteps = "interleaving 1 again (every wildcard event forced to its match), with standard-mode sends synchronous: the MPI buffers none of them"

// bufferingCheck runs interleaving 1 again as interleaving n, with zero
// buffering: a send that the MPI's eager buffering let return before its
// receive was posted now waits for it, so a program that relies on buffering
// the standard does not guarantee deadlocks, and the deadlock check reports
// that as unsafe-buffering. Only those findings are kept: the run is not one
// the MPI would make. ds force the first run's matches (forced: they exist).
func (x *exploration) bufferingCheck(ds []explore.Decision, forced bool, n int) (*explore.Interleaving, error) {
	if !forced {
		ds = nil
	} else if ds == nil {
		ds = []explore.Decision{}
	}
	// A program that polls (MPI_Test) for a send that now waits for its
	// receive may spin instead of blocking: the run gets a few times the
	// first one's time, not the whole time limit.
	limit := 4*x.firstWall + 10*time.Second
	saved, savedLimit := x.sess.Opts.Buffering, x.sess.Opts.Timeout
	if savedLimit == 0 || limit < savedLimit {
		x.sess.Opts.Timeout = limit
	}
	x.sess.Opts.Buffering, x.zero = "zero", n
	defer func() { x.sess.Opts.Buffering, x.sess.Opts.Timeout = saved, savedLimit }()
	il, err := x.once(n, ds, nil)
	if err != nil {
		return nil, err
	}
	// replay runs it with zero buffering again
	if err := os.WriteFile(filepath.Join(interleavingDir(x.dir, n), "buffering"), []byte("zero\n"), 0o644); err != nil {
		return nil, fmt.Errorf("cannot write to the run directory: %v", err)
	}
	switch {
	case il.Stopped != "":
	case il.Infeasible:
		x.notes = append(x.notes, "the zero-buffering run could not repeat the first interleaving's matches; buffering was not checked")
	case il.TimedOut:
		x.notes = append(x.notes, fmt.Sprintf("the zero-buffering run (standard-mode sends synchronous) did not end within %s; buffering was not checked (records: %s)",
			x.sess.Opts.Timeout, interleavingDir(x.dir, n)))
	}
	return il, nil
}

// simulate replays interleaving 1's matches under zero buffering, from
// the analyses its checks made (the objects of every rank), and lets them
// go: the exploration keeps no whole run.
func (x *exploration) simulate() (*zerobuf.Result, error) {
	u := x.firstUnit
	x.firstUnit = nil
	if u == nil {
		return nil, nil
	}
	r, err := u.Result(zerobuf.Analyzer)
	if err != nil {
		return nil, err
	}
	return r.(*zerobuf.Result), nil
}

// checkBuffering looks for deadlocks the MPI's buffering hid in
// interleaving 1: from its records (sim, the offline zero-buffering
// replay) when they say enough, by running it again with zero buffering
// (bufferingCheck, as interleaving n) when they do not, to confirm a
// suspected deadlock, or when the user asks (sim nil). It returns how
// buffering was checked, for the report, and why the verification
// stopped, if it did.
func (x *exploration) checkBuffering(sim *zerobuf.Result, ds []explore.Decision, forced bool, n int) (how, stopped string, err error) {
	if sim != nil && sim.Checked && len(sim.Stuck) == 0 {
		return fmt.Sprintf("offline: interleaving 1's %d %s replayed with standard-mode sends synchronous; every rank ends",
			sim.Matches, check.Plural(sim.Matches, "match", "matches")), "", nil
	}
	how = "run: interleaving 1 again with standard-mode sends synchronous"
	switch {
	case sim == nil:
	case !sim.Checked:
		how += " (the records could not be replayed offline: " + sim.Why + ")"
	default:
		how += " (to confirm: replayed offline, " + sim.String() + " would wait forever)"
	}
	il, err := x.bufferingCheck(ds, forced, n)
	if err != nil {
		return how, "", err
	}
	if sim != nil && sim.Checked && il.Stopped == "" && !il.Infeasible && !il.TimedOut && !x.found(n, "unsafe-buffering") {
		x.notes = append(x.notes, fmt.Sprintf("replayed offline with standard-mode sends synchronous, interleaving 1 would leave %s waiting forever, "+
			"but the run with zero buffering ended: a collective that may synchronise did not, or a Waitany took another request (not an error)", sim))
	}
	return how, il.Stopped, nil
}

// unreceivedOnly keeps of run r what the zero-buffering run needs to
// tell a send that waits forever for want of a receive from one that
// waits for want of buffering: each rank's messages never received. The
// exploration does not keep whole runs.
func unreceivedOnly(r *trace.Run) *trace.Run {
	lean := &trace.Run{Dir: r.Dir}
	for _, p := range r.Procs {
		lean.Procs = append(lean.Procs, &trace.Process{Rank: p.Rank, Unreceived: p.Unreceived})
	}
	return lean
}

// found reports whether a finding of one of the kinds was made in
// interleaving n (0: in any).
func (x *exploration) found(n int, kinds ...string) bool {
	for _, f := range x.findings.List {
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
	for _, f := range x.findings.List {
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

// why says what cut the verification short: an interrupt, or the time
// budget; "" if neither did.
func (x *exploration) why() string {
	if s := x.sig.why(); s != "" {
		return s
	}
	if !x.deadline.IsZero() && !time.Now().Before(x.deadline) {
		return fmt.Sprintf("stopped at the time budget (%s)", x.budget)
	}
	return ""
}

// once runs interleaving n with decisions ds forced and checks it. A run
// that an interrupt or the budget cuts short is checked for what it did
// (not for how it ended), and comes back Stopped.
func (x *exploration) once(n int, ds []explore.Decision, b *explore.Branch) (*explore.Interleaving, error) {
	if why := x.why(); why != "" && n > 1 {
		return &explore.Interleaving{N: n, Decisions: ds, Branch: b, Stopped: why}, nil
	}
	d := interleavingDir(x.dir, n)
	if err := os.MkdirAll(d, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create %s: %v", d, err)
	}
	if ds != nil {
		if err := explore.WriteDecisions(filepath.Join(d, "decisions"), ds); err != nil {
			return nil, fmt.Errorf("cannot write the decisions: %v", err)
		}
	}
	if b != nil {
		if err := writeExpect(filepath.Join(d, "expect"), b.Expect); err != nil {
			return nil, fmt.Errorf("cannot write to the run directory: %v", err)
		}
	}
	if n > 1 && x.hook != "" {
		if err := x.runHook(n, d); err != nil {
			return nil, err
		}
	}
	ctx := x.ctx
	if !x.deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, x.deadline)
		defer cancel()
	}
	x.sess.Opts.Env = []string{fmt.Sprintf("MPIVET_INTERLEAVING=%d", n)}
	if n > 1 && n != x.zero {
		// A replay repeats the first run up to its forced match and then
		// runs the same program on the same input: it gets a few times the
		// first run's time, not the whole limit. One whose forced match
		// cannot happen, while its ranks poll rather than block, would
		// otherwise spend the whole limit each time.
		saved := x.sess.Opts.Timeout
		if limit := replayFactor*x.firstWall + replaySlack; saved == 0 || limit < saved {
			x.sess.Opts.Timeout = limit
		}
		defer func() { x.sess.Opts.Timeout = saved }()
	}
	res, err := x.sess.Run(ctx, d)
	if err != nil {
		return nil, err
	}
	il := &explore.Interleaving{N: n, Decisions: ds, Branch: b, Run: res.Run, TimedOut: res.TimedOut}
	if res.Interrupted {
		il.Stopped = x.why()
		if il.Stopped == "" {
			il.Stopped = "interrupted"
		}
	}
	x.branches[n] = b
	if n > 1 {
		// Replays without findings lose their records once the search
		// below them is over (prune); these decisions replay them.
		if err := explore.WriteDecisions(filepath.Join(d, completeFile), explore.Complete(res.Run)); err != nil {
			return nil, fmt.Errorf("cannot write the decisions: %v", err)
		}
	}
	if msg := x.divergence(n, b, res.Run); msg != "" {
		il.Diverged = true
		if len(x.diverged) < 3 {
			x.diverged = append(x.diverged, msg)
		}
		return il, nil
	}
	// A forced match that cannot happen leaves its receive waiting: the
	// replay deadlocks, or times out, with a forced event unmatched. When
	// that receive is nonblocking, its match may have happened with the
	// call that completes it blocked (seed 003 Fig. 8): then a deadlock
	// that stays when the receive may match any source is the program's.
	in := &check.Input{Run: res.Run, NP: x.np, TimedOut: res.TimedOut, Stalled: res.Deadlocked, Interrupted: res.Interrupted,
		Timeout: x.sess.Opts.Timeout, Sym: x.sym, LauncherOutput: res.Output, LauncherExit: res.LauncherExit}
	u := check.NewUnit(in) // the checks below share its analyses
	if x.slack {
		il.Slack = zerobuf.ForExplorer(u, ds, x.sess.Opts.Buffering == "infinite")
	}
	if n == 1 {
		x.firstUnit = u // for the offline buffering check (simulate)
	}
	if ds != nil && (res.TimedOut || res.Deadlocked) {
		if unmatched, blocked := explore.Unmatched(res.Run); unmatched {
			forcedOnly := false
			if res.Deadlocked && !blocked {
				if forcedOnly, err = stall.ForcedOnly(u); err != nil {
					return nil, err
				}
			}
			if !res.Deadlocked || blocked || forcedOnly {
				il.Infeasible = true
				return il, nil
			}
		}
	}
	fs, err := u.Findings(all.Checks)
	if err != nil {
		return nil, err
	}
	fs = report.Merge(fs)
	// The wait-for graph of a deadlock goes in the interleaving's
	// directory, new finding or not; a graph that cannot be written only
	// leaves the report without its file.
	_ = report.NewDOT().Print(&report.Report{Findings: fs})
	var keep []check.Finding
	slack := x.slackNote(n)
	for _, f := range fs {
		if n == x.zero && (f.Kind != "unsafe-buffering" || unreceived.Explains(x.first, res.Run)) {
			continue
		}
		if slack != "" {
			f.Message += "\nfound when " + slack
		}
		il.Errors = il.Errors || f.Severity == check.Error
		keep = append(keep, f)
	}
	var needed []string // what the run's own matches needed buffered
	for i, f := range keep {
		if f.Kind == "unsafe-buffering" && n != x.zero && res.Deadlocked && x.slack {
			il.Unbuffered = zerobuf.BlockedSends(u) // explored past, buffered
		}
		if f.Kind == "deadlock" && slack == "" && n != x.zero {
			if needed == nil {
				needed = []string{}
				for _, b := range zerobuf.NeededSlack(u, ds, x.sess.Opts.Buffering == "infinite") {
					needed = append(needed, explore.SlackNote(b, x.where))
				}
			}
			if len(needed) > 0 {
				keep[i].Message += "\nfound when " + strings.Join(needed, "; and when ") + " (the MPI buffered it in this run)"
			}
		}
	}
	fresh := len(x.findings.Add(n, keep)) > 0
	if fresh && n > 1 {
		steps := x.steps(n)
		if n == x.zero {
			steps = []string{zeroSteps}
		}
		x.explored = append(x.explored, report.Interleaving{N: n, Dir: d, Steps: steps,
			Replay: fmt.Sprintf("mpivet replay %s --interleaving %d", x.dir, n)})
	}
	x.fresh[n] = fresh
	return il, nil
}

// The time limit of a replay: replayFactor times the first run's, plus
// replaySlack, unless --timeout is shorter.
const (
	replayFactor = 4
	replaySlack  = 30 * time.Second
)

// completeFile keeps, in the directory of a replay whose records were
// deleted, the decisions that replay it exactly (for mpivet replay).
const completeFile = "decisions.complete"

// prune deletes the records of replay n if it gave no new finding: an
// exploration of thousands of replays would otherwise keep gigabytes nobody
// reads. Its decisions (completeFile) stay, so mpivet replay still runs it.
// Called once the replays below n, which compare themselves with its
// records, are done.
func (x *exploration) prune(n int) {
	if n == 1 || x.keep || n == x.zero || x.fresh[n] {
		return
	}
	d := interleavingDir(x.dir, n)
	for _, pat := range []string{"p.*.log", "p.*.state", "p.*.err", "p.*.exit", "p.*.sync"} {
		old, _ := filepath.Glob(filepath.Join(d, pat))
		for _, f := range old {
			os.Remove(f)
		}
	}
}

// writeExpect writes the file layer.conf's expect= names for a replay
// (layer/src/divergence.c): the calls not compared, because whether and how
// often a program makes them depends on timing (completions and probes: a
// polling loop), then for each rank with forced events its log of the run
// replayed and where comparing stops.
func writeExpect(path string, es []explore.Expect) error {
	var b strings.Builder
	b.WriteString("skip")
	for i, c := range api.MPI.Calls {
		if c.Has("completion") || c.Has("probe") {
			fmt.Fprintf(&b, " %d", i)
		}
	}
	b.WriteString("\n")
	for _, e := range es {
		fmt.Fprintf(&b, "rank %d %s %d\n", e.Rank, e.Log, e.Limit)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// runHook runs --replay-hook before replay n, in mpivet's working
// directory, with the replay's number and directory in its environment.
func (x *exploration) runHook(n int, dir string) error {
	cmd := exec.Command("/bin/sh", "-c", x.hook)
	cmd.Env = append(os.Environ(), fmt.Sprintf("MPIVET_INTERLEAVING=%d", n), "MPIVET_RUN_DIR="+dir)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("--replay-hook %q failed before interleaving %d: %v", x.hook, n, err)
	}
	return nil
}

// divergence describes how replay n stopped following the run it comes
// from, or returns "" if it did not.
func (x *exploration) divergence(n int, b *explore.Branch, r *trace.Run) string {
	if b == nil || r == nil {
		return ""
	}
	for _, p := range r.Procs {
		d := p.Diverged
		if d == nil {
			continue
		}
		name := func(c *api.Call) string {
			if c == nil {
				return "an unknown call"
			}
			return c.Name
		}
		got := name(d.Got)
		if l := x.sym.Lookup(p.Maps, d.GotPC); l.File != "" || l.Function != "" {
			got += " at " + l.String()
		}
		want := name(d.Want)
		for _, e := range b.Expect {
			if e.Rank != p.Rank {
				continue
			}
			if parent, err := trace.ReadLog(e.Log); err == nil {
				if l := x.sym.Lookup(parent.Maps, d.WantPC); l.File != "" || l.Function != "" {
					want += " at " + l.String()
				}
			}
		}
		return fmt.Sprintf("interleaving %d, rank %d, at its call %d (of those compared): interleaving %d made %s, the replay %s",
			n, p.Rank, d.Index, b.From, want, got)
	}
	return ""
}

// steps describes how interleaving n differs from the first: the chain of
// forced matches that leads to it, oldest first.
func (x *exploration) steps(n int) []string {
	var out []string
	for b := x.branches[n]; b != nil; b = x.branches[b.From] {
		where := ""
		if l := x.sym.Lookup(b.Maps, b.PC); l.File != "" || l.Function != "" {
			where = " at " + l.String()
		}
		step := fmt.Sprintf("rank %d: wildcard event %d%s matched rank %s instead of rank %s",
			b.Rank, b.Event, where, rankName(b.Forced), rankName(b.Was))
		if b.Kind == trace.WildAny {
			name := "a Waitany-family call"
			if b.Call != "" {
				name = b.Call
			}
			step = fmt.Sprintf("rank %d: event %d, %s%s, returned request [%d] first instead of [%d]",
				b.Rank, b.Event, name, where, b.Forced.Source, b.Was.Source)
		}
		if note := explore.SlackNote(b, x.where); b.Kind == explore.BufferKind {
			step = fmt.Sprintf("interleaving %d again, past its deadlock for want of buffering: %s by mpivet", b.From, note)
		} else if note != "" {
			step += ", when " + note
		}
		out = append([]string{step}, out...)
	}
	return out
}

// slackNote says which sends mpivet buffered in interleaving n, and which
// match that made possible, oldest first ("" if none).
func (x *exploration) slackNote(n int) string {
	var notes []string
	for b := x.branches[n]; b != nil; b = x.branches[b.From] {
		if note := explore.SlackNote(b, x.where); note != "" {
			notes = append([]string{note}, notes...)
		}
	}
	return strings.Join(notes, "; and when ")
}

// where places a call site as file:line (or as the symbolizer can).
func (x *exploration) where(maps []trace.Mapping, pc uint64) string {
	l := x.sym.Lookup(maps, pc)
	if l.File != "" && l.Line > 0 {
		return fmt.Sprintf("%s:%d", l.File, l.Line)
	}
	return l.String()
}

func rankName(a explore.Alt) string {
	if a.World >= 0 {
		return strconv.Itoa(a.World)
	}
	return fmt.Sprintf("%d of its communicator", a.Source)
}

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

// clocksOff says why the ranks did not track causality, if they did not.
func clocksOff(r *trace.Run) string {
	for _, p := range r.Procs {
		if p.Clocks != nil && p.Clocks.Mode == 0 {
			if p.Clocks.Off == noClock {
				return fmt.Sprintf("rank %d received a message whose clock (a small message its sender posts just before it, "+
					"on a communicator of mpivet's) had not come 5 s later, and stopped tracking causality. Either the sender "+
					"sent it in a way mpivet does not see (a library calling PMPI_ functions directly, a process not started "+
					"under mpivet), or the sender's MPI held the clock back behind the message and the sender then stayed out "+
					"of MPI for over 5 s (computing, descheduled or stopped). The run itself was checked; the other matches "+
					"of its wildcard receives were not explored", p.Rank)
			}
			return p.Clocks.Off
		}
	}
	return ""
}

// noClock is why a rank's clock protocol stopped when a piggyback did not
// come (take_pb in layer/src/clocks/protocol.c).
const noClock = "a message came without its clock"

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
	var ds []explore.Decision
	if r, err := trace.ReadRun(src); err == nil && len(r.Procs) > 0 {
		ds = explore.Complete(r)
	} else if ds, err = explore.ReadDecisions(filepath.Join(src, completeFile)); err != nil {
		// (records of a replay without findings are deleted, its decisions kept)
		return exitFailure, fmt.Errorf("no interleaving %d in %s", n, dir)
	}
	if given, err := explore.ReadDecisions(filepath.Join(src, "decisions")); err == nil {
		ds = append(ds, explore.Buffers(given)...) // the sends mpivet buffered
	}
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
	nb := len(explore.Buffers(ds))
	slack := ""
	if nb > 0 {
		slack = fmt.Sprintf(", %d %s buffered by mpivet", nb, check.Plural(nb, "send", "sends"))
	}
	fmt.Fprintf(os.Stderr, "mpivet: replaying interleaving %d of %s (%d forced %s%s) in %s\n", n, dir, len(ds)-nb,
		check.Plural(len(ds)-nb, "match", "matches"), slack, out)
	return verify(ctx, f, append([]string{c.Program}, c.Args...), out, ds)
}

// slackNote says what the buffering-aware exploration did.
func slackNote(st explore.Stats) string {
	var s []string
	if st.Buffered > 0 {
		s = append(s, fmt.Sprintf("%d %s run with standard-mode sends buffered by mpivet",
			st.Buffered, check.Plural(st.Buffered, "interleaving was", "interleavings were")))
	}
	if st.RuledOut > 0 {
		s = append(s, fmt.Sprintf("%d potential %s the clocks offered cannot happen under any buffering (the send comes after the receive "+
			"through a receive, a synchronous send or a collective) and %s not run", st.RuledOut,
			check.Plural(st.RuledOut, "match", "matches"), check.Plural(st.RuledOut, "was", "were")))
	}
	return strings.Join(s, "; ")
}
