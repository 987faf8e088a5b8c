package driver

import (
	"fmt"

	"mpivet/explore"
	"mpivet/launch"
	"mpivet/trace"
)

// Many programs ask for MPI_THREAD_MULTIPLE and call MPI from one thread
// only (mpi4py asks for it by default). The clock protocol, which finds the
// other matches of wildcard receives, keeps tables made for one thread; so
// under MPI_THREAD_MULTIPLE each rank runs it as long as only the thread
// that initialised MPI calls MPI, and ends (api.ExitThreads, after logging
// api.MetaThreads) when another thread calls MPI for the first time, before
// that call reaches the protocol. The driver then runs the program again
// with the protocol off under MPI_THREAD_MULTIPLE (Options.Threads "off"):
// one extra run, only for programs whose threads do call MPI, and a note
// saying why only the interleaving that happened was checked.

// threadStop is the first rank of run r that ended because a second
// thread called MPI, or nil.
func threadStop(r *trace.Run) *trace.Process {
	if r == nil {
		return nil
	}
	for _, p := range r.Procs {
		if p.ThreadStop > 0 {
			return p
		}
	}
	return nil
}

// threadsAgain runs interleaving 1 again with the clock protocol off under
// MPI_THREAD_MULTIPLE, since rank p of the first attempt saw a second
// thread call MPI. The setting is recorded, so that mpivet replay runs
// the program the same way.
func (x *exploration) threadsAgain(p *trace.Process, ds []explore.Decision, b *explore.Branch) (*explore.Interleaving, error) {
	x.o.Threads = "off"
	if err := saveCommand(x.dir, x.o); err != nil {
		return nil, err
	}
	x.notes = append(x.notes, fmt.Sprintf("the program runs MPI_THREAD_MULTIPLE and a second thread of rank %d called MPI: "+
		"the first run, with the clock protocol on, stopped there, and the program was run again with it off", p.Rank))
	launch.RemoveRecords(x.dir)
	return x.once(1, ds, b)
}

// threadsDiverged describes replay n, in which rank p's second thread
// called MPI under the thread guard, as a divergence: the first run's
// threads did not, so the replay is not the execution asked for.
func threadsDiverged(n int, p *trace.Process) string {
	return fmt.Sprintf("interleaving %d, rank %d: a thread other than the one that initialised MPI called MPI, which none did in the first run "+
		"(the clock protocol, on while one thread calls MPI, stopped the replay)", n, p.Rank)
}
