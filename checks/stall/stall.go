// Package stall answers package driver's questions about a run that
// stopped making progress, from the shared wait-state analysis
// (checks/internal/waitstate), which only packages under checks/ can
// import: whether the run can ever resume (launch polls CannotResume while
// the run is live, and stops a run that cannot), and whether the deadlock
// of a guided replay comes only from a forced match that cannot happen.
package stall

import (
	"mpivet/check"
	"mpivet/checks/internal/waitstate"
	"mpivet/trace"
)

// CannotResume reports whether some ranks of a run that stopped making
// progress are deadlocked: the run driver's question while the run is live
// (launch.Options.Stalled).
func CannotResume(run *trace.Run) bool { return waitstate.Analyze(run).IsDeadlocked() }

// ForcedOnly reports whether the deadlock of the execution u, a guided
// replay, comes only from a forced wildcard match that cannot happen: it
// vanishes when the forced receives may match any source. It reads the
// wait state u computes once for its checks.
func ForcedOnly(u *check.Unit) (bool, error) {
	r, err := u.Result(waitstate.Analyzer)
	if err != nil {
		return false, err
	}
	a, _ := r.(*waitstate.Analysis)
	return a.IsDeadlocked() && a.ForcedOnly(), nil
}
