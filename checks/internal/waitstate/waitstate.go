// Package waitstate turns what the ranks of a run are doing (their state
// pages and logs, read live or after the run stopped) into wait-for
// conditions, and decides with package waitfor whether they are deadlocked.
// It is a shared, result-only analysis (Analyzer), computed once per
// execution that mpivet stopped: the deadlock, timeout and program-failure
// checks read it; the run driver asks it, through package checks/stall,
// whether a live run that stopped making progress can ever resume
// (Analyze) and whether a replay's deadlock comes only from a forced match.
//
// Conditions follow MPI's semantics (seed 003 §3.2): a blocked receive or
// probe waits for its source (any member of its communicator for
// MPI_ANY_SOURCE); a blocked send waits for its destination, since the MPI
// did not buffer it; Sendrecv waits for its receive, and for its send only
// where the records show that the send is what keeps it (sendrecv); a collective waits for every
// member of its communicator (both groups of an intercommunicator) that
// is not in the same collective; MPI_Wait and MPI_Waitall wait for all
// their pending operations, MPI_Waitany and MPI_Waitsome for any; a
// one-sided synchronisation waits for the peers it names (rma.go: window
// collectives, PSCW partners, holders of a conflicting lock);
// MPI_Finalize waits for every rank still using MPI.
//
// A verdict must rest on what cannot change, so the conditions err towards
// "can proceed" wherever the records leave a doubt (a deadlock missed so is
// still reported as a hang at the time limit; a false one kills a healthy
// run):
//   - only calls that can block make a rank blocked: one inside MPI_Test,
//     MPI_Iprobe or MPI_Isend is running, even when it is descheduled or
//     stopped there;
//   - a rank the run driver marked Suspended (stopped, or not scheduled
//     while the run stalled) is running;
//   - a send whose destination has posted a receive it can match (an
//     active receive request, or the receive the destination is blocked
//     in: same communicator, source or MPI_ANY_SOURCE, tag or MPI_ANY_TAG)
//     waits for no one: the MPI completes it when both progress;
//   - likewise a receive whose source is sending it a message (an active
//     send request, or the send the source is blocked in). A blocking send
//     that already returned leaves no record; its message would have been
//     taken by a receiver that has been polling in its receive since the
//     run stalled, which is what the run driver checks before asking.
package waitstate

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

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
	// SendsTo and RecvsFrom are the world ranks its blocked call still
	// waits to send to and to receive from (named sources only).
	SendsTo, RecvsFrom []int

	// Finalizing: it has called MPI_Finalize (it may be blocked in it) or
	// ended, so it will never receive a message again.
	Finalizing bool

	threads []*trace.Call // several threads: the calls they are blocked in
	pending []*trace.Call // the calls of its point-to-point operations in progress
	live    []*objects.Object
	follow  bool // pending and live computed
	objects func(*trace.Process) *objects.State
}

// Analysis is the outcome.
type Analysis struct {
	*waitfor.Result
	Ranks map[int]*Rank
	run   *trace.Run
	src   source
	// buffered takes standard-mode sends as buffered: complete, waiting
	// for no one, as an MPI with unlimited buffering would make them.
	buffered bool
	// unforced takes the wildcard receives a guided replay forced to one
	// source as the program wrote them (any source).
	unforced bool
}

// source gives the shared analyses of each rank: computed for the
// analysis alone (Analyze), or taken from the execution's results
// (Analyzer).
type source struct {
	comms   func(*trace.Process) *comms.Index
	objects func(*trace.Process) *objects.State
}

var standalone = source{comms: comms.NewIndex, objects: objects.Follow}

// Analyze builds the wait-for conditions of a run and decides deadlock:
// for the run driver, on a live run. Checks use Analyzer's result.
func Analyze(run *trace.Run) *Analysis { return analyze(run, standalone, false, false) }

// Analyzer is the wait state of an execution that stopped making progress
// (mpivet stopped it: stalled, or at its time limit); its result is nil
// for an execution that ended by itself.
var Analyzer = &check.Check{
	Name: "wait-state",
	Doc: `what the blocked ranks of a stopped run wait for, and whether they can ever proceed

A result-only analysis: the AND-OR wait-for conditions of the ranks of a run
that mpivet stopped (stalled, or at its time limit), the AND⊕OR wait-for
graph and its deadlocked ranks and cores (package waitfor).`,
	Requires:   []*check.Check{comms.Analyzer, objects.Analyzer},
	ResultType: reflect.TypeOf((*Analysis)(nil)),
	Run: func(pass *check.Pass) (any, error) {
		if !pass.In.Stalled && !pass.In.TimedOut {
			return nil, nil
		}
		cs := pass.ResultOf[comms.Analyzer].(*comms.Result)
		obs := pass.ResultOf[objects.Analyzer].(*objects.Result)
		return analyze(pass.In.Run, source{comms: cs.Of, objects: obs.Of}, false, false), nil
	},
}

// Of returns the wait state of the execution a pass checks (nil if it
// ended by itself); the pass's check must require Analyzer.
func Of(pass *check.Pass) *Analysis {
	a, _ := pass.ResultOf[Analyzer].(*Analysis)
	return a
}

// IsDeadlocked reports whether some ranks of a can never proceed (false
// for a nil a: the run ended by itself).
func (a *Analysis) IsDeadlocked() bool { return a != nil && len(a.Deadlocked) > 0 }

// ForcedOnly reports whether the deadlock of a guided replay vanishes
// when the wildcard receives it forced to one source may match any: the
// replay stopped because a forced source never sent (a match the clocks
// could not rule out, but that cannot happen), not because of the program.
// A forced receive that matched but whose completion call is blocked (seed
// 003 Fig. 8, §6) looks the same in the records, but there the deadlock
// stays when the receive accepts any source.
func (a *Analysis) ForcedOnly() bool {
	return a.IsDeadlocked() && len(analyze(a.run, a.src, false, true).Deadlocked) == 0
}

// NeedsBuffering reports whether the deadlock a found would vanish
// if the MPI buffered every standard-mode send: the program relies on
// buffering the MPI standard does not guarantee (seed 003 Fig. 1(c), seed
// 000 Fig. 2.5).
func (a *Analysis) NeedsBuffering() bool {
	return a.IsDeadlocked() && len(analyze(a.run, a.src, true, a.unforced).Deadlocked) == 0
}

// standard reports whether a call is a standard-mode send (the send half
// of MPI_Sendrecv is one).
func standard(name string) bool {
	switch name {
	case "MPI_Send", "MPI_Isend", "MPI_Send_init", "MPI_Sendrecv", "MPI_Sendrecv_replace", "MPI_Isendrecv", "MPI_Isendrecv_replace":
		return true
	}
	return false
}

// analyses counts the analyses made.
var analyses atomic.Int64

// Analyses is how many wait-for analyses were made (each builds the
// conditions and solves the graph): tests check how often per execution.
func Analyses() int64 { return analyses.Load() }

func analyze(run *trace.Run, src source, buffered, unforced bool) *Analysis {
	analyses.Add(1)
	a := &Analysis{Ranks: map[int]*Rank{}, run: run, src: src, buffered: buffered, unforced: unforced}
	var ps []waitfor.Process
	for _, p := range run.Procs {
		if p.Rank < 0 {
			continue
		}
		r := &Rank{Proc: p, Comms: src.comms(p), objects: src.objects, State: waitfor.Running}
		last := p.Last()
		switch {
		case p.Exit != nil || p.Finalized():
			r.State = waitfor.Finished
		case last != nil && !p.Suspended && !p.Deciding:
			if in, all := blockedIn(p); all {
				r.State, r.Call, r.threads = waitfor.Blocked, last, in
				if len(in) == 1 {
					r.Call = in[0]
				}
			}
		}
		r.Finalizing = r.State == waitfor.Finished || p.FinalizeCall() != nil
		a.Ranks[p.Rank] = r
	}
	// In rank order: the graph's nodes, its DOT text and the order of the
	// cores follow it (a map's order made them change from run to run).
	ids := make([]int, 0, len(a.Ranks))
	for id := range a.Ranks {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	for _, id := range ids {
		r := a.Ranks[id]
		wp := waitfor.Process{ID: id, State: r.State, Label: fmt.Sprintf("rank %d", id)}
		if r.State == waitfor.Blocked {
			wp.Label = fmt.Sprintf("rank %d: %s", id, check.Describe(r.Proc, r.Call))
			wp.Wait = a.condition(r)
			// Several threads in MPI: the rank goes on when any of them can.
			if len(r.threads) > 1 {
				var any []*waitfor.Cond
				for _, c := range r.threads {
					any = append(any, a.condition(&Rank{Proc: r.Proc, Comms: r.Comms, objects: r.objects, State: waitfor.Blocked, Call: c}))
				}
				wp.Wait = waitfor.AnyOf("threads", any...)
			}
		}
		ps = append(ps, wp)
	}
	a.Result = waitfor.Analyze(ps)
	return a
}

// done is the condition of an operation that waits for no one.
func done(label string) *waitfor.Cond { return waitfor.AllOf(label) }

// peer is the condition of waiting for communicator rank r (source or
// destination) of comm, as rank rk sees it.
func peer(rk *Rank, comm uint64, r int64, label string) *waitfor.Cond {
	p := rk.Proc
	if isConst(p, "MPI_PROC_NULL", r) {
		return done(label)
	}
	ms := rk.Comms.Members(comm)
	if isConst(p, "MPI_ANY_SOURCE", r) {
		return waitfor.AnyProc(label, ms...)
	}
	if r >= 0 && int(r) < len(ms) {
		return waitfor.P(ms[r])
	}
	return waitfor.AnyProc(label) // a rank we cannot place: waits for nothing that can happen
}

func isConst(p *trace.Process, name string, v int64) bool {
	c, ok := p.Const(name)
	return ok && int64(c) == v
}

// world returns the world rank of communicator rank r of comm as rank rk
// sees it, or -1 (MPI_PROC_NULL, MPI_ANY_SOURCE, or a rank it cannot place).
func world(rk *Rank, comm uint64, r int64) int {
	if ms := rk.Comms.Members(comm); r >= 0 && int(r) < len(ms) {
		return ms[r]
	}
	return -1
}

// send is what rank r's send c (a blocking call, or the call that started
// a pending request) waits for. The MPI completes a send whose destination
// has posted a receive it can match as both ranks progress; only a send
// with no such receive waits for its destination. With buffering, a
// standard-mode send waits for no one, unless its destination has called
// MPI_Finalize: no receive will ever take its message, so buffering hides
// nothing there.
func (a *Analysis) send(r *Rank, c *trace.Call, label string) *waitfor.Cond {
	comm, dest := c.Word("comm"), c.Int("dest")
	if isConst(r.Proc, "MPI_PROC_NULL", dest) {
		return done(label)
	}
	d := a.Ranks[world(r, comm, dest)]
	if d == nil {
		return peer(r, comm, dest, label)
	}
	if a.posted(r, c, d) {
		return done(label)
	}
	if a.buffered && standard(c.Name()) && !d.Finalizing {
		return done(label) // buffered: waits for no one
	}
	r.SendsTo = append(r.SendsTo, d.Proc.Rank)
	return waitfor.P(d.Proc.Rank)
}

// recv is what rank r's receive or probe c waits for: its source (any
// member of the communicator for MPI_ANY_SOURCE), unless a rank it can
// receive from is sending it a matching message.
func (a *Analysis) recv(r *Rank, c *trace.Call, label string) *waitfor.Cond {
	if !c.HasField("source") {
		return done(label) // MPI_Mrecv: its message was matched by the probe
	}
	comm, src := c.Word("comm"), a.source(r, c)
	if isConst(r.Proc, "MPI_PROC_NULL", src) {
		return done(label)
	}
	if isConst(r.Proc, "MPI_ANY_SOURCE", src) {
		for _, m := range r.Comms.Members(comm) {
			if s := a.Ranks[m]; s != nil && a.sending(s, r, c) {
				return done(label)
			}
		}
		return peer(r, comm, src, label)
	}
	s := a.Ranks[world(r, comm, src)]
	if s == nil {
		return peer(r, comm, src, label)
	}
	if a.sending(s, r, c) {
		return done(label)
	}
	r.RecvsFrom = append(r.RecvsFrom, s.Proc.Rank)
	return waitfor.P(s.Proc.Rank)
}

// sendrecv is what rank r's blocked MPI_Sendrecv (or _replace) c waits for.
// Its halves run concurrently, and the records say only that the call has
// not returned, not which half keeps it there: its send may have completed
// already (an eager message that the destination has not received yet; a
// blocking MPI_Send in that state would have returned). So the call waits
// for its send's destination only where that is certain:
//   - its receive half will complete (the source is sending it a matching
//     message, or is MPI_PROC_NULL): the call waits for its send;
//   - its receive's source will never send again (it called MPI_Finalize
//     or ended, with no send to r in progress): the message was received
//     already, and the call waits for its send; or it never will be, and
//     the call never returns whatever its send does. It is taken as
//     waiting for its send (erring towards "can proceed"), unless its
//     send's destination has posted a matching receive: then the message
//     never came (had it, the call would have returned while polling since
//     the run stalled), and the call waits for the source forever;
//   - otherwise it waits for its receive half only (its source, or any
//     member for MPI_ANY_SOURCE). Waiting for both halves, as a blocking
//     send and a receive would, made two ranks whose eager Sendrecv
//     messages to each other were delivered, each receiving from a third
//     rank that was still computing, a cycle: a deadlock that was not.
//     A real one among such ranks is found once the third rank sends and
//     finalizes (the case above) or blocks.
func (a *Analysis) sendrecv(r *Rank, c *trace.Call, name string) *waitfor.Cond {
	recvsFrom := len(r.RecvsFrom)
	rc := a.recv(r, c, name)
	if isDone(rc) {
		return a.send(r, c, name) // the receive half completes
	}
	if src := a.Ranks[world(r, c.Word("comm"), a.source(r, c))]; src != nil && src.Finalizing &&
		rc.Kind == waitfor.Proc && rc.Proc == src.Proc.Rank {
		if a.sendPosted(r, c) {
			return rc // its send completes: the message never came
		}
		r.RecvsFrom = r.RecvsFrom[:recvsFrom] // received already, or never: see above
		return a.send(r, c, name)
	}
	// The send half, complete or not, adds nothing certain (nor does it to
	// SendsTo): the call waits for its receive.
	return rc
}

// sendPosted reports whether rank r's send c goes to MPI_PROC_NULL or to a
// rank that has posted a receive it can match: the MPI completes it,
// whatever the buffering.
func (a *Analysis) sendPosted(r *Rank, c *trace.Call) bool {
	comm, dest := c.Word("comm"), c.Int("dest")
	if isConst(r.Proc, "MPI_PROC_NULL", dest) {
		return true
	}
	d := a.Ranks[world(r, comm, dest)]
	return d != nil && a.posted(r, c, d)
}

// isDone reports whether a condition waits for no one.
func isDone(c *waitfor.Cond) bool { return c.Kind == waitfor.All && len(c.Sub) == 0 }

// inProgress returns the calls of rank r's point-to-point operations in
// progress: those of its active requests (the calls that created them:
// MPI_Irecv, MPI_Send_init, ...) and the blocking calls its threads are in.
func (r *Rank) inProgress() []*trace.Call {
	if r.follow {
		return r.pending
	}
	r.follow = true
	r.live = r.objects(r.Proc).Live
	for _, o := range r.live {
		if o.Kind == "request" && o.Active && o.Created.Def.Has("p2p") {
			r.pending = append(r.pending, o.Created)
		}
	}
	for _, c := range r.Proc.Threads {
		if !c.Returned && c.Def.Has("p2p") && c.Def.Has("blocking") {
			r.pending = append(r.pending, c)
		}
	}
	if len(r.Proc.Threads) == 0 {
		if c := r.Proc.Last(); c != nil && !c.Returned && c.Def.Has("p2p") && c.Def.Has("blocking") {
			r.pending = append(r.pending, c)
		}
	}
	return r.pending
}

// posted reports whether rank d has a receive in progress that send c of
// rank s can match.
func (a *Analysis) posted(s *Rank, c *trace.Call, d *Rank) bool {
	for _, x := range d.inProgress() {
		if (x.Def.Has("recv") || x.Def.Has("probe")) && a.matches(s, c, d, x) {
			return true
		}
	}
	return false
}

// sending reports whether rank s has a send in progress that receive c of
// rank d can match.
func (a *Analysis) sending(s *Rank, d *Rank, c *trace.Call) bool {
	for _, x := range s.inProgress() {
		if x.Def.Has("send") && a.matches(s, x, d, c) {
			return true
		}
	}
	return false
}

// matches reports whether send sc of rank s and receive (or probe) rc of
// rank d can match: same communicator, the send addressed to d, the
// receive from s or MPI_ANY_SOURCE, the tags equal or MPI_ANY_TAG. Where
// the records cannot tell (a communicator one side cannot name, an
// intercommunicator, whose two sides name it differently) it errs towards
// a match.
func (a *Analysis) matches(s *Rank, sc *trace.Call, d *Rank, rc *trace.Call) bool {
	scomm, rcomm := sc.Word("comm"), rc.Word("comm")
	if !rc.HasField("source") {
		return false // a matched-message receive takes no new message
	}
	if !s.Comms.IsInter(scomm) && !d.Comms.IsInter(rcomm) {
		ks, kr := s.Comms.KeyOf(sc), d.Comms.KeyOf(rc)
		if ks != kr && !strings.HasPrefix(ks, "unknown:") && !strings.HasPrefix(kr, "unknown:") {
			return false
		}
	}
	if w := world(s, scomm, sc.Int("dest")); w >= 0 && w != d.Proc.Rank {
		return false
	}
	if src := a.source(d, rc); !isConst(d.Proc, "MPI_ANY_SOURCE", src) {
		if w := world(d, rcomm, src); w >= 0 && w != s.Proc.Rank {
			return false
		}
	}
	stag, rtag := tag(sc, "sendtag"), tag(rc, "recvtag")
	return isConst(d.Proc, "MPI_ANY_TAG", rtag) || stag == rtag
}

// tag is the tag of a point-to-point call (field tag, or the named side's
// of MPI_Sendrecv).
func tag(c *trace.Call, side string) int64 {
	if c.HasField(side) {
		return c.Int(side)
	}
	return c.Int("tag")
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
	switch {
	case name == "MPI_Sendrecv" || name == "MPI_Sendrecv_replace":
		return a.sendrecv(r, c, name)
	case c.Def.Has("recv") || c.Def.Has("probe"):
		return a.recv(r, c, name)
	case c.Def.Has("send"):
		return a.send(r, c, name)
	case c.Def.Has("finalize"):
		return a.collective(r, c, true)
	case c.Def.Has("init"):
		return a.initWait(r, name)
	case c.Def.Has("coll"):
		return a.collective(r, c, false)
	case c.Def.Has("completion"):
		return a.requests(r)
	case c.Def.Has("rma"):
		if cond := a.rma(r, c); cond != nil {
			return cond
		}
	}
	// MPI_Buffer_detach waits for the buffered sends to be delivered, to
	// ranks it does not name: any other rank that can act may release it.
	var others []int
	for id, o := range a.Ranks {
		if id != r.Proc.Rank && o.State != waitfor.Finished {
			others = append(others, id)
		}
	}
	return waitfor.AnyProc(name, others...)
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
	k := r.Comms.Position(c, key)
	// Every member: both groups of an intercommunicator (Members gives
	// only the remote one, the ranks its point-to-point calls name).
	for _, m := range r.Comms.All(c.Word("comm")) {
		o := a.Ranks[m]
		if m == r.Proc.Rank || o == nil {
			continue
		}
		// (A member more than comms.Recent collectives ahead of the
		// rank has passed this one: it arrived.)
		if k >= 0 && k < o.Comms.Collectives(key) {
			if th := o.Comms.Collective(key, k); th == nil || th.Name() == c.Name() && sameArgs(o.Proc, th, r.Proc, c) {
				continue // arrived
			}
		}
		wait = append(wait, m)
	}
	if a.buffered {
		wait = eager(r, c, wait)
	}
	return waitfor.AllProcs(c.Name(), wait...)
}

// eager narrows what a rank in a rooted collective waits for to the data
// it needs, as an MPI that does not synchronise the collective makes it
// (the buffered view, NeedsBuffering): the root of MPI_Bcast or
// MPI_Scatter and the other ranks of MPI_Reduce or MPI_Gather leave once
// their data is sent; the others wait for the root, or the root for all.
// A program that deadlocks only when such a collective synchronises, which
// the standard allows, relies on buffering too (--buffering=zero makes them
// synchronise).
func eager(r *Rank, c *trace.Call, wait []int) []int {
	if !c.HasField("root") || r.Comms.IsInter(c.Word("comm")) {
		return wait
	}
	members := r.Comms.Members(c.Word("comm"))
	root := int(c.Int("root"))
	if root < 0 || root >= len(members) {
		return wait
	}
	fromRoot := strings.Contains(c.Name(), "cast") || strings.Contains(c.Name(), "catter")
	toRoot := strings.Contains(c.Name(), "educe") || strings.Contains(c.Name(), "ather")
	atRoot := members[root] == r.Proc.Rank
	switch {
	case fromRoot && atRoot, toRoot && !atRoot:
		return nil
	case fromRoot:
		return slices.DeleteFunc(wait, func(m int) bool { return m != members[root] })
	}
	return wait
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
	c := r.Call
	r.inProgress()
	live := r.live
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
	switch {
	case len(keep) == 0:
		return done(c.Name()) // only null or inactive requests: returns at once
	case c.Name() == "MPI_Waitany" || c.Name() == "MPI_Waitsome":
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
	switch {
	case c.Def.Has("file") && !c.Def.Has("fcoll"): // independent I/O needs no other rank
		return nil
	case c.Def.Has("recv"):
		return a.recv(r, c, label)
	case c.Def.Has("send"):
		return a.send(r, c, label)
	case c.Def.Has("coll"):
		cond := a.collective(r, c, false)
		cond.Label = label
		return cond
	case c.Def.Has("collinit"):
		return a.persistent(r, c, label)
	case c.Name() == "MPI_Grequest_start": // only the rank completes it (a thread of its own)
		if o.KnownDone {
			return nil
		}
		return waitfor.AnyProc(label)
	}
	return waitfor.AnyProc(label)
}

// persistent is what a started persistent collective (MPI 4.0), made by
// rank r's initialization init, waits for: the nonblocking collective it
// is. Its n-th start meets the n-th start of every other member's
// initialization at the same position on the communicator; a member that
// has started its own n times has arrived, one that has not (or made a
// different collective there) is waited for.
func (a *Analysis) persistent(r *Rank, init *trace.Call, label string) *waitfor.Cond {
	key, k, n := r.Comms.PersistentOf(init)
	if k < 0 {
		return waitfor.AnyProc(label)
	}
	var wait []int
	for _, m := range r.Comms.All(init.Word("comm")) {
		o := a.Ranks[m]
		if m == r.Proc.Rank || o == nil {
			continue
		}
		th, starts, known := o.Comms.Persistent(key, k)
		if known && (th == nil || starts >= n && th.Name() == init.Name() && sameArgs(o.Proc, th, r.Proc, init)) {
			continue // arrived
		}
		wait = append(wait, m)
	}
	if a.buffered {
		wait = eager(r, init, wait)
	}
	return waitfor.AllProcs(label, wait...)
}

// canBlock reports whether a call can wait for other ranks. A rank inside
// a call that cannot (MPI_Test, MPI_Iprobe, MPI_Isend, MPI_Comm_rank, ...)
// is running, whatever keeps it there for now (the scheduler, SIGSTOP).
func canBlock(c *trace.Call) bool {
	return !c.Def.Has("abort") && (c.Def.Has("blocking") || c.Def.Has("init") || c.Def.Has("finalize"))
}

// blockedIn returns the calls in which the rank's threads that called MPI
// are blocked, and whether every such thread is: inside a call that can
// block, in pthread_join waiting for a thread that is
// (trace.Process.Joining), or asleep outside MPI where only the process's
// own threads can wake it, as every other thread of the process outside
// MPI is (trace.Process.Asleep, seen by the stall watch). A thread outside
// MPI otherwise, or in a call that returns by itself, may still release the
// others; a thread that ended is not among them. So may any thread of the
// process outside MPI, not the MPI's own, that ran during the stall's delay
// (trace.Asleep.Running), whether or not it ever called MPI, unless a
// thread is in MPI_Finalize.
func blockedIn(p *trace.Process) ([]*trace.Call, bool) {
	running := p.Asleep != nil && len(p.Asleep.Running) > 0
	if len(p.Threads) == 0 {
		c := p.Last()
		return []*trace.Call{c}, c != nil && !c.Returned && canBlock(c) && (!running || c.Def.Has("finalize"))
	}
	var in []*trace.Call
	for _, c := range p.Threads {
		if !c.Returned && c.Def.Has("finalize") {
			// no thread may call MPI once one has called MPI_Finalize
			return []*trace.Call{c}, true
		}
	}
	if running {
		return nil, false
	}
	for i, c := range p.Threads {
		if !c.Returned && canBlock(c) {
			in = append(in, c)
		} else if !joinsBlocked(p, i, 0) && !asleep(p, i) {
			return nil, false
		}
	}
	return in, len(in) > 0
}

// asleep reports whether thread i of p, outside MPI, is asleep for good:
// it and every other thread of the process outside MPI wait where only
// the process's own threads can wake them (trace.Asleep.All).
func asleep(p *trace.Process, i int) bool {
	if p.Asleep == nil || !p.Asleep.All || i >= len(p.ThreadSlots) {
		return false
	}
	for _, t := range p.Asleep.Threads {
		if t.Slot == p.ThreadSlots[i] {
			return true
		}
	}
	return false
}

// joinsBlocked reports whether thread i of p waits in pthread_join for a
// thread that is blocked in MPI, or that waits so in its turn.
func joinsBlocked(p *trace.Process, i, depth int) bool {
	if depth > len(p.Threads) || i >= len(p.Joining) || p.Joining[i] < 0 {
		return false
	}
	for j, c := range p.Threads {
		if j < len(p.ThreadSlots) && p.ThreadSlots[j] == p.Joining[i] {
			return (!c.Returned && canBlock(c)) || joinsBlocked(p, j, depth+1)
		}
	}
	return false // the thread it joins has ended
}
