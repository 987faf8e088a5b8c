package rma

import "fmt"

// misuse reports a window call that the rank's epochs before it make
// erroneous, and whether the call is then to be left out of the epochs
// (true: it would open what is open, or close what is not). It is judged
// from the records alone, before what the MPI did with the call: a call
// the MPI aborted in, hung in or refused is found all the same.
func (s *scan) misuse(cl call, e *epochs) bool {
	c, name := cl.c, cl.c.Name()
	switch name {
	case "MPI_Win_fence":
		s.fenceInPassive(cl, e)
		return false
	case "MPI_Win_lock", "MPI_Win_lock_all":
		return s.lockMisuse(cl, e)
	case "MPI_Win_unlock":
		if t := e.w.worldOf(c.Int("rank")); e.locks[t] == nil {
			s.report(fmt.Sprintf("MPI_Win_unlock of rank %d without a matching MPI_Win_lock", t), cl, "unlocked here")
			return true
		}
	case "MPI_Win_unlock_all":
		if e.lockAll == nil {
			s.report("MPI_Win_unlock_all without a matching MPI_Win_lock_all", cl, "unlocked here")
			return true
		}
	case "MPI_Win_flush", "MPI_Win_flush_all", "MPI_Win_flush_local", "MPI_Win_flush_local_all":
		one := name == "MPI_Win_flush" || name == "MPI_Win_flush_local"
		if e.lockAll == nil && (!one && len(e.locks) == 0 || one && e.locks[e.w.worldOf(c.Int("rank"))] == nil) {
			s.report(fmt.Sprintf("%s outside a passive-target epoch (MPI_Win_lock or MPI_Win_lock_all)", name), cl, "called here")
			return true
		}
	case "MPI_Win_complete":
		if e.start == nil {
			s.report("MPI_Win_complete without a matching MPI_Win_start", cl, "called here")
			return true
		}
	case "MPI_Win_wait", "MPI_Win_test":
		// A test that returned false without an error did nothing yet.
		if e.post == nil && (name == "MPI_Win_wait" || !c.Returned || c.RC != 0 || c.Int("flag") != 0) {
			s.report(fmt.Sprintf("%s without a matching MPI_Win_post", name), cl, "called here")
			return true
		}
	case "MPI_Win_post":
		if e.post != nil {
			s.report("MPI_Win_post while the exposure epoch of an earlier MPI_Win_post is still open (no MPI_Win_wait)", cl, "posted here", s.loc(e.post, "earlier post"))
			return true
		}
	case "MPI_Win_start":
		if e.start != nil {
			s.report("MPI_Win_start while the access epoch of an earlier MPI_Win_start is still open (no MPI_Win_complete)", cl, "started here", s.loc(e.start, "earlier start"))
			return true
		}
	default:
		if isComm(c.Def) {
			return s.outsideEpoch(cl, e)
		}
	}
	return false
}

// lockMisuse judges MPI_Win_lock and MPI_Win_lock_all: a target may be in
// one access epoch of the window at a time (MPI 4.0 §12.5.3: "each access
// epoch must target a different MPI process"), and a passive-target epoch
// does not open inside an active-target one.
func (s *scan) lockMisuse(cl call, e *epochs) bool {
	name := cl.c.Name()
	t := -1
	if name == "MPI_Win_lock" {
		t = e.w.worldOf(cl.c.Int("rank"))
		if o := e.locks[t]; o != nil {
			s.report(fmt.Sprintf("MPI_Win_lock of rank %d while this rank already holds a lock on it (MPI_Win_lock at %s)", t, s.loc(o, "").Where()), cl, "locked again here", s.loc(o, "first locked here"))
			return true
		}
	} else if e.lockAll != nil {
		s.report("MPI_Win_lock_all while this rank's MPI_Win_lock_all epoch is still open", cl, "locked again here", s.loc(e.lockAll, "first locked here"))
		return true
	}
	switch {
	case t >= 0 && e.lockAll != nil:
		s.report(fmt.Sprintf("MPI_Win_lock of rank %d inside this rank's MPI_Win_lock_all epoch on the window, which already covers rank %d", t, t),
			cl, "locked here", s.loc(e.lockAll, "MPI_Win_lock_all epoch opened here"))
	case t < 0 && len(e.locks) > 0:
		o, r := firstLock(e)
		s.report(fmt.Sprintf("MPI_Win_lock_all while this rank holds a lock on rank %d of the window (MPI_Win_lock at %s)", r, s.loc(o, "").Where()),
			cl, "locked here", s.loc(o, "lock taken here"))
	case e.fenced && e.fenceUsed:
		f := e.w.fences[cl.p.Rank]
		s.report(fmt.Sprintf("%s inside an active fence epoch: operations followed the MPI_Win_fence at %s and no fence has closed their epoch", name, s.loc(f[len(f)-1], "").Where()),
			cl, "locked here", s.loc(f[len(f)-1], "fence epoch opened here"))
	}
	return false
}

// firstLock is the lock of the lowest target e holds.
func firstLock(e *epochs) (*call, int) {
	r := -1
	for t := range e.locks {
		if r < 0 || t < r {
			r = t
		}
	}
	return e.locks[r], r
}

// fenceInPassive reports a fence inside a passive-target epoch of the
// window: active and passive target synchronisation do not mix in one
// epoch.
func (s *scan) fenceInPassive(cl call, e *epochs) {
	var o *call
	what := "MPI_Win_lock_all epoch"
	if e.lockAll != nil {
		o = e.lockAll
	} else if len(e.locks) > 0 {
		var r int
		o, r = firstLock(e)
		what = fmt.Sprintf("lock on rank %d (MPI_Win_lock)", r)
	}
	if o != nil {
		s.report(fmt.Sprintf("MPI_Win_fence inside this rank's %s on the window, opened at %s and not closed", what, s.loc(o, "").Where()),
			cl, "fence called here", s.loc(o, "passive-target epoch opened here"))
	}
}

// outsideEpoch reports a communication call no epoch covers, and whether
// to leave it out.
func (s *scan) outsideEpoch(cl call, e *epochs) bool {
	c, p := cl.c, cl.p
	if null, ok := p.Const("MPI_PROC_NULL"); ok && c.Int("target_rank") == int64(null) {
		return false
	}
	t := e.w.worldOf(c.Int("target_rank"))
	if t < 0 || e.locks[t] != nil || e.lockAll != nil || e.start != nil && has(e.targets, t) || e.fenced {
		return false // out of range (the MPI says so: mpi-error), or covered
	}
	s.report(fmt.Sprintf("%s to rank %d outside an access epoch: no MPI_Win_fence, MPI_Win_lock, MPI_Win_lock_all or MPI_Win_start covers it", c.Name(), t), cl, "called here")
	return true
}
