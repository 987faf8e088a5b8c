package driver

import (
	"fmt"

	"mpivet/trace"
)

// watchNote says how many nonblocking operations the buffer checker left
// unwatched in run r, if any.
func watchNote(r *trace.Run) string {
	var started, watched uint64
	if r == nil {
		return ""
	}
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

// clocksOffAnd starts the reason the clocks give when they were off
// (--clocks=off, deterministic mode) and the layer found more to say.
const clocksOffAnd = "--clocks=off; and "

// noClock is why a rank's clock protocol stopped when a piggyback did not
// come (take_pb in layer/src/clocks/).
const noClock = "a message came without its clock"
