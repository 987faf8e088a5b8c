package rma

import (
	"fmt"

	"mpivet/api"
	"mpivet/check"
	"mpivet/trace"
)

// The target's own loads and stores during other ranks' passive-target
// epochs. The target makes no call that opens or closes them: outside its
// active-target exposure epochs the layer (layer/src/buffers/exposure.c)
// records the first load and the first store of each page of a watched
// window in every stretch of program between two MPI calls, and the record
// stands in the log after the rank's latest logged call. Such an access is
// placed there in the happens-before order (hb.go): its clock is that
// call's, and it comes before anything that follows the rank's next call.
// It races with an operation of another origin, in a lock or lock_all
// epoch on the target, that touches its byte (one of them writing) unless
// the operation is complete at the target (its unlock or flush) before the
// access, or the access before the operation starts, or exclusive locks
// serialise them (the target locking its own window around the access).
//
// MPI_Win_sync is the exception. In the unified memory model (MPI 4.0
// §12.4, §12.7) it synchronises the window's private and public copies, and
// a target that loads a flag in its window between calls to MPI_Win_sync
// until an origin's Put or Accumulate sets it (the origin flushing before
// and after) is the standard's own polling idiom: what orders the data is
// the flag's value, which the records do not show. So an access in a
// stretch that follows the rank's MPI_Win_sync on the window is not
// compared, nor, anywhere, a load of bytes the rank loads in such a
// stretch (the poll's first test, before its first MPI_Win_sync). A race
// such a program also has there is missed: no false alarm.

// local is one such access of a target.
type local struct {
	a      *access // the access as an operation of the target on itself
	b      trace.BufferAccess
	p      *trace.Process
	synced bool // it follows the rank's MPI_Win_sync on the window
}

// polledByte is a byte of a window that a rank loads after its
// MPI_Win_sync on the window: a flag it polls.
type polledByte struct {
	w    *window
	rank int
	off  int64
}

// passiveRecords gives the rank's records of accesses between calls, by
// the entry record of the call they follow (nil: none).
func passiveRecords(p *trace.Process) map[uint64][]trace.BufferAccess {
	var m map[uint64][]trace.BufferAccess
	for _, b := range p.Buffers {
		if b.Kind == api.AccessPassiveLoad || b.Kind == api.AccessPassiveStore {
			if m == nil {
				m = map[uint64][]trace.BufferAccess{}
			}
			m[b.After] = append(m[b.After], b)
		}
	}
	return m
}

// placeLocal places rank p's accesses bs, which follow its call c (the
// idx-th), on the windows open then (byHandle): the target's own locks on
// its window and its synchronisation generation as of that call.
func (s *scan) placeLocal(p *trace.Process, c *trace.Call, idx int, bs []trace.BufferAccess, byHandle map[uint64]*epochs) {
	for _, b := range bs {
		e := byHandle[b.Request]
		if e == nil || e.w.dynamic {
			continue
		}
		off := int64(b.Other)
		a := &access{call: call{p, c, idx}, w: e.w, origin: p.Rank, target: p.Rank, lo: off, hi: off + 1,
			write: b.Kind == api.AccessPassiveStore, gen: e.gen, doneAt: e.gen, doneVC: idx + 2}
		if e.locks[p.Rank] != nil {
			a.lock, a.excl = true, e.excl[p.Rank]
		} else if e.lockAll != nil {
			a.lock = true
		}
		synced := c.Def.Name == "MPI_Win_sync" && c.Word("win") == b.Request
		if synced && !a.write {
			if s.polled == nil {
				s.polled = map[polledByte]bool{}
			}
			s.polled[polledByte{e.w, p.Rank, off}] = true
		}
		s.locals = append(s.locals, &local{a: a, b: b, p: p, synced: synced})
		s.addSync(p, sync{at: idx, kind: syncAccess, access: a, late: true})
	}
}

// passiveRaces reports the target accesses that race with a passive-target
// operation of another origin.
func (s *scan) passiveRaces() {
	if len(s.locals) == 0 {
		return
	}
	type key struct {
		w      *window
		target int
	}
	ops := map[key][]*access{}
	for _, a := range s.accesses {
		if a.lock && a.origin != a.target && a.hi > a.lo {
			k := key{a.w, a.target}
			ops[k] = append(ops[k], a)
		}
	}
	seen := map[string]bool{}
	for _, l := range s.locals {
		t := l.a
		if l.synced || !t.write && s.polled[polledByte{t.w, l.p.Rank, t.lo}] {
			continue // polled with MPI_Win_sync
		}
		for _, a := range ops[key{t.w, t.target}] {
			s.pass.In.Run.CheckStop()
			if a.doneAt < t.gen || t.gen < a.gen {
				continue // a barrier-like collective between them
			}
			if !t.write && !a.write || ordered(t, a) {
				continue
			}
			if lo, hi := overlap(t, a); lo >= hi {
				continue
			}
			// one finding per pair of lines: every rank may make the same mistake
			id := s.pass.AtAccess(l.p, l.b.PCs).Where() + "|" + s.loc(&a.call, "").Where()
			if !seen[id] {
				seen[id] = true
				s.reportPassive(l, a)
			}
			break
		}
	}
}

// reportPassive reports target access l against operation a.
func (s *scan) reportPassive(l *local, a *access) {
	p, b := l.p, l.b
	verb, rule := "read", "writes"
	if l.a.write {
		verb = "wrote"
		if !a.write {
			rule = "reads"
		}
	}
	lo, hi := a.lo, a.hi
	for _, bl := range a.blocks {
		if bl[0] <= l.a.lo && l.a.lo < bl[1] {
			lo, hi = bl[0], bl[1]
		}
	}
	at := s.pass.AtAccess(p, b.PCs)
	at.Note = fmt.Sprintf("rank %d %s byte %d of its own window here", p.Rank, verb, b.Other)
	locs := []check.Location{at, s.loc(&a.call, fmt.Sprintf("rank %d's %s, in a passive-target epoch", a.origin, a.c.Name()))}
	if a.done != nil {
		locs = append(locs, s.loc(a.done, fmt.Sprintf("it completes at rank %d here; no barrier or message orders this before the access, nor the access before the operation", p.Rank)))
	}
	s.pass.Report(check.Finding{Kind: "rma-race", Message: fmt.Sprintf(
		"rank %d %s byte %d of its own window while %s from rank %d %s bytes %d-%d in a passive-target epoch, with nothing ordering them: "+
			"the target's own access is concurrent with the remote one (synchronise after the origin's unlock or flush, "+
			"or lock the window exclusively around the access)",
		p.Rank, verb, b.Other, a.c.Name(), a.origin, rule, lo, hi-1), Locations: locs})
}
