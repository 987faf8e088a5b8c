package driver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"mpivet/api"
	"mpivet/check"
	"mpivet/checks/all"
	"mpivet/checks/stall"
	"mpivet/checks/unreceived"
	"mpivet/checks/zerobuf"
	"mpivet/explore"
	"mpivet/launch"
	"mpivet/report"
	"mpivet/rundir"
	"mpivet/spacetime"
	"mpivet/trace"
)

// The files of an interleaving's directory that the driver writes.
const (
	decisionsFile = "decisions"          // the matches a replay forces (RunFiles.Decisions)
	expectFile    = "expect"             // what a replay repeats of its parent run (RunFiles.Expect)
	completeFile  = "decisions.complete" // the decisions that replay a pruned replay exactly (for mpivet replay)
	bufferingFile = "buffering"          // "zero": the interleaving ran with zero buffering (mpivet replay runs it so again)
)

// The time limit of a replay: replayFactor times the first run's, plus
// replaySlack, unless --timeout is shorter.
const (
	replayFactor = 4
	replaySlack  = 30 * time.Second
)

// interleavingDir is where interleaving n keeps its records: the first in the
// run directory itself, replays below it.
func interleavingDir(dir string, n int) string {
	if n == 1 {
		return dir
	}
	return filepath.Join(dir, "interleaving-"+strconv.Itoa(n))
}

// once runs interleaving n with decisions ds forced and checks it. A run
// that an interrupt or the budget cuts short is checked for what it did
// (not for how it ended), and comes back Stopped.
func (x *exploration) once(n int, ds []explore.Decision, b *explore.Branch) (*explore.Interleaving, error) {
	if why := x.why(); why != "" && n > 1 {
		return &explore.Interleaving{N: n, Decisions: ds, Branch: b, Stopped: why}, nil
	}
	d := interleavingDir(x.dir, n)
	res, timeout, err := x.launch(x.ctx, n, d, ds, b)
	if err != nil {
		return nil, err
	}
	return x.finish(n, d, ds, b, res, timeout)
}

// finish checks interleaving n, run in its directory d with decisions ds
// forced: the second half of once, which a replay run ahead of its turn
// (parallel.go) does on its own once numbered.
func (x *exploration) finish(n int, d string, ds []explore.Decision, b *explore.Branch, res *launch.Result, timeout time.Duration) (il *explore.Interleaving, err error) {
	defer func() { writeTiming(n, res, time.Now(), x.start) }()
	if n == 1 && x.o.Status != nil {
		x.o.Status(NativeStatus(res))
	}
	if res.Run == nil {
		return x.analyse(n, d, ds, b, res, timeout)
	}
	// The analysis is bounded as the run is (bounded.go): stopped, a
	// reader of the records ends it where it is.
	res.Run.StopWhen(x.stopAnalysis(res, timeout))
	defer res.Run.StopWhen(nil)
	defer func() {
		if errors.Is(err, trace.ErrStopped) {
			il, err = x.analysisStopped(n, ds, b, res), nil
		}
	}()
	defer trace.Recover(&err)
	return x.analyse(n, d, ds, b, res, timeout)
}

// analyse checks interleaving n: finish's work, which the bound on the
// analysis may stop.
func (x *exploration) analyse(n int, d string, ds []explore.Decision, b *explore.Branch, res *launch.Result, timeout time.Duration) (*explore.Interleaving, error) {
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
	if msg, at := x.divergence(n, b, res.Run); msg != "" {
		il.Diverged, il.DivergedAt = true, at
		if len(x.diverged) < 3 {
			x.diverged = append(x.diverged, msg+x.divergedFiles())
		}
		return il, nil
	}
	// A rank whose records reached --max-records went on unrecorded: what
	// it recorded is checked, how the run ended is not (as after an
	// interrupt), and the verdict is incomplete.
	cut := truncated(res.Run, n, x.o.MaxRecords, res.Interrupted)
	if cut != "" && x.cut == "" {
		x.cut = cut
	}
	in := &check.Input{Run: res.Run, NP: x.o.NP, TimedOut: res.TimedOut, Stalled: res.Deadlocked, Interrupted: res.Interrupted || cut != "",
		Timeout: timeout, Sym: x.sym, LauncherOutput: res.Output, LauncherExit: res.LauncherExit, Ended: res.Failed, OOMKills: res.OOMKills}
	u := check.NewUnit(in) // the checks below share its analyses
	if x.slack {
		il.Slack = zerobuf.ForExplorer(u, ds, x.o.Buffering == "infinite")
	}
	if n == 1 {
		x.firstUnit = u // for the offline buffering check (simulate)
	}
	if ds != nil && (res.TimedOut || res.Deadlocked) {
		infeasible, err := infeasible(u, res)
		if err != nil {
			return nil, err
		}
		if infeasible {
			il.Infeasible = true
			return il, nil
		}
	}
	if err := x.check(n, d, u, res, il); err != nil {
		return nil, err
	}
	return il, nil
}

// infeasible says whether a replay's forced match could not happen. One
// that cannot leaves its receive waiting: the replay deadlocks, or times
// out, with a forced event unmatched. When that receive is nonblocking,
// its match may have happened with the call that completes it blocked
// (seed 003 Fig. 8): then a deadlock that stays when the receive may match
// any source is the program's.
func infeasible(u *check.Unit, res *launch.Result) (bool, error) {
	unmatched, blocked := explore.Unmatched(res.Run)
	if !unmatched {
		return false, nil
	}
	forcedOnly := false
	if res.Deadlocked && !blocked {
		var err error
		if forcedOnly, err = stall.ForcedOnly(u); err != nil {
			return false, err
		}
	}
	return !res.Deadlocked || blocked || forcedOnly, nil
}

// check runs every check on interleaving n and keeps its new findings.
func (x *exploration) check(n int, d string, u *check.Unit, res *launch.Result, il *explore.Interleaving) error {
	fs, err := u.Findings(all.Checks)
	cut := errors.Is(err, trace.ErrStopped) // fs: the findings of the checks that ended
	if err != nil && !cut {
		return err
	}
	fs = report.Merge(fs)
	// The wait-for graph of a deadlock goes in the interleaving's
	// directory, new finding or not; a graph that cannot be written only
	// leaves the report without its file.
	_ = report.NewDOT().Print(&report.Report{Findings: fs})
	var keep []check.Finding
	slack := x.slackNote(n)
	for _, f := range fs {
		// The zero-buffering run is not one the MPI would make: only
		// its unsafe-buffering findings count, and only those that
		// messages never received do not explain. The driver names these
		// kinds because it ran that run for them. A collective some
		// members never call (collective-missing in interleaving 1)
		// deadlocks the zero-buffering run by itself.
		if n == x.zero && (f.Kind != "unsafe-buffering" || unreceived.Explains(x.first, res.Run) || x.found(1, "collective-missing")) {
			continue
		}
		if slack != "" {
			f.Message += "\nfound when " + slack
		}
		il.Errors = il.Errors || f.Severity == check.Error && !x.suppressed(f)
		keep = append(keep, f)
	}
	x.slackFindings(n, u, res, il, slack == "", keep)
	x.killedCut(n, keep)
	fresh := len(x.findings.Add(n, keep)) > 0
	if fresh && x.o.Trails {
		x.trails = append(x.trails, *spacetime.Build(res.Run, n, x.sym, spacetime.PerRank))
	}
	if fresh && n > 1 {
		steps := x.steps(n)
		if n == x.zero {
			steps = []string{zeroSteps}
		}
		x.explored = append(x.explored, report.Interleaving{N: n, Dir: d, Steps: steps,
			Replay: fmt.Sprintf("mpivet replay %s --interleaving %d", x.dir, n)})
	}
	x.fresh[n] = fresh
	if cut {
		x.notRun(n, err)
		x.checksStopped(n, il)
	}
	return nil
}

// notRun notes which checks of interleaving n the bound on its analysis
// (bounded.go) stopped before they ended: err is Findings' error.
func (x *exploration) notRun(n int, err error) {
	var s *check.Stopped
	if errors.As(err, &s) && len(s.NotRun) > 0 {
		x.notes = append(x.notes, fmt.Sprintf("the analysis of interleaving %d was stopped at its bound before %d of its %d checks ended, "+
			"so what they look for was not checked: %s", n, len(s.NotRun), len(all.Checks), strings.Join(s.NotRun, ", ")))
	}
}

// killedCut makes the verification incomplete when a rank of interleaving
// n was killed from outside the program (rank-killed): the run did not go
// to its end, and no error of the program explains it.
func (x *exploration) killedCut(n int, fs []check.Finding) {
	for _, f := range fs {
		if f.Kind == "rank-killed" && x.cut == "" {
			x.cut = fmt.Sprintf("%s %s of interleaving %d killed from outside the program (rank-killed): "+
				"the run did not go to its end, and what it would have done after was not checked",
				check.Plural(len(f.Ranks), "rank", "ranks"), check.RankList(f.Ranks), n)
		}
	}
}

// launch writes interleaving n's files in its directory d (the decisions
// to force, what to repeat of the parent run, the ranks' settings), runs
// the replay hook, and runs the program there within the time limit it
// returns.
//
// n is -1 for a replay run ahead of its turn, whose number is not known
// yet: it gets no MPIVET_INTERLEAVING and no hook (--jobs above 1 takes
// none). Replays may run at once: each runs with a copy of the session.
func (x *exploration) launch(ctx context.Context, n int, d string, ds []explore.Decision, b *explore.Branch) (*launch.Result, time.Duration, error) {
	if err := rundir.Mkdir(d); err != nil {
		return nil, 0, fmt.Errorf("cannot create %s: %v", d, err)
	}
	abs, err := filepath.Abs(d) // the ranks may run elsewhere
	if err != nil {
		return nil, 0, err
	}
	var files RunFiles
	if ds != nil {
		files.Decisions = filepath.Join(abs, decisionsFile)
		if err := explore.WriteDecisions(files.Decisions, ds); err != nil {
			return nil, 0, fmt.Errorf("cannot write the decisions: %v", err)
		}
	}
	if b != nil {
		files.Expect = filepath.Join(abs, expectFile)
		if err := writeExpect(files.Expect, b.Expect); err != nil {
			return nil, 0, fmt.Errorf("cannot write to the run directory: %v", err)
		}
	}
	if n > 1 && x.o.ReplayHook != "" {
		if err := x.runHook(n, d); err != nil {
			return nil, 0, err
		}
	}
	if !x.deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, x.deadline)
		defer cancel()
	}
	sess := *x.sess
	sess.Opts.Env = nil
	if n > 0 {
		sess.Opts.Env = []string{fmt.Sprintf("MPIVET_INTERLEAVING=%d", n)}
	}
	if n != 1 && n != x.zero {
		// A replay repeats the first run up to its forced match and then
		// runs the same program on the same input: it gets a few times the
		// first run's time, not the whole limit. One whose forced match
		// cannot happen, while its ranks poll rather than block, would
		// otherwise spend the whole limit each time.
		if limit := replayFactor*x.firstWall + replaySlack; sess.Opts.Timeout == 0 || limit < sess.Opts.Timeout {
			sess.Opts.Timeout = limit
		}
	}
	if x.files != nil {
		files.Store = x.files.Dir
	}
	if err := WriteLayerConf(abs, &sess, x.layerOptions(n), files); err != nil {
		return nil, 0, err
	}
	if err := x.beforeRun(n); err != nil {
		return nil, 0, err
	}
	res, err := sess.Run(ctx, d)
	if err == nil {
		err = x.afterRun(n)
	}
	return res, sess.Opts.Timeout, err
}

// layerOptions are the options interleaving n runs with: the zero-buffering
// run's own buffering, and how its ranks wait (the first run runs alone;
// replays, n -1 when run ahead, beside others).
func (x *exploration) layerOptions(n int) Options {
	o := x.o
	if n > 0 && n == x.zero {
		o.Buffering = "zero"
	}
	runs := 1
	if n != 1 && n != x.zero {
		runs = x.jobs()
	}
	o.Wait = waitMode(o, x.sess, runs)
	return o
}

// prune deletes the records of replay n if it gave no new finding: an
// exploration of thousands of replays would otherwise keep gigabytes nobody
// reads. Its decisions (completeFile) stay, so mpivet replay still runs it.
// Called once the replays below n, which compare themselves with its
// records, are done.
func (x *exploration) prune(n int) {
	if n == 1 || x.o.KeepRecords || n == x.zero || x.fresh[n] {
		return
	}
	launch.RemoveRecords(interleavingDir(x.dir, n))
}

// writeExpect writes the file layer.conf's expect= names for a replay
// (layer/src/divergence): the calls not compared, because whether and how
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
	return rundir.WriteFile(path, []byte(b.String()))
}

// runHook runs --replay-hook before replay n, in mpivet's working
// directory, with the replay's number and directory in its environment.
func (x *exploration) runHook(n int, dir string) error {
	cmd := exec.Command("/bin/sh", "-c", x.o.ReplayHook)
	cmd.Env = append(os.Environ(), fmt.Sprintf("MPIVET_INTERLEAVING=%d", n), "MPIVET_RUN_DIR="+dir)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("--replay-hook %q failed before interleaving %d: %v", x.o.ReplayHook, n, err)
	}
	return nil
}
