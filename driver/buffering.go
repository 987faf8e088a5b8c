package driver

import (
	"fmt"
	"path/filepath"
	"time"

	"mpivet/check"
	"mpivet/checks/zerobuf"
	"mpivet/explore"
	"mpivet/rundir"
	"mpivet/trace"
)

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
	savedLimit := x.sess.Opts.Timeout
	if savedLimit == 0 || limit < savedLimit {
		x.sess.Opts.Timeout = limit
	}
	x.zero = n // once runs it with zero buffering
	defer func() { x.sess.Opts.Timeout = savedLimit }()
	il, err := x.once(n, ds, nil)
	if err != nil {
		return nil, err
	}
	// replay runs it with zero buffering again
	if err := rundir.WriteFile(filepath.Join(interleavingDir(x.dir, n), bufferingFile), []byte("zero\n")); err != nil {
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
	if sim != nil && sim.Checked && il.Stopped == "" && !il.Infeasible && !il.TimedOut && !x.found(n, "unsafe-buffering") &&
		!x.found(0, "collective-missing") { // the members that never call it: the zero-buffering run's deadlock is that
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
