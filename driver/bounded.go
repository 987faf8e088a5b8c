package driver

import (
	"fmt"
	"time"

	"mpivet/explore"
	"mpivet/launch"
)

// The analysis of a run is bounded as the run is. Reading the records of
// a run that wrote millions of calls, and the checks that compare them,
// take time in proportion to them; that time counts in the run's limit
// (--timeout), in the budget, and ends at an interrupt:
//
//   - a run gets its --timeout for running and analysis together (the
//     wait of a replay run ahead of its turn not counted), and at least
//     analysisGrace for its analysis (what says where each rank was when
//     the time ran out is itself an analysis);
//   - after an interrupt, or once the budget is spent, the analysis in
//     progress gets stopGrace more, so a report comes within seconds.
//
// A stopped analysis keeps the findings of the checks that ended, and the
// verdict is incomplete: after an interrupt or the budget, for that
// reason; at a run's time limit, saying which interleaving's checks did
// not all run.
const (
	analysisGrace = 5 * time.Second
	stopGrace     = time.Second
)

// stopAnalysis returns the condition that stops the analysis of res, run
// with the time limit timeout (0: none).
func (x *exploration) stopAnalysis(res *launch.Result, timeout time.Duration) func() bool {
	// What is left of the run's time limit counts from now, when its
	// analysis starts: a replay run ahead of its turn (parallel.go) waits
	// between its end and its analysis, and that wait is not its own.
	var limit time.Time
	if timeout > 0 && !res.Started.IsZero() {
		limit = time.Now().Add(max(timeout-res.Exited.Sub(res.Started), analysisGrace))
	}
	budget := time.Time{}
	if !x.deadline.IsZero() {
		budget = x.deadline.Add(stopGrace)
	}
	return func() bool {
		now := time.Now()
		if t := x.interrupted.Load(); t != 0 && now.After(time.Unix(0, t).Add(stopGrace)) {
			return true
		}
		return !budget.IsZero() && now.After(budget) || !limit.IsZero() && now.After(limit)
	}
}

// checksStopped notes that the checks of interleaving n did not all run:
// an interrupt or the budget stops the verification there; a run's time
// limit leaves it incomplete.
func (x *exploration) checksStopped(n int, il *explore.Interleaving) {
	if why := x.why(); why != "" {
		il.Stopped = why
		return
	}
	if x.cut == "" {
		x.cut = fmt.Sprintf("the analysis of interleaving %d did not end within the run's time limit (--timeout %s, and %s after its ranks stopped): "+
			"some checks of it did not run", n, x.sess.Opts.Timeout, analysisGrace)
	}
}

// analysisStopped is interleaving n when its analysis stopped before its
// checks ran (reading the records, deciding whether a forced match could
// happen): it is not checked, not explored below, and counted as timed
// out unless the verification stops there.
func (x *exploration) analysisStopped(n int, ds []explore.Decision, b *explore.Branch, res *launch.Result) *explore.Interleaving {
	il := &explore.Interleaving{N: n, Decisions: ds, Branch: b, TimedOut: true}
	x.checksStopped(n, il)
	return il
}
