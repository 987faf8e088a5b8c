// Command mpivet runs an MPI program under verification and reports what can
// go wrong in it.
//
//	mpivet run -n 4 ./app arg1 arg2
//	mpivet run -n 4 --json report.json ./app
//	mpivet checks            # list the checks
//	mpivet explain KIND      # what a finding kind means
//
// Exit status: 0 no error found, 1 errors found, 2 mpivet could not do its
// job, 3 no error found but the verification stopped early (interrupted,
// --budget, --max-interleavings), 130 quit at once on a second interrupt.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"mpivet/check"
	"mpivet/checks/all"
	"mpivet/checks/stall"
	"mpivet/checks/zerobuf"
	"mpivet/explore"
	"mpivet/launch"
	"mpivet/report"
	"mpivet/symbolize"
)

// Exit statuses.
const (
	exitOK       = 0
	exitFindings = 1
	exitFailure  = 2
)

func main() {
	code := exitOK
	root := &cobra.Command{
		Use:           "mpivet",
		Short:         "dynamic verifier for MPI programs",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(runCmd(&code), replayCmd(&code), checksCmd(), explainCmd(), dumpCmd())
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "mpivet:", err)
		os.Exit(exitFailure)
	}
	os.Exit(code)
}

type runFlags struct {
	np       int
	json     string
	launcher string
	timeout  time.Duration
	dir      string
	noColor  bool
	buffer   string
	buffers  string
	bufCheck string

	clocks           string
	maxInterleavings int
	budget           time.Duration
	mixing           int
	orders           int
	firstError       bool
	keepRecords      bool
	replayHook       string
	gdb              int // replay: the rank to start under a debugger (-1: none)
	slack            string
	bufferSends      string
}

func runCmd(code *int) *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [flags] PROGRAM [ARGS...]",
		Short: "run an MPI program under mpivet and report what goes wrong",
		Long: `Run an MPI program (C, C++ or Fortran, linked against a shared Open MPI or
MPICH) with its own launcher, record every rank's MPI calls, and report the
errors found: program failures, timeouts with what each rank was doing,
resource leaks and request life-cycle errors.

The records of the run stay in the run directory (--dir). For a run across
several hosts, that directory must be on a file system all hosts share.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := run(cmd.Context(), f, args)
			*code = c
			return err
		},
	}
	cmd.Flags().SetInterspersed(false) // flags after PROGRAM belong to it
	fl := cmd.Flags()
	fl.IntVarP(&f.np, "np", "n", 0, "number of ranks (required)")
	fl.StringVar(&f.json, "json", "", "also write the report as JSON to `FILE`")
	fl.StringVar(&f.launcher, "launcher", "", "launch with this `command` instead of the MPI's own (e.g. \"srun --mpi=pmix\"); mpivet appends -n N")
	fl.DurationVar(&f.timeout, "timeout", 5*time.Minute, "stop the run after this long and report what every rank was doing (0: no limit)")
	fl.StringVar(&f.dir, "dir", "", "directory for the run's records (default: a new one under ./.mpivet)")
	fl.BoolVar(&f.noColor, "no-color", false, "no colours in the terminal report")
	fl.StringVar(&f.buffer, "buffering", "mpi", "`mpi`: standard-mode sends are buffered as the MPI does; zero: they become synchronous, so programs that rely on buffering deadlock (reported as unsafe-buffering); infinite: mpivet buffers every one, whatever its size, so they complete at once")
	fl.StringVar(&f.bufCheck, "buffering-check", "auto", "find deadlocks the MPI's buffering hides (unsafe-buffering): `auto` replays the first interleaving's matches offline with standard-mode sends synchronous and runs the program again that way (as --buffering=zero) only to confirm a suspected deadlock; run: always run it again; off (or false): do not look")
	fl.Lookup("buffering-check").NoOptDefVal = "auto"
	fl.StringVar(&f.buffers, "buffers", "on", "`on`: report accesses to the buffers of pending nonblocking operations (buffer-reuse), at a bounded cost; precise: single-step every access to their pages, whatever it costs; off: do not check them")
	fl.StringVar(&f.slack, "slack", "minimal", "`minimal`: also explore the matches that need standard-mode sends buffered, each replayed with the fewest sends buffered by mpivet (seed 001); off: replay the matches the clocks find, as the MPI buffers")
	fl.StringVar(&f.bufferSends, "buffer-sends", "", "buffer these standard-mode sends in every run, as an MPI with the space would: `RANK:N,...`, the rank's N-th MPI_Send or MPI_Isend from 0")
	fl.StringVar(&f.clocks, "clocks", "lamport", "`lamport`: find the other matches of wildcard receives and probes with lazy Lamport clocks and replay them; vector: with vector clocks (exact, piggybacks grow with the ranks); off: check only the run that happens")
	fl.IntVar(&f.maxInterleavings, "max-interleavings", 1000, "stop exploring after this many interleavings (0: no limit)")
	fl.DurationVar(&f.budget, "budget", 0, "stop the whole verification after this long, the run in progress included, and report what was found (0: no limit)")
	fl.IntVar(&f.mixing, "mixing-bound", -1, "bounded mixing: below a forced match, explore at most `K` further levels of alternatives (-1: all; 0: one deviation per replay, linear in the wildcard events)")
	fl.IntVar(&f.orders, "order-bound", 0, "Waitany, Testany, Waitsome and Testsome: explore at most `K`+1 nested changes of the request they return (0: each other outcome of each call once, about n²/2 replays for a loop over n requests; -1: every completion order, n!)")
	fl.BoolVar(&f.firstError, "first-error", false, "stop exploring at the first interleaving with errors")
	fl.StringVar(&f.replayHook, "replay-hook", "", "run this shell `command` before each replay (with MPIVET_INTERLEAVING and MPIVET_RUN_DIR set), e.g. to remove what the previous run left, so that replays repeat the first run")
	fl.BoolVar(&f.keepRecords, "keep-records", false, "keep the records of every replayed interleaving (by default those of replays without a new finding are deleted once checked; their decisions are kept, so mpivet replay still runs them)")
	f.gdb = -1
	cmd.MarkFlagRequired("np")
	return cmd
}

func newRunDir(dir string) (string, error) {
	if dir != "" {
		return dir, os.MkdirAll(dir, 0o755)
	}
	stamp := time.Now().Format("20060102-150405")
	for _, base := range []string{".mpivet", filepath.Join(os.TempDir(), "mpivet")} {
		if err := os.MkdirAll(base, 0o755); err != nil {
			continue
		}
		if d, err := os.MkdirTemp(base, "run-"+stamp+"-"); err == nil {
			return d, nil
		}
	}
	return "", errors.New("cannot create a run directory (use --dir)")
}

func run(ctx context.Context, f runFlags, args []string) (int, error) {
	if f.np < 1 {
		return exitFailure, fmt.Errorf("-n %d: the number of ranks must be at least 1", f.np)
	}
	if f.buffers != "on" && f.buffers != "off" && f.buffers != "precise" {
		return exitFailure, fmt.Errorf("--buffers=%s: must be on, precise or off", f.buffers)
	}
	switch f.bufCheck {
	case "auto", "true":
		f.bufCheck = "auto"
	case "off", "false":
		f.bufCheck = "off"
	case "run":
	default:
		return exitFailure, fmt.Errorf("--buffering-check=%s: must be auto, run or off", f.bufCheck)
	}
	switch f.clocks {
	case "lamport", "vector", "off":
	default:
		return exitFailure, fmt.Errorf("--clocks=%s: must be lamport, vector or off", f.clocks)
	}
	if f.slack != "minimal" && f.slack != "off" {
		return exitFailure, fmt.Errorf("--slack=%s: must be minimal or off", f.slack)
	}
	if _, err := explore.ParseSends(f.bufferSends); err != nil {
		return exitFailure, fmt.Errorf("--buffer-sends: %v", err)
	}
	dir, err := newRunDir(f.dir)
	if err != nil {
		return exitFailure, err
	}
	if err := saveCommand(dir, f, args); err != nil {
		return exitFailure, err
	}
	return verify(ctx, f, args, dir, nil)
}

// verify runs the program, explores its interleavings unless told not to
// (replay passes the decisions of the one interleaving to run), checks each
// and prints the report. Interrupted (SIGINT, SIGTERM) or out of budget, it
// stops the ranks and reports what it found so far, as incomplete.
func verify(ctx context.Context, f runFlags, args []string, dir string, replay []explore.Decision) (int, error) {
	opts := launch.Options{NP: f.np, Program: args[0], Args: args[1:], Launcher: f.launcher, Timeout: f.timeout, Buffering: f.buffer,
		Buffers: f.buffers, Clocks: f.clocks, GDB: f.gdb, GDBRank: f.gdb >= 0,
		Stalled: stall.CannotResume,
		Notify:  func(msg string) { fmt.Fprintln(os.Stderr, "mpivet:", msg) },
	}
	// Input redirected to mpivet goes to the program, as with mpirun; a
	// terminal is not handed over, so a run never waits on the keyboard.
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		opts.Stdin = os.Stdin
	}
	sess, err := launch.Prepare(opts)
	if err != nil {
		return exitFailure, err
	}
	sig := catchInterrupts(ctx)
	defer sig.stop()
	start := time.Now()
	x := &exploration{ctx: sig.ctx, sig: sig, sess: sess, dir: dir, np: f.np, timeout: f.timeout, sym: symbolize.New(),
		branches: map[int]*explore.Branch{}, keep: f.keepRecords, budget: f.budget,
		hook: f.replayHook, fresh: map[int]bool{}}
	if f.budget > 0 {
		x.deadline = start.Add(f.budget)
	}
	x.slack = f.slack != "off"
	ds := replay
	if replay == nil {
		ds, _ = explore.ParseSends(f.bufferSends) // nil without
	}
	first, err := x.once(1, ds, nil)
	if err != nil {
		return exitFailure, err
	}
	x.firstWall = time.Since(start)
	stats := explore.Stats{Interleavings: 1, Complete: true}
	stopped := first.Stopped
	if n := watchNote(first.Run); n != "" {
		x.notes = append(x.notes, n)
	}
	// What the zero-buffering run needs of the first run, taken now: the
	// exploration lets go of the records of every run it has planned.
	off := clocksOff(first.Run)
	var again []explore.Decision
	if off == "" {
		again = explore.Complete(first.Run)
	}
	firstEnded := !x.found(1, "timeout", "program-failure")
	x.first = unreceivedOnly(first.Run)
	var sim *zerobuf.Result
	if f.bufCheck == "auto" && firstEnded && stopped == "" {
		if sim, err = x.simulate(); err != nil {
			return exitFailure, err
		}
	}
	x.firstUnit = nil // the exploration keeps no whole run
	switch {
	case stopped != "":
	case off != "":
		x.notes = append(x.notes, "only the interleaving that happened was checked: "+off)
	case replay == nil && !first.Infeasible:
		// Replays are not the user's run: their output goes to the records only.
		sess.Opts.Stdout, sess.Opts.Stderr = io.Discard, io.Discard
		progress := newProgress(os.Stderr)
		stats = explore.Explore(first, x.once, explore.Options{MaxInterleavings: f.maxInterleavings,
			MixingBound: f.mixing, OrderBound: f.orders, FirstError: f.firstError, Progress: progress.show, Done: x.prune})
		first = nil
		progress.done()
		stopped = stats.Stopped
		if stopped == "" && stats.Diverged > 0 {
			stopped = fmt.Sprintf("%d %s diverged (see the note)", stats.Diverged, check.Plural(stats.Diverged, "replay", "replays"))
		}
		if stats.Diverged > 0 {
			x.notes = append(x.notes, fmt.Sprintf("%d %s diverged: the program made other MPI calls than in the run replayed, before the forced match, "+
				"for reasons outside MPI (files an earlier run left, clocks, process ids, random seeds), so %s not checked. "+
				"Make replays repeat the first run: --replay-hook 'CMD' runs CMD before each replay (e.g. to remove an output directory; "+
				"MPIVET_INTERLEAVING and MPIVET_RUN_DIR are set), and ranks see MPIVET_INTERLEAVING too. First: %s",
				stats.Diverged, check.Plural(stats.Diverged, "replay", "replays"), check.Plural(stats.Diverged, "it was", "they were"),
				strings.Join(x.diverged, "; ")))
		}
		if stats.RuledOut > 0 || stats.Buffered > 0 {
			x.notes = append(x.notes, slackNote(stats))
		}
		if stats.Infeasible > 0 {
			x.notes = append(x.notes, fmt.Sprintf("%d forced %s could not happen (%s)", stats.Infeasible,
				check.Plural(stats.Infeasible, "match", "matches"), "a source the clocks could not rule out never sent a matching message; not an error"))
		}
	}
	// The zero-buffering run, unless a deadlock is known already, or the
	// first run did not end by itself (a second would not either).
	buffering := "not checked"
	if replay == nil && stopped == "" && f.bufCheck != "off" && f.buffer != "zero" && !(f.firstError && x.errors()) &&
		!x.found(0, "deadlock", "unsafe-buffering") && firstEnded {
		var err error
		if buffering, stopped, err = x.checkBuffering(sim, again, off == "", stats.Interleavings+1); err != nil {
			return exitFailure, err
		}
	}
	rep := report.New(x.findings.List, stopped)
	rep.Interleavings = stats.Interleavings
	rep.Coverage = report.Coverage{Done: stats.Interleavings, Queued: stats.Queued, Infeasible: stats.Infeasible,
		Diverged: stats.Diverged, TimedOut: stats.TimedOut}
	rep.Explored = x.explored
	rep.Buffering = buffering
	rep.Notes = x.notes
	rep.Program, rep.Args, rep.Ranks = sess.Program, args[1:], f.np
	rep.MPI, rep.RunDir, rep.Seconds = sess.MPI.Version, dir, time.Since(start).Seconds()
	color := !f.noColor && os.Getenv("NO_COLOR") == "" && term.IsTerminal(int(os.Stdout.Fd()))
	sig.holdIfQuitting()
	_ = report.NewText(os.Stdout, color).Print(rep) // a closed terminal does not change the verdict
	if f.json != "" {
		if err := report.WriteJSON(f.json, rep); err != nil {
			return exitFailure, fmt.Errorf("cannot write the JSON report: %v", err)
		}
	}
	return rep.ExitCode(), nil
}

func checksCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "checks",
		Short: "list the checks mpivet runs and the kinds of finding each reports",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, args []string) {
			listChecks(os.Stdout, all.Checks)
		},
	}
}

// listChecks prints one line per check, and the kinds it reports (what
// mpivet explain takes) when they are not just its name.
func listChecks(w io.Writer, checks []*check.Check) {
	for _, c := range checks {
		fmt.Fprintf(w, "%-20s %s\n", c.Name, title(c.Doc))
		if ks := c.AllKinds(); len(ks) > 1 || ks[0] != c.Name {
			fmt.Fprintf(w, "%-20s kinds: %s\n", "", strings.Join(ks, ", "))
		}
	}
}

func title(doc string) string { return strings.SplitN(doc, "\n", 2)[0] }

func explainCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "explain KIND",
		Short: "explain a kind of finding (see: mpivet checks)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return explain(os.Stdout, all.Checks, args[0])
		},
	}
}

// explain prints what a kind of finding means, from every check that
// reports it; a check's name stands for the kind named after it.
func explain(w io.Writer, checks []*check.Check, kind string) error {
	ex := check.Explain(checks, kind)
	if len(ex) == 0 {
		for _, c := range checks {
			if c.Name == kind { // a check whose kinds are not named after it
				fmt.Fprintf(w, "%s (check): %s\n", c.Name, c.Doc)
				return nil
			}
		}
		var kinds []string
		seen := map[string]bool{}
		for _, c := range checks {
			for _, k := range c.AllKinds() {
				if !seen[k] {
					seen[k] = true
					kinds = append(kinds, k)
				}
			}
		}
		return fmt.Errorf("no kind of finding %q; the kinds are: %s", kind, strings.Join(kinds, ", "))
	}
	for i, e := range ex {
		if i > 0 {
			fmt.Fprintln(w)
		}
		from := ""
		if e.Check.Name != kind || len(ex) > 1 {
			from = " (check " + e.Check.Name + ")"
		}
		fmt.Fprintf(w, "%s%s: %s\n", kind, from, e.Text)
	}
	return nil
}
