// Package zerobuf replays the matches of a recorded run under zero
// buffering, offline: every standard-mode send waits until its receive is
// posted, as if the MPI buffered nothing (MPI_Ssend), the way MUST's
// wait-state analysis treats standard sends. A run that cannot end so
// relies on buffering the standard does not guarantee (unsafe-buffering).
//
// It answers from the records of the run that already happened, so the
// default mpivet run needs no second run of the program to look for
// buffering hazards: the driver runs the program again with zero buffering
// only to confirm a suspicion, where the real MPI's wait-for graph shows the
// deadlock with its lines.
//
// The model, rank by rank in the order of its calls:
//   - a send (blocking, nonblocking or persistent) completes when the
//     receive that took its message has been posted; buffered sends
//     (MPI_Bsend, MPI_Ibsend) and sends no receive took (unreceived
//     messages, reported by their own check) complete at once;
//   - a receive completes when the send of its message has been posted; so
//     does a probe, which does not take the message;
//   - a collective (and a communicator constructor) completes when every
//     member of its communicator has called it: the standard lets any
//     collective synchronise;
//   - a completion call (MPI_Wait..., and an MPI_Test... that succeeded:
//     under zero buffering the program polls until it does) waits for the
//     operations it completed in the run, MPI_Waitany the one it returned;
//   - every other call is local, MPI_Finalize ends the rank.
//
// Matches are those of the run: a receive takes the earliest message from
// its source that it can match (non-overtaking), sources of MPI_ANY_SOURCE
// come from the wildcard records or the statuses. The model errs towards
// waiting (collectives synchronise, MPI_Waitany waits for the operation it
// returned), so a suspicion is only that: the driver confirms it with a run.
package zerobuf

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"mpivet/check"
	"mpivet/checks/internal/comms"
	"mpivet/checks/internal/objects"
	"mpivet/trace"
)

// Result is the outcome of one simulation.
type Result struct {
	// Checked is false when the records do not say enough to simulate the
	// run (Why says what is missing); the driver then runs the program
	// again instead.
	Checked bool
	Why     string
	Matches int // messages matched to their receives
	// Stuck are the calls in which ranks would wait forever without
	// buffering, by world rank; empty when the run ends without buffering.
	Stuck []Blocked
}

// Blocked is a rank that cannot go on.
type Blocked struct {
	Rank int
	Call *trace.Call
}

// String says where the ranks wait, for notes.
func (r *Result) String() string {
	var s []string
	for _, b := range r.Stuck {
		s = append(s, fmt.Sprintf("rank %d in %s", b.Rank, b.Call.Name()))
	}
	return strings.Join(s, ", ")
}

type opKind uint8

const (
	sendOp  opKind = iota
	recvOp         // takes the message of peer
	probeOp        // waits for the message of peer without taking it
	collOp
	localOp // completes at once (MPI_Imrecv, PROC_NULL, a communicator not recorded)
)

// op is one operation of a rank. There is one per message and
// collective of the run, so it is kept small.
type op struct {
	peer *op   // the matching send or receive (nil: none)
	coll *coll // for collOp
	call *trace.Call
	tag  int64
	// matching data
	comm      int32 // communicator (sim.commID of its key)
	rank      int32
	src, dst  int32 // world ranks; src -1 for a receive: unknown
	kind      opKind
	posted    bool
	anyTag    bool
	cancelled bool
	buffered  bool // a buffered send (MPI_Bsend, MPI_Ibsend): complete at once
	waited    bool // a call waits for it
}

type coll struct {
	need, arrived int
	members       []int
}

// event is one call of a rank: the operations it starts and those it waits for.
type event struct {
	call  *trace.Call
	posts []*op
	waits []*op
}

func (o *op) complete() bool {
	switch o.kind {
	case sendOp, recvOp, probeOp:
		return o.cancelled || o.buffered || o.peer == nil || o.peer.posted
	case collOp:
		return o.coll.arrived >= o.coll.need
	}
	return true
}

// rank is one rank's part in the simulation.
type rank struct {
	p       *trace.Process
	world   int
	events  []*event
	pos     int
	entered bool // events[pos] has posted its operations
}

// Analyzer replays an execution's matches under zero buffering. It is a
// result-only analysis the run driver asks for (check.Unit.Result) on the
// first interleaving; it reuses the objects the checks followed.
var Analyzer = &check.Check{
	Name: "zerobuf",
	Doc: `the matches of an execution replayed with zero buffering

A result-only analysis for the run driver: whether every rank would end if
standard-mode sends were synchronous (Result).`,
	Requires:   []*check.Check{objects.Analyzer},
	ResultType: reflect.TypeOf((*Result)(nil)),
	Run: func(pass *check.Pass) (any, error) {
		return simulate(pass.In.Run, pass.ResultOf[objects.Analyzer].(*objects.Result)), nil
	},
}

// Simulate replays run's matches under zero buffering.
func Simulate(run *trace.Run) *Result {
	r, err := check.NewUnit(&check.Input{Run: run}).Result(Analyzer)
	if err != nil {
		return &Result{Why: err.Error()}
	}
	return r.(*Result)
}

func simulate(run *trace.Run, objs *objects.Result) *Result {
	s := &sim{colls: map[collID]*coll{}, ranks: map[int]*rank{}, commIDs: map[string]int32{}, probers: map[*op][]*op{}}
	for _, p := range run.Procs {
		if why := s.build(p, objs.Of(p)); why != "" {
			return &Result{Why: why}
		}
	}
	if why := s.match(); why != "" {
		return &Result{Why: why}
	}
	res := &Result{Checked: true, Matches: s.matches, Stuck: s.run()}
	sort.Slice(res.Stuck, func(i, j int) bool { return res.Stuck[i].Rank < res.Stuck[j].Rank })
	return res
}

type sim struct {
	ranks   map[int]*rank
	order   []int // world ranks in the order built
	colls   map[collID]*coll
	commIDs map[string]int32 // communicator keys, numbered
	probers map[*op][]*op    // the probes that wait for a send
	matches int
}

// commID numbers a communicator key.
func (s *sim) commID(key string) int32 {
	id, ok := s.commIDs[key]
	if !ok {
		id = int32(len(s.commIDs))
		s.commIDs[key] = id
	}
	return id
}

// build turns rank p's calls into events. It keeps only what the
// replay needs (an event per call that starts or completes an operation,
// an operation per message and collective), not an index of every call:
// the records of a long run are large already.
func (s *sim) build(p *trace.Process, objs *objects.State) string {
	if p.Rank < 0 {
		return "a process never initialised MPI"
	}
	if p.Overflow {
		return fmt.Sprintf("rank %d's records are incomplete", p.Rank)
	}
	if len(p.Threads) > 1 {
		return fmt.Sprintf("rank %d called MPI from several threads (their orders are not recorded apart)", p.Rank)
	}
	if _, dup := s.ranks[p.Rank]; dup {
		return fmt.Sprintf("rank %d appears twice", p.Rank)
	}
	r := &rank{p: p, world: p.Rank}
	s.ranks[p.Rank], s.order = r, append(s.order, p.Rank)
	b := newBuilder(s, p, r.world)
	objs = objects.FollowAll(p) // every request, with its operations
	evAt := map[int]*event{}    // by Seq
	tmpl := map[uint64]*op{}    // operations of the calls that create requests
	for c := range p.Calls() {
		if c.Def.Has("finalize") {
			break
		}
		e := &event{call: c}
		d := c.Def
		post := func(os ...*op) {
			for _, o := range os {
				e.posts, e.waits = append(e.posts, o), append(e.waits, o)
				o.waited = true
			}
		}
		switch {
		case d.Has("coll") && c.HasField("comm"):
			// numbered in call order; a nonblocking one is started
			// below, with its request
			if o := b.collective(c); d.Has("blocking") {
				post(o)
			} else {
				tmpl[c.Offset] = o
			}
		case d.Has("p2p") && !d.Has("blocking"):
			switch {
			case !c.Returned || (c.HasField("flag") && c.Int("flag") == 0):
			case d.Has("probe"): // a successful MPI_Iprobe or MPI_Improbe waits like a probe
				o := b.p2p(c, probeOp, "source", "tag")
				if c.Name() == "MPI_Improbe" {
					o.kind = recvOp
				}
				post(o)
			case c.Name() == "MPI_Imrecv":
				tmpl[c.Offset] = &op{kind: localOp, rank: int32(r.world), call: c}
			case d.Has("send"):
				tmpl[c.Offset] = b.p2p(c, sendOp, "dest", "tag")
			case d.Has("recv"):
				tmpl[c.Offset] = b.p2p(c, recvOp, "source", "tag")
			}
		case !d.Has("p2p"):
		case d.Has("probe"):
			o := b.p2p(c, probeOp, "source", "tag")
			if c.Name() == "MPI_Mprobe" {
				o.kind = recvOp
			}
			post(o)
		case c.Name() == "MPI_Mrecv":
			// the message was taken by its MPI_Mprobe
		case d.Has("send") && d.Has("recv"):
			post(b.p2p(c, sendOp, "dest", "sendtag"), b.p2p(c, recvOp, "source", "recvtag"))
		case d.Has("send"):
			post(b.p2p(c, sendOp, "dest", "tag"))
		case d.Has("recv"):
			post(b.p2p(c, recvOp, "source", "tag"))
		}
		if b.why != "" {
			return b.why
		}
		b.comms.Created(c)
		if len(e.posts) > 0 || d.Has("completion") || d.Has("start") || tmpl[c.Offset] != nil {
			r.events = append(r.events, e)
			if c.Seq >= 0 {
				evAt[c.Seq] = e
			}
		}
	}
	at := func(c *trace.Call) *event {
		if c != nil && c.Seq >= 0 {
			return evAt[c.Seq]
		}
		return nil
	}
	// Requests: each operation starts at the call that started it and is
	// waited for by the call that completed it.
	for _, o := range objs.Requests {
		t := tmpl[o.Created.Offset]
		for i, use := range o.Ops {
			e := at(use.Start)
			if e == nil || t == nil {
				continue // started at or after MPI_Finalize
			}
			x := t
			if i > 0 || o.Persistent {
				cp := *t // a persistent request's operations are alike
				x = &cp
			}
			if x.kind == recvOp && x.src < 0 {
				x.src = int32(b.sourceOf(use.Start, use.Done, o.Created))
			}
			x.cancelled = o.Cancelled
			e.posts = append(e.posts, x)
			if de := at(use.Done); de != nil {
				de.waits = append(de.waits, x)
				x.waited = true
			}
		}
	}
	return ""
}

// builder makes one rank's operations, following its communicators as
// its calls create them.
type builder struct {
	s                           *sim
	rank                        int
	anySource, anyTag, procNull int64
	comms                       *comms.Tracker
	collSeq                     map[string]int // collectives made on each communicator
	wild                        map[uint64]*trace.Wildcard
	why                         string
}

func newBuilder(s *sim, p *trace.Process, rank int) *builder {
	b := &builder{s: s, rank: rank, comms: comms.NewTracker(p), collSeq: map[string]int{}, wild: map[uint64]*trace.Wildcard{}}
	konst := func(name string) int64 {
		if v, ok := p.Const(name); ok {
			return int64(v)
		}
		return -1 << 40
	}
	b.anySource, b.anyTag, b.procNull = konst("MPI_ANY_SOURCE"), konst("MPI_ANY_TAG"), konst("MPI_PROC_NULL")
	// the sources of wildcard receives and probes, by the record of the
	// call that started them
	for _, w := range p.Wild {
		if w.Matched && w.Offset != trace.Unknown && w.World >= 0 {
			b.wild[w.Offset] = w
		}
	}
	return b
}

// comm returns the key of call c's communicator (the same on every rank),
// the world ranks its point-to-point calls name (an intercommunicator's
// remote group) and all its members; nil members if the records do not
// say who they are.
func (b *builder) comm(c *trace.Call) (key string, p2p, all []int) {
	h := c.Word("comm")
	if !b.comms.Known(h) {
		return "", nil, nil
	}
	return b.comms.Key(h), b.comms.Members(h), b.comms.All(h)
}

func world(ms []int, r int64) int {
	if r >= 0 && r < int64(len(ms)) {
		return ms[r]
	}
	return -1
}

// p2p makes the operation of one side of a point-to-point call.
func (b *builder) p2p(c *trace.Call, kind opKind, peerField, tagField string) *op {
	key, ms, _ := b.comm(c)
	peer, tag := c.Int(peerField), c.Int(tagField)
	local := &op{kind: localOp, rank: int32(b.rank), call: c}
	if peer == b.procNull {
		return local
	}
	if ms == nil {
		b.why = fmt.Sprintf("rank %d used a communicator the records do not describe (%s)", b.rank, c.Name())
		return local
	}
	o := &op{kind: kind, rank: int32(b.rank), comm: b.s.commID(key), tag: tag, anyTag: tag == b.anyTag, call: c}
	if kind == sendOp {
		o.src, o.dst = int32(b.rank), int32(world(ms, peer))
		if o.dst < 0 {
			return local
		}
		if strings.Contains(strings.ToLower(c.Name()), "bsend") {
			o.buffered = true // matched, but complete at once
		}
		return o
	}
	o.dst, o.src = int32(b.rank), -1
	if peer != b.anySource {
		o.src = int32(world(ms, peer))
	} else if st := c.Words("status"); len(st) == 2 && int64(st[0]) >= 0 && c.Returned {
		o.src = int32(world(ms, int64(st[0])))
	} else if w := b.wild[c.Offset]; w != nil && c.Seq >= 0 {
		o.src = int32(w.World)
	}
	return o
}

// sourceOf finds the source of a request's receive from MPI_ANY_SOURCE:
// the wildcard record of the call that started it, or the status of the
// call that completed it (-1: not recorded).
func (b *builder) sourceOf(start, done, created *trace.Call) int {
	if w := b.wild[start.Offset]; w != nil {
		return w.World
	}
	if done != nil && done.HasField("status") {
		if st := done.Words("status"); len(st) == 2 && int64(st[0]) >= 0 {
			_, ms, _ := b.comm(created)
			return world(ms, int64(st[0]))
		}
	}
	return -1
}

type collID struct {
	comm string
	n    int
}

// collective makes the operation of a rank's part in a collective: the
// n-th on its communicator, which every member makes.
func (b *builder) collective(c *trace.Call) *op {
	key, _, ms := b.comm(c)
	if ms == nil {
		b.why = fmt.Sprintf("rank %d used a communicator the records do not describe (%s)", b.rank, c.Name())
		return &op{kind: localOp, rank: int32(b.rank), call: c}
	}
	id := collID{key, b.collSeq[key]}
	b.collSeq[key]++
	cl := b.s.colls[id]
	if cl == nil {
		cl = &coll{need: len(ms), members: ms}
		b.s.colls[id] = cl
	}
	return &op{kind: collOp, rank: int32(b.rank), coll: cl, call: c}
}

// match pairs each receive with the send of its message: per receiving
// rank, in the order the receives were posted, the earliest message from
// its source on its communicator that it matches and no earlier receive
// took. That is the MPI's own outcome whatever the timing: messages from
// one sender do not overtake each other, and the wildcard sources are
// those of the run.
func (s *sim) match() string {
	type channel struct {
		to, from, comm int32
	}
	type queue struct {
		sends []*op
		head  int // sends before it are all taken
	}
	queues := map[channel]*queue{}
	for _, w := range s.order {
		for _, e := range s.ranks[w].events {
			for _, o := range e.posts {
				if o.kind == sendOp {
					ch := channel{o.dst, o.src, o.comm}
					q := queues[ch]
					if q == nil {
						q = &queue{}
						queues[ch] = q
					}
					q.sends = append(q.sends, o)
				}
			}
		}
	}
	taken := map[*op]bool{}
	for _, w := range s.order {
		for _, e := range s.ranks[w].events {
			for _, o := range e.posts {
				if o.kind != recvOp && o.kind != probeOp {
					continue
				}
				if o.src < 0 {
					if !o.waited || o.cancelled {
						continue
					}
					return fmt.Sprintf("the source of rank %d's receive from MPI_ANY_SOURCE (%s) is not recorded", w, o.call.Name())
				}
				q := queues[channel{int32(w), o.src, o.comm}]
				if q == nil {
					q = &queue{}
				}
				for q.head < len(q.sends) && taken[q.sends[q.head]] {
					q.head++
				}
				for _, m := range q.sends[q.head:] {
					if taken[m] || (!o.anyTag && m.tag != o.tag) {
						continue
					}
					if o.kind == probeOp {
						o.peer = m
						s.probers[m] = append(s.probers[m], o)
					} else {
						taken[m] = true
						o.peer, m.peer = m, o
						s.matches++
					}
					break
				}
				if o.peer == nil && o.waited && !o.cancelled {
					return fmt.Sprintf("the message rank %d received in %s is not in the records", w, o.call.Name())
				}
			}
		}
	}
	return ""
}

// run advances every rank as far as zero buffering lets it, and returns
// those that cannot finish.
func (s *sim) run() []Blocked {
	work := append([]int{}, s.order...)
	queued := map[int]bool{}
	for _, w := range work {
		queued[w] = true
	}
	wake := func(w int) {
		if !queued[w] {
			queued[w] = true
			work = append(work, w)
		}
	}
	for len(work) > 0 {
		w := work[len(work)-1]
		work = work[:len(work)-1]
		queued[w] = false
		r := s.ranks[w]
	events:
		for r.pos < len(r.events) {
			e := r.events[r.pos]
			if !r.entered {
				r.entered = true
				for _, o := range e.posts {
					o.posted = true
					switch {
					case o.kind == collOp:
						o.coll.arrived++
						if o.coll.arrived == o.coll.need {
							for _, m := range o.coll.members {
								wake(m)
							}
						}
					case o.peer != nil:
						wake(int(o.peer.rank))
					}
					for _, pr := range s.probers[o] {
						wake(int(pr.rank))
					}
				}
			}
			for _, o := range e.waits {
				if !o.complete() {
					break events
				}
			}
			r.pos++
			r.entered = false
		}
	}
	var stuck []Blocked
	for _, w := range s.order {
		if r := s.ranks[w]; r.pos < len(r.events) {
			stuck = append(stuck, Blocked{Rank: w, Call: r.events[r.pos].call})
		}
	}
	return stuck
}
