package trace

import "errors"

// ErrStopped is the error of an analysis stopped before its end: by an
// interrupt, or at the time limit of its run (Run.StopWhen).
var ErrStopped = errors.New("analysis stopped")

// stopped is what a reader of a run being stopped panics with; the check
// framework recovers it (check.Unit) as ErrStopped.
type stopped struct{}

// StopWhen makes every later read of r's records (Process.Calls, CallAt
// ...) and every CheckStop panic once stop returns true, so that an
// analysis of huge records can be abandoned at a time limit or an
// interrupt; Recover turns the panic into ErrStopped. stop is asked each
// time a reader refills its buffer (every MiB of log), so it must be cheap.
func (r *Run) StopWhen(stop func() bool) {
	for _, p := range r.Procs {
		p.stop = stop
	}
	r.stop = stop
}

// CheckStop panics as a reader of r does once its stop condition holds:
// for an analysis that loops over what it kept rather than over the log.
func (r *Run) CheckStop() {
	if r != nil && r.stop != nil && r.stop() {
		panic(stopped{})
	}
}

// Recover, deferred, turns the panic of a stopped reader into ErrStopped
// in *err; any other panic goes on.
func Recover(err *error) {
	if v := recover(); v != nil {
		if _, ok := v.(stopped); !ok {
			panic(v)
		}
		*err = ErrStopped
	}
}
