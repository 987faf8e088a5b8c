package waitstate

import (
	"sort"

	"mpivet/checks/internal/comms"
	"mpivet/checks/internal/waitfor"
	"mpivet/trace"
)

// What a rank blocked in a one-sided synchronisation call waits for (MPI
// 4.0 §12.5), from the windows of every rank (comms.Windows):
//   - MPI_Win_create, MPI_Win_allocate, ...: the members of the
//     communicator that have not made this window (a collective on it);
//   - MPI_Win_fence, MPI_Win_free: the members of the window that have not
//     made the same window collective at the same position (a member in
//     MPI_Win_free where this rank fences waits as long);
//   - MPI_Win_wait: the origins of its post that have not called the
//     MPI_Win_complete of an access epoch to this rank as often as it
//     posted to them;
//   - MPI_Win_start, MPI_Win_complete: the targets of its start that have
//     not posted to this rank as often as it started to them;
//   - MPI_Win_lock, MPI_Win_lock_all: the ranks that hold a lock on the
//     target that conflicts (any lock, for an exclusive one; an exclusive
//     one, for a shared one), and it goes on when they all release it; with
//     none, the lock is the MPI's to grant, and the rank can proceed. The
//     rank itself among them (a second lock of a target it holds, an
//     erroneous call an MPI may block in for ever) waits for itself: a
//     deadlock as soon as the ranks it could wait on are blocked too.
//
// The other calls that may block (unlock, flush, whose MPI may acquire a
// lock lazily there, or need the target to progress) wait for any other
// rank that can act: nil here. Where the records cannot place a window or
// a peer, nil too.
func (a *Analysis) rma(r *Rank, c *trace.Call) *waitfor.Cond {
	if comms.IsWinCreate(c.Name()) {
		return a.collective(r, c, false)
	}
	w := r.Comms.Wins
	k, ok := w.Key(c.Word("win"))
	if !ok {
		return nil
	}
	switch c.Name() {
	case "MPI_Win_fence", "MPI_Win_free":
		return a.windowCollective(r, c, k)
	case "MPI_Win_wait":
		return a.pscw(r, c, k, w.LastPost(k), func(o *comms.Windows, peer int) bool {
			return o.Completes(k, r.Proc.Rank) >= w.Posts(k, peer)
		})
	case "MPI_Win_start", "MPI_Win_complete":
		return a.pscw(r, c, k, w.LastStart(k), func(o *comms.Windows, peer int) bool {
			return o.Posts(k, r.Proc.Rank) >= w.Starts(k, peer)
		})
	case "MPI_Win_lock":
		excl, _ := r.Proc.Const("MPI_LOCK_EXCLUSIVE")
		if t := w.Target(c); t >= 0 {
			return a.holders(r, c, k, t, uint64(c.Int("lock_type")) == excl)
		}
	case "MPI_Win_lock_all":
		return a.holders(r, c, k, -1, false)
	}
	return nil
}

// windowCollective is what rank r's MPI_Win_fence or MPI_Win_free c on
// window k waits for: the members that have not made the same call at
// the same position among their fences and frees of the window.
func (a *Analysis) windowCollective(r *Rank, c *trace.Call, k string) *waitfor.Cond {
	pos := r.Comms.Wins.Collectives(k) - 1 // c is the latest
	var wait []int
	for _, m := range r.Comms.Wins.Members(k) {
		o := a.Ranks[m]
		if m == r.Proc.Rank || o == nil {
			continue
		}
		ow := o.Comms.Wins
		if pos >= 0 && pos < ow.Collectives(k) {
			if th := ow.Collective(k, pos); th == nil || th.Name() == c.Name() {
				continue // arrived
			}
		}
		wait = append(wait, m)
	}
	return waitfor.AllProcs(c.Name(), wait...)
}

// pscw is what rank r's PSCW call c waits for: the peers of its group that
// have not done their part (done).
func (a *Analysis) pscw(r *Rank, c *trace.Call, k string, group []int, done func(o *comms.Windows, peer int) bool) *waitfor.Cond {
	if group == nil {
		return nil
	}
	var wait []int
	for _, m := range group {
		o := a.Ranks[m]
		if m == r.Proc.Rank || o == nil || done(o.Comms.Wins, m) {
			continue
		}
		wait = append(wait, m)
	}
	return waitfor.AllProcs(c.Name(), wait...)
}

// holders is what rank r's MPI_Win_lock (or lock_all, t -1) c on window k
// waits for: the ranks holding a conflicting lock, itself included.
func (a *Analysis) holders(r *Rank, c *trace.Call, k string, t int, exclusive bool) *waitfor.Cond {
	var wait []int
	for id, o := range a.Ranks {
		if o.Comms.Wins.Holds(k, t, exclusive) {
			wait = append(wait, id)
		}
	}
	sort.Ints(wait)
	return waitfor.AllProcs(c.Name(), wait...)
}
