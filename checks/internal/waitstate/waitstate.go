// Package waitstate turns what the ranks of a run are doing (their state
// pages and logs, read live or after the run stopped) into wait-for
// conditions, and decides with package waitfor whether they are deadlocked.
// It is a shared analysis: the deadlock and timeout checks read it, and the
// run driver asks it whether a run that stopped making progress can ever
// resume.
//
// Conditions follow MPI's semantics (seed 003 §3.2): a blocked receive or
// probe waits for its source (any member of its communicator for
// MPI_ANY_SOURCE); a blocked send waits for its destination, since the MPI
// did not buffer it; Sendrecv waits for both; a collective waits for every
// member of its communicator that is not in the same collective; MPI_Wait
// and MPI_Waitall wait for all their pending operations, MPI_Waitany and
// MPI_Waitsome for any; MPI_Finalize waits for every rank still using MPI.
package waitstate

import (
	"fmt"

	"mpivet/check"
	"mpivet/checks/internal/comms"
	"mpivet/checks/internal/objects"
	"mpivet/checks/internal/waitfor"
	"mpivet/trace"
)

// Rank is one rank's part in the analysis.
type Rank struct {
	Proc  *trace.Process
	Comms *comms.Index // its communicators, indexed once
	State waitfor.State
	Call  *trace.Call // the call it is blocked in
}

// Analysis is the outcome.
type Analysis struct {
	*waitfor.Result
	Ranks map[int]*Rank
	// buffered takes standard-mode sends as buffered: complete, waiting
	// for no one, as an MPI with unlimited buffering would make them.
	buffered bool
	// unforced takes the wildcard receives a guided replay forced to one
	// source as the program wrote them (any source).
	unforced bool
}

// Analyze builds the wait-for conditions of a run and decides deadlock.
func Analyze(run *trace.Run) *Analysis { return analyze(run, false, false) }

// ForcedOnly reports whether the deadlock of run, a guided replay, vanishes
// when the wildcard receives it forced to one source may match any: the
// replay stopped because a forced source never sent (a match the clocks
// could not rule out, but that cannot happen), not because of the program.
// A forced receive that matched but whose completion call is blocked (seed
// 003 Fig. 8, §6) looks the same in the records, but there the deadlock
// stays when the receive accepts any source.
func ForcedOnly(run *trace.Run) bool {
	return len(Analyze(run).Deadlocked) > 0 && len(analyze(run, false, true).Deadlocked) == 0
}

// NeedsBuffering reports whether the deadlock a found in run would vanish
// if the MPI buffered every standard-mode send: the program relies on
// buffering the MPI standard does not guarantee (seed 003 Fig. 1(c), seed
// 000 Fig. 2.5).
func (a *Analysis) NeedsBuffering(run *trace.Run) bool {
	return len(a.Deadlocked) > 0 && len(analyze(run, true, a.unforced).Deadlocked) == 0
}

// standard reports whether a call is a standard-mode send.
func standard(name string) bool {
	return name == "MPI_Send" || name == "MPI_Isend" || name == "MPI_Send_init"
}

func analyze(run *trace.Run, buffered, unforced bool) *Analysis {
	a := &Analysis{Ranks: map[int]*Rank{}, buffered: buffered, unforced: unforced}
	var ps []waitfor.Process
	for _, p := range run.Procs {
		if p.Rank < 0 {
			continue
		}
		r := &Rank{Proc: p, Comms: comms.NewIndex(p), State: waitfor.Running}
		last := p.Last()
		switch {
		case p.Exit != nil || p.Finalized():
			r.State = waitfor.Finished
		case last != nil && !last.Returned && !last.Def.Has("abort") && allThreadsBlocked(p):
			r.State, r.Call = waitfor.Blocked, last
		}
		a.Ranks[p.Rank] = r
	}
	for id, r := range a.Ranks {
		wp := waitfor.Process{ID: id, State: r.State, Label: fmt.Sprintf("rank %d", id)}
		if r.State == waitfor.Blocked {
			wp.Label = fmt.Sprintf("rank %d: %s", id, check.Describe(r.Proc, r.Call))
			wp.Wait = a.condition(r)
			// Several threads in MPI: the rank goes on when any of them can.
			if len(r.Proc.Threads) > 1 {
				var any []*waitfor.Cond
				for _, c := range r.Proc.Threads {
					any = append(any, a.condition(&Rank{Proc: r.Proc, Comms: r.Comms, State: waitfor.Blocked, Call: c}))
				}
				wp.Wait = waitfor.AnyOf("threads", any...)
			}
		}
		ps = append(ps, wp)
	}
	a.Result = waitfor.Analyze(ps)
	return a
}

// peer is the condition of waiting for communicator rank r (source or
// destination) of comm, as rank rk sees it; nil if it needs no one
// (MPI_PROC_NULL).
func peer(rk *Rank, comm uint64, r int64, label string) *waitfor.Cond {
	p := rk.Proc
	if v, ok := p.Const("MPI_PROC_NULL"); ok && int64(v) == r {
		return nil
	}
	ms := rk.Comms.Members(comm)
	if v, ok := p.Const("MPI_ANY_SOURCE"); ok && int64(v) == r {
		return waitfor.AnyProc(label, ms...)
	}
	if r >= 0 && int(r) < len(ms) {
		return waitfor.P(ms[r])
	}
	return waitfor.AnyProc(label) // a rank we cannot place: waits for nothing that can happen
}

// source is the source receive or probe c waits for: MPI_ANY_SOURCE, unless
// a guided replay forced the wildcard event c started to match one rank.
func (a *Analysis) source(rk *Rank, c *trace.Call) int64 {
	s, p := c.Int("source"), rk.Proc
	if v, ok := p.Const("MPI_ANY_SOURCE"); !ok || int64(v) != s || a.unforced {
		return s
	}
	for i := len(p.Wild) - 1; i >= 0; i-- {
		w := p.Wild[i]
		if w.Matched || w.Cancelled {
			continue
		}
		if (c.Seq >= 0 && w.Offset == c.Offset) || (c.Seq < 0 && w.PC == c.PC) {
			if w.Forced != s {
				return w.Forced
			}
			return s
		}
	}
	return s
}

// condition is what a blocked rank waits for.
func (a *Analysis) condition(r *Rank) *waitfor.Cond {
	c := r.Call
	name := c.Name()
	comm := c.Word("comm")
	switch {
	case name == "MPI_Sendrecv" || name == "MPI_Sendrecv_replace":
		return all(name, peer(r, comm, c.Int("dest"), name), peer(r, comm, a.source(r, c), name))
	case c.Def.Has("recv") || c.Def.Has("probe"):
		return peer(r, comm, a.source(r, c), name)
	case c.Def.Has("send"):
		if a.buffered && standard(name) {
			return waitfor.AllOf(name) // buffered: waits for no one
		}
		return peer(r, comm, c.Int("dest"), name)
	case c.Def.Has("finalize"):
		return a.collective(r, c, true)
	case c.Def.Has("init"):
		return a.initWait(r, name)
	case c.Def.Has("coll"):
		return a.collective(r, c, false)
	case c.Def.Has("completion"):
		return a.requests(r)
	}
	return waitfor.AnyProc(name) // blocked where nothing can release it
}

func all(label string, cs ...*waitfor.Cond) *waitfor.Cond {
	var keep []*waitfor.Cond
	for _, c := range cs {
		if c != nil {
			keep = append(keep, c)
		}
	}
	return waitfor.AllOf(label, keep...)
}

// position returns which collective on its communicator (key) c is for
// the rank indexed by ix (0 for the first), or -1.
func position(ix *comms.Index, c *trace.Call, key string) int {
	for k, x := range ix.Collectives(key) {
		if x == c || (x.Offset == c.Offset && c.Offset != trace.Unknown) {
			return k
		}
	}
	return -1
}

// collective is what rank r's collective call c waits for: the members of
// its communicator that have not called their matching collective (the one
// at the same position on that communicator, with the same root and
// operation). A member that called it, whether blocked in it or long past
// it, has arrived: for a nonblocking collective, joining is what counts.
// MPI_Finalize waits for every rank not in it and not finished.
func (a *Analysis) collective(r *Rank, c *trace.Call, finalize bool) *waitfor.Cond {
	var wait []int
	if finalize {
		for id, o := range a.Ranks {
			if id == r.Proc.Rank || o.State == waitfor.Finished || o.State == waitfor.Blocked && o.Call.Def.Has("finalize") {
				continue
			}
			wait = append(wait, id)
		}
		return waitfor.AllProcs(c.Name(), wait...)
	}
	key := r.Comms.KeyOf(c)
	k := position(r.Comms, c, key)
	for _, m := range r.Comms.Members(c.Word("comm")) {
		o := a.Ranks[m]
		if m == r.Proc.Rank || o == nil {
			continue
		}
		theirs := o.Comms.Collectives(key)
		if k >= 0 && k < len(theirs) && theirs[k].Name() == c.Name() && sameArgs(o.Proc, theirs[k], r.Proc, c) {
			continue // arrived
		}
		wait = append(wait, m)
	}
	return waitfor.AllProcs(c.Name(), wait...)
}

// sameArgs reports whether two ranks' collectives agree on root and
// predefined operation (handles differ between ranks; names do not).
func sameArgs(pa *trace.Process, a *trace.Call, pb *trace.Process, b *trace.Call) bool {
	if a.HasField("root") && a.Int("root") != b.Int("root") {
		return false
	}
	if a.HasField("op") {
		na, nb := pa.Consts[a.Word("op")], pb.Consts[b.Word("op")]
		if len(na) > 0 && len(nb) > 0 && na[0] != nb[0] {
			return false
		}
	}
	return true
}

// initWait is what a rank blocked in MPI_Init waits for: every other rank
// to initialise MPI too (the MPI connects them there); a rank that ended
// before initialising never will.
func (a *Analysis) initWait(r *Rank, name string) *waitfor.Cond {
	var wait []int
	for id, o := range a.Ranks {
		if id == r.Proc.Rank || o.Proc.Initialized() || (o.State == waitfor.Blocked && o.Call.Def.Has("init")) {
			continue
		}
		wait = append(wait, id)
	}
	return waitfor.AllProcs(name, wait...)
}

// Failed reports whether a rank ended by itself in a way that is a failure
// (killed by a signal, non-zero exit, exit without MPI_Finalize): a rank
// others may then wait for forever, which is that failure's consequence
// rather than a deadlock.
func (r *Rank) Failed() bool {
	x := r.Proc.Exit
	return r.State == waitfor.Finished && x != nil && (x.Signal != 0 || x.Code != 0 || !r.Proc.Finalized())
}

// requests is what a blocked Wait-family call waits for: its pending
// operations, all of them or any.
func (a *Analysis) requests(r *Rank) *waitfor.Cond {
	c, p := r.Call, r.Proc
	live := objects.Follow(p).Live
	var conds []*waitfor.Cond
	for i, h := range c.Words("array_of_requests") {
		conds = append(conds, a.operation(r, live, h, fmt.Sprintf("[%d]", i)))
	}
	if c.HasField("request") {
		conds = append(conds, a.operation(r, live, c.Word("request"), ""))
	}
	var keep []*waitfor.Cond
	for _, x := range conds {
		if x != nil {
			keep = append(keep, x)
		}
	}
	switch c.Name() {
	case "MPI_Waitany", "MPI_Waitsome":
		return waitfor.AnyOf(c.Name(), keep...)
	}
	return waitfor.AllOf(c.Name(), keep...)
}

// operation is what a pending request waits for, from the call that
// started it; nil if the request is null or already complete.
func (a *Analysis) operation(r *Rank, live []*objects.Object, h uint64, index string) *waitfor.Cond {
	var o *objects.Object
	for _, x := range live {
		if x.Kind == "request" && x.Handle == h && x.Active {
			o = x
		}
	}
	if o == nil {
		return nil
	}
	label := fmt.Sprintf("%s request%s", o.Created.Name(), index)
	c := o.Created
	comm := c.Word("comm")
	switch {
	case c.Def.Has("recv"):
		return peer(r, comm, a.source(r, c), label)
	case c.Def.Has("send"):
		if a.buffered && standard(c.Name()) {
			return waitfor.AllOf(label) // buffered: complete
		}
		return peer(r, comm, c.Int("dest"), label)
	case c.Def.Has("coll"):
		cond := a.collective(r, c, false)
		cond.Label = label
		return cond
	}
	return waitfor.AnyProc(label)
}

// allThreadsBlocked reports whether every thread of the rank that called
// MPI is inside a call: a thread outside MPI may still release the others.
func allThreadsBlocked(p *trace.Process) bool {
	for _, c := range p.Threads {
		if c.Returned {
			return false
		}
	}
	return true
}
