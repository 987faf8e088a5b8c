package driver

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"mpivet/check"
	"mpivet/checks/stall"
	"mpivet/checks/zerobuf"
	"mpivet/explore"
	"mpivet/filestate"
	"mpivet/launch"
	"mpivet/layer"
	"mpivet/report"
	"mpivet/rundir"
	"mpivet/symbolize"
	"mpivet/trace"
)

// Verify runs the program of o under verification: it runs it once,
// explores the other outcomes of its nondeterminism by replay, looks for
// deadlocks its MPI's buffering hides, checks every run, and returns the
// report. Cancelling ctx stops the ranks and returns the report of what
// was found so far, incomplete; its cause (context.WithCancelCause), if
// any, says why in the report. The error is for what kept mpivet from
// its job (no such program, not an MPI program, a launcher that fails).
func Verify(ctx context.Context, o Options) (*report.Report, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := o.checkInputs(); err != nil {
		return nil, err
	}
	_, exists := os.Stat(o.Dir)
	created := o.Dir == "" || exists != nil
	dir, err := newRunDir(o.Dir)
	if err != nil {
		return nil, err
	}
	lock, err := rundir.Acquire(dir) // for the whole run: two in one directory would mix their records
	if err != nil {
		return nil, err
	}
	defer lock.Release()
	if err := saveCommand(dir, o); err != nil {
		return nil, err
	}
	rep, err := verify(ctx, o, dir, nil)
	if err != nil && created {
		removeUnrun(dir)
	}
	return rep, err
}

// newRunDir makes the run directory of a verification ready: --dir's, or
// a new one (package rundir says which directories are refused).
func newRunDir(dir string) (string, error) {
	if dir != "" {
		return dir, rundir.Prepare(dir)
	}
	return rundir.New(time.Now().Format("20060102-150405"))
}

// exploration runs and checks the interleavings of one program.
type exploration struct {
	ctx        context.Context
	trimmed    func() // waits for the cache's trim (layer.TrimInBackground)
	o          Options
	deadline   time.Time      // of the time budget (zero: none)
	budget     time.Duration  // the time budget (0: none)
	budgetRule string         // how it was chosen, when not given (coverage.go)
	bound      *report.Bounds // what the exploration ran within (nil: none)
	siteCov    []report.Site
	fresh      map[int]bool // replays that gave a new finding (their records are kept)
	diverged   []string     // how the first diverged replays diverged
	sess       *launch.Session
	dir        string
	sym        *symbolize.Symbolizer
	findings   report.Findings // one per fingerprint, in the order found
	explored   []report.Interleaving
	branches   map[int]*explore.Branch
	notes      []string
	zero       int                   // the interleaving run with zero buffering (bufferingCheck), 0 if none
	first      *trace.Run            // of interleaving 1's records, only the messages never received (unreceivedOnly)
	firstUnit  *check.Unit           // interleaving 1's analyses, until simulate has used them
	firstWall  time.Duration         // how long the first run took
	trails     []report.Trail        // of the interleavings with new findings (IO.Trails)
	supp       []*report.Suppression // (an error they silence does not stop FirstError)
	slack      bool                  // buffering-aware exploration (--slack=minimal)
	start      time.Time             // when the verification began (the budget counts from it)

	files      *filestate.Store // where the ranks keep the state of files before they touch them (files.go); nil: --files=off
	changed    []string         // the files the last run alone created, changed or removed
	serial     []string         // the files the first run touched: replays run one at a time
	fileFailed []string         // files that could not be restored
	filesEnded bool
	// when the verification was interrupted (Unix ns; 0: not): the
	// analysis in progress then ends soon (bounded.go)
	interrupted atomic.Int64
	cut         string // the first run whose records reached --max-records, or whose analysis stopped at its time limit, and what that left unchecked
}

// verify runs the program with its records in dir, explores its
// interleavings unless told not to (a replay passes the decisions of the
// one interleaving to run), checks each and returns the report. Out of
// budget or cancelled, it stops the ranks and reports what it found so
// far, as incomplete.
func verify(ctx context.Context, o Options, dir string, replay []explore.Decision) (*report.Report, error) {
	x, err := newExploration(ctx, o, dir)
	if err != nil && ctx.Err() != nil { // the layer's build stopped by an interrupt
		return stoppedBuilding(ctx, o, dir), nil
	}
	if err != nil {
		return nil, err
	}
	defer x.trimmed()
	if ctx.Err() != nil { // interrupted while the layer was built: nothing ran
		return x.notStarted(), nil
	}
	start := x.start
	defer context.AfterFunc(ctx, func() { x.interrupted.Store(time.Now().UnixNano()) })()
	x.slack = o.Slack != "off"
	x.startFiles()
	defer x.endFiles() // (report ends them first; this is for the ways out on errors)
	ds := replay
	if replay == nil {
		ds, _ = explore.ParseSends(o.BufferSends) // nil without; Validate checked it
	}
	first, err := x.once(1, ds, nil)
	if err != nil {
		return nil, err
	}
	if rep, err := x.neverStarted(first); rep != nil || err != nil {
		return rep, err
	}
	if x.firstWall = time.Since(start); replay == nil {
		x.setBudget(start)
	}
	if first.Run == nil { // its analysis stopped at the time limit (analysisStopped): x.cut says so; nothing to explore from
		rep := x.report(explore.Stats{Interleavings: 1}, x.withCut(first.Stopped), "not checked")
		rep.Seconds = time.Since(start).Seconds()
		return rep, nil
	}
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
	// (a run the MPI library's crash ended has no whole records to
	// replay without buffering either)
	firstEnded := !x.found(1, "timeout", "program-failure", "mpi-library-crash", "rank-killed")
	x.first = unreceivedOnly(first.Run)
	var sim *zerobuf.Result
	if replay == nil && o.BufferingCheck == "auto" && firstEnded && stopped == "" {
		if sim, err = x.simulate(); err != nil {
			return nil, err
		}
	}
	x.firstUnit = nil // the exploration keeps no whole run
	stats := explore.Stats{Interleavings: 1, Complete: true}
	if stopped == "" {
		stats, stopped = x.exploreFrom(first, replay != nil, off)
	}
	// The zero-buffering run, unless a deadlock is known already, or the
	// first run did not end by itself (a second would not either).
	buffering := "not checked"
	if replay == nil && stopped == "" && o.BufferingCheck != "off" && o.Buffering != "zero" && !(o.FirstError && x.errors()) &&
		!x.found(0, "deadlock", "unsafe-buffering") && firstEnded {
		// Not the user's run either (nor is it one when no replay ran,
		// the clocks being off): its output goes to its records only.
		x.sess.Opts.Stdout, x.sess.Opts.Stderr = io.Discard, io.Discard
		if buffering, stopped, err = x.checkBuffering(sim, again, off == "", stats.Interleavings+1); err != nil {
			return nil, err
		}
	}
	rep := x.report(stats, x.withCut(stopped), buffering)
	rep.Seconds = time.Since(start).Seconds()
	return rep, nil
}

// exploreFrom explores the interleavings other than the first run's,
// unless the run is a replay, the clocks were off (off says why), the
// mode is deterministic or a rank was killed; what it covered and why it
// stopped, if it did.
func (x *exploration) exploreFrom(first *explore.Interleaving, replay bool, off string) (explore.Stats, string) {
	stats, stopped := explore.Stats{Interleavings: 1, Complete: true}, ""
	switch {
	case x.o.Deterministic:
		x.notes = append(x.notes, determinismNote(first.Run, x.o.Seed))
		// (its clocks are off) what the layer found besides: processes
		// mpivet did not launch and does not check (layer/src/clocks/ck_joined)
		if more, ok := strings.CutPrefix(off, clocksOffAnd); ok {
			x.notes = append(x.notes, more)
		}
	case off != "":
		x.notes = append(x.notes, "only the interleaving that happened was checked: "+off+pythonHint(x.sess, off))
	case x.found(1, "rank-killed"):
		// a rank killed from outside (the OOM killer): the first run did
		// not go to its end, and its replays would meet the same end;
		// killedCut says so
	case !replay && !first.Infeasible:
		stats = x.explore(first)
		stopped = stats.Stopped
		if stopped == "" && stats.Diverged > 0 {
			stopped = fmt.Sprintf("%d %s diverged (see the note)", stats.Diverged, check.Plural(stats.Diverged, "replay", "replays"))
		}
	}
	return stats, stopped
}

// newExploration prepares the launches of a verification (its first run
// and replays) and the state its exploration keeps; the budget counts
// from now.
func newExploration(ctx context.Context, o Options, dir string) (*exploration, error) {
	notify := o.Notify
	if notify == nil {
		notify = func(string) {}
	}
	supp, err := loadSuppressions(o.Suppressions)
	if err != nil {
		return nil, err
	}
	logMax, _ := ParseSize(o.MaxRecords) // Validate checked it
	sess, err := launch.Prepare(launch.Options{Context: ctx, NP: o.NP, Program: o.Program, Args: o.Args, Launcher: o.Launcher, Timeout: o.Timeout, MPI: o.MPI, LogMax: logMax,
		Stalled: stall.CannotResume, Notify: notify, Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr})
	if err != nil {
		return nil, err
	}
	// The cache's trim, at most daily, in the background of the runs: at
	// most a second more at the end, then stopped (it resumes next time).
	trimmed := layer.TrimInBackground(ctx, time.Second, notify)
	x := &exploration{ctx: ctx, o: o, sess: sess, dir: dir, sym: symbolize.New(), start: time.Now(),
		branches: map[int]*explore.Branch{}, fresh: map[int]bool{}, supp: supp, trimmed: trimmed}
	x.givenBudget(x.start)
	return x, nil
}

// notStarted is the report of a verification interrupted before the
// program started: incomplete, no interleaving run.
func (x *exploration) notStarted() *report.Report {
	rep := x.report(explore.Stats{}, x.why()+" before the program started: no interleaving was run", "not checked")
	rep.Seconds = time.Since(x.start).Seconds()
	return rep
}

// stoppedBuilding is the report of a verification interrupted while the
// layer was built: incomplete, nothing run.
func stoppedBuilding(ctx context.Context, o Options, dir string) *report.Report {
	rep := report.New(nil, interruption(ctx)+" while mpivet's layer was built, before the program started: no interleaving was run")
	rep.Buffering = "not checked"
	rep.Program, rep.Args, rep.Ranks, rep.RunDir = o.Program, o.Args, o.NP, dir
	return rep
}

// neverStarted says what became of a first run in which no rank started:
// interrupted before, the report that says so; stopped at its time limit,
// the launcher's failure (exit status 2), not a timeout of the program.
func (x *exploration) neverStarted(first *explore.Interleaving) (*report.Report, error) {
	if first.Run == nil || len(first.Run.Procs) > 0 {
		return nil, nil
	}
	if x.ctx.Err() != nil {
		return x.notStarted(), nil
	}
	if first.TimedOut {
		out, _ := os.ReadFile(filepath.Join(x.dir, "output.txt"))
		return nil, fmt.Errorf("the launcher (%s) started none of the %d ranks within the time limit (--timeout %s)%s",
			strings.Join(x.sess.Launcher(), " "), x.o.NP, x.o.Timeout, lastLines(string(out), 20))
	}
	return nil, nil
}

// lastLines are the last n lines of s, after a colon, or "" if s is empty.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	if s = strings.Join(lines, "\n"); strings.TrimSpace(s) == "" {
		return ""
	}
	return ", its output:\n" + s
}

// withCut is why the verification is incomplete: what stopped it, or else
// a run whose records or analysis were cut short (a note if both).
func (x *exploration) withCut(stopped string) string {
	switch {
	case x.cut == "":
	case stopped == "":
		return x.cut
	default:
		x.notes = append(x.notes, x.cut)
	}
	return stopped
}

// report is the report of the verification: its findings (those the
// suppressions match marked so), what it covered, its trails.
func (x *exploration) report(stats explore.Stats, stopped, buffering string) *report.Report {
	x.endFiles() // the files as the first run left them, and the notes that say so
	rep := report.New(x.findings.List, stopped)
	rep.Interleavings = stats.Interleavings
	rep.Coverage = report.Coverage{Done: stats.Interleavings, Queued: stats.Queued, Infeasible: stats.Infeasible,
		Diverged: stats.Diverged, TimedOut: stats.TimedOut, Events: stats.Events, Explored: stats.Explored, Pruned: stats.Pruned,
		Equivalent: stats.Equivalent, NotReplayable: stats.NotReplayable, Library: stats.Library, Sites: x.siteCov}
	rep.Bounds = x.bound
	rep.Trails = x.trails
	if x.supp != nil {
		rep.Suppress(x.supp)
	}
	rep.Explored = x.explored
	rep.Buffering = buffering
	rep.Notes = x.notes
	rep.Program, rep.Args, rep.Ranks = x.sess.Program, x.o.Args, x.o.NP
	rep.MPI, rep.RunDir = x.sess.MPI.Version, x.dir
	return rep
}

// explore replays the other outcomes of the first run's nondeterminism,
// and notes the replays that diverged or could not happen.
func (x *exploration) explore(first *explore.Interleaving) explore.Stats {
	// Replays are not the user's run: their output goes to the records only.
	x.sess.Opts.Stdout, x.sess.Opts.Stderr = io.Discard, io.Discard
	var show func(explore.Progress)
	if x.o.Progress != nil {
		show = x.o.Progress.Show
	}
	most := x.o.MaxInterleavings
	if x.o.Exhaustive {
		most = 0
	}
	x.bound = x.bounds(most)
	stats := explore.Explore(first, x.once, explore.Options{MaxInterleavings: most,
		MixingBound: x.o.MixingBound, OrderBound: x.o.OrderBound, FirstError: x.o.FirstError, Progress: show, Done: x.prune,
		Parallel: x.parallel(), ReduceOrders: x.o.CompletionOrders != "all", Budget: x.left(), BudgetName: x.budgetName(),
		Library: libraryRule(x.o.Explore, x.sess.Program, workingDir())})
	x.siteCov = x.sites(stats.Sites)
	if x.o.Progress != nil {
		x.o.Progress.Done()
	}
	// The replays the search was below when it stopped (a limit, an
	// interrupt) were never told done: their records go too, unless they
	// gave a new finding, so the records on disk do not grow with the
	// interleavings explored.
	for n := 2; n <= stats.Interleavings; n++ {
		x.prune(n)
	}
	if stats.Diverged > 0 {
		x.notes = append(x.notes, fmt.Sprintf("%d %s diverged: the program made other MPI calls than in the run replayed, before the forced match, "+
			"%s, so %s not checked. "+
			"Make replays repeat the first run: --replay-hook 'CMD' runs CMD before each replay (e.g. to remove an output directory; "+
			"MPIVET_INTERLEAVING and MPIVET_RUN_DIR are set), and ranks see MPIVET_INTERLEAVING too. First: %s",
			stats.Diverged, check.Plural(stats.Diverged, "replay", "replays"), x.divergedHint(), check.Plural(stats.Diverged, "it was", "they were"),
			strings.Join(x.diverged, "; ")))
	}
	if stats.NotReplayable > 0 {
		x.notes = append(x.notes, notReplayableNote(stats.NotReplayable))
	}
	if n := libraryNote(stats); n != "" {
		x.notes = append(x.notes, n)
	}
	if stats.RuledOut > 0 || stats.Buffered > 0 {
		x.notes = append(x.notes, slackNote(stats))
	}
	if stats.Repeated > 0 {
		// never planned (explore/repeat.go): a bug of mpivet's search
		x.notes = append(x.notes, fmt.Sprintf("%d %s forced the same matches as an earlier one: mpivet's search should never do that (please report it); the findings are not affected",
			stats.Repeated, check.Plural(stats.Repeated, "replay", "replays")))
	}
	if stats.Infeasible > 0 {
		x.notes = append(x.notes, fmt.Sprintf("%d forced %s could not happen (%s)", stats.Infeasible,
			check.Plural(stats.Infeasible, "match", "matches"), "a source the clocks could not rule out never sent a matching message; not an error"))
	}
	return stats
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

// why says what cut the verification short: the context's cause (an
// interrupt), or the time budget; "" if neither did.
func (x *exploration) why() string {
	if x.ctx.Err() != nil {
		return interruption(x.ctx)
	}
	if !x.deadline.IsZero() && !time.Now().Before(x.deadline) {
		return fmt.Sprintf("stopped at the time budget (%s)", x.budgetName())
	}
	return ""
}

// interruption says what ended ctx (done): its cause, or "interrupted".
func interruption(ctx context.Context) string {
	if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() {
		return cause.Error()
	}
	return "interrupted"
}

// notReplayableNote explains the alternatives left out because replays
// kept diverging at one place (explore/timing.go).
func notReplayableNote(n int) string {
	return fmt.Sprintf("%d %s not replayed: replays kept diverging before their forced match at the same rank of the run they replay "+
		"(three in a row, none between them repeating that rank past the place), so the program's MPI calls depend on timing there "+
		"(a poll such as MPI_Iprobe or MPI_Test that takes another path when the message is not there yet, or a time-limited loop), "+
		"and every replay that must repeat it would diverge too; the alternatives that need less of that rank were replayed. "+
		"The incomplete verdict names the place",
		n, check.Plural(n, "alternative was", "alternatives were"))
}
