// Package whole is the zero-buffering model of a whole run, every rank's
// operations built before any is simulated, for the analyses that need to
// run it again and again from its start or to see every match at once:
// minimal slack enumeration (Slack: seed 001, §4), which runs the model
// once per set of sends it supposes buffered, and the messages of a run
// (Messages) the report draws.
//
// It is checks/zerobuf's model as it was before that check became a
// co-simulation reading each rank only as far as needed (which keeps its
// memory bounded but cannot be started again). Its cost: one op (about 80
// bytes) per message and collective of the run and one event per call that
// starts or completes one, with that call kept (Call.Keep), for the length
// of the analysis. The ranks' calls are read once each, in a stream
// (trace.Process.Calls); nothing else of them is kept. The driver builds it
// only when asked: for Slack, when a run has wildcard events the explorer
// asks about; for Messages, for a report's trail, bounded by the number of
// calls (spacetime).
package whole

import (
	"fmt"

	"mpivet/checks/internal/objects"
	"mpivet/checks/zerobuf/internal/ops"
	"mpivet/trace"
)

// Blocked is a rank that cannot finish under zero buffering, and the call
// it waits in.
type Blocked struct {
	Rank int
	Call *trace.Call
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
	obj  *objects.Object // a request's operation: its request
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
	// what minimal slack enumeration supposes (mse.go): frozen, the
	// wildcard receive that must stay unmatched; orphan, the send that
	// lost its receive (R's match); extra, a send supposed buffered
	frozen, orphan, extra bool
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
		switch {
		case o.frozen:
			return false
		case o.cancelled || o.buffered || o.extra:
			return true
		case o.orphan:
			return false
		}
		return o.peer == nil || o.peer.posted
	case collOp:
		return o.coll.arrived >= o.coll.need
	}
	return true
}

// rank is one rank's part in the simulation.
type rank struct {
	p       *trace.Process
	world   int
	ords    map[uint64]uint64 // standard-mode sends' numbers, by entry record (Slack)
	events  []*event
	pos     int
	entered bool // events[pos] has posted its operations
}

func newSim() *sim {
	return &sim{colls: map[ops.CollID]*coll{}, ranks: map[int]*rank{}, commIDs: map[string]int32{}, probers: map[*op][]*op{}}
}

type sim struct {
	lenient bool // match: leave out what cannot be paired (Messages)
	ranks   map[int]*rank
	order   []int // world ranks in the order built
	colls   map[ops.CollID]*coll
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

// build turns rank p's calls into events, reading them once from its log
// (trace.Process.Calls). It keeps only what the replay needs (an event per
// call that starts or completes an operation, an operation per message
// and collective, the calls of those kept apart: Call.Keep), not an index
// of every call. A request's operations are made as an objects.Follower,
// stepped along, reports their starts and completions.
func (s *sim) build(p *trace.Process) string {
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
	r := &rank{p: p, world: p.Rank, ords: map[uint64]uint64{}}
	s.ranks[p.Rank], s.order = r, append(s.order, p.Rank)
	q := &requests{b: newBuilder(s, p, r.world), tmpl: map[uint64]*op{}, cur: map[*objects.Object]*op{}}
	f := objects.NewFollower(p)
	f.Start, f.Done, f.Gone = q.started, q.completed, q.gone
	var nstd uint64 // standard-mode sends so far (as layer/src/slack numbers them)
	for c := range p.Calls() {
		if c.Def.Has("finalize") {
			break
		}
		d := c.Def
		if d.Has("p2p") || d.Has("coll") || d.Has("completion") || d.Has("start") {
			c = c.Keep() // may be kept with an event or operation
		}
		if nm := c.Name(); nm == "MPI_Send" || nm == "MPI_Isend" {
			r.ords[c.Offset] = nstd
			nstd++
		}
		e := &event{call: c}
		for _, o := range q.b.posted(c, q.tmpl) {
			e.posts, e.waits = append(e.posts, o), append(e.waits, o)
			o.waited = true
		}
		if q.b.Why != "" {
			return q.b.Why
		}
		q.b.Comms.Created(c)
		keep := len(e.posts) > 0 || d.Has("completion") || d.Has("start") || q.tmpl[c.Offset] != nil
		q.e = e
		f.Step(c) // its requests: started, completed (the hooks)
		q.e = nil
		if keep {
			r.events = append(r.events, e)
		}
		if t := q.tmpl[c.Offset]; t != nil && !d.Has("persistent") {
			delete(q.tmpl, c.Offset) // (no request made, or started already)
		}
	}
	// a request cancelled later: all its operations (as the records of
	// the whole run say)
	for _, x := range q.made {
		x.cancelled = x.obj.Cancelled
	}
	return ""
}

// requests makes the operations of one rank's requests as its Follower
// reports them: each starts at the call that started it and is waited
// for by the call that completed it.
type requests struct {
	b    *builder
	e    *event                  // the event of the call being followed
	tmpl map[uint64]*op          // operations of the calls that create requests, by entry record
	cur  map[*objects.Object]*op // each live request's current operation
	made []*op                   // every request operation, for their cancellation
}

// started: call c started an operation of request o, of the kind its
// creating call made (a persistent request's operations are alike).
func (q *requests) started(o *objects.Object, c *trace.Call) {
	t := q.tmpl[o.Created.Offset]
	if t == nil || q.e == nil {
		return // started at or after MPI_Finalize
	}
	x := t
	if o.Persistent {
		cp := *t
		x = &cp
	} else {
		delete(q.tmpl, o.Created.Offset)
	}
	x.obj = o
	if x.kind == recvOp && x.src < 0 {
		x.src = int32(q.b.SourceOf(c, nil, o.Created))
	}
	q.e.posts = append(q.e.posts, x)
	q.cur[o] = x
	q.made = append(q.made, x)
}

// completed: call c completed request o's current operation.
func (q *requests) completed(o *objects.Object, c *trace.Call) {
	x := q.cur[o]
	if x == nil || q.e == nil {
		return
	}
	q.e.waits = append(q.e.waits, x)
	x.waited = true
	if x.kind == recvOp && x.src < 0 {
		x.src = int32(q.b.SourceOf(o.Created, c, o.Created)) // (its start's wildcard record was looked at when started)
	}
	delete(q.cur, o)
}

// gone: request o is freed; its operations are with their events.
func (q *requests) gone(o *objects.Object) {
	delete(q.cur, o)
	delete(q.tmpl, o.Created.Offset)
}

// posted returns the operations call c starts and waits for itself (a
// blocking call's), and keeps in tmpl those of a call that creates a
// request, which the request's starts and completions post and wait for
// (requests).
func (b *builder) posted(c *trace.Call, tmpl map[uint64]*op) []*op {
	d := c.Def
	switch {
	case d.Has("coll") && c.HasField("comm"):
		// numbered in call order; a nonblocking one is started
		// below, with its request
		o := b.collective(c)
		if d.Has("blocking") {
			return []*op{o}
		}
		tmpl[c.Offset] = o
	case d.Has("p2p") && !d.Has("blocking"):
		switch {
		case !c.Returned || (c.HasField("flag") && c.Int("flag") == 0):
		case d.Has("probe"): // a successful MPI_Iprobe or MPI_Improbe waits like a probe
			o := b.p2p(c, probeOp, "source", "tag")
			if c.Name() == "MPI_Improbe" {
				o.kind = recvOp
			}
			return []*op{o}
		case c.Name() == "MPI_Imrecv":
			tmpl[c.Offset] = &op{kind: localOp, rank: int32(b.World), call: c}
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
		return []*op{o}
	case c.Name() == "MPI_Mrecv":
		// the message was taken by its MPI_Mprobe
	case d.Has("send") && d.Has("recv"):
		return []*op{b.p2p(c, sendOp, "dest", "sendtag"), b.p2p(c, recvOp, "source", "recvtag")}
	case d.Has("send"):
		return []*op{b.p2p(c, sendOp, "dest", "tag")}
	case d.Has("recv"):
		return []*op{b.p2p(c, recvOp, "source", "tag")}
	}
	return nil
}

// builder makes one rank's operations for the simulation s, from its
// calls as ops.Rank reads them.
type builder struct {
	*ops.Rank
	s *sim
}

func newBuilder(s *sim, p *trace.Process, rank int) *builder {
	return &builder{Rank: ops.New(p, rank), s: s}
}

// p2p makes the operation of one side of a point-to-point call.
func (b *builder) p2p(c *trace.Call, kind opKind, peerField, tagField string) *op {
	sd := b.P2P(c, kind == sendOp, peerField, tagField)
	var comm int32
	if sd.Comm != "" {
		comm = b.s.commID(sd.Comm)
	}
	if sd.Local {
		return &op{kind: localOp, rank: int32(b.World), call: c}
	}
	return &op{kind: kind, rank: int32(b.World), comm: comm, tag: sd.Tag, anyTag: sd.AnyTag, call: c,
		src: int32(sd.Src), dst: int32(sd.Dst), buffered: sd.Buffered}
}

// collective makes the operation of a rank's part in a collective, the
// one every member's part shares.
func (b *builder) collective(c *trace.Call) *op {
	id, ms, ok := b.Collective(c)
	if !ok {
		return &op{kind: localOp, rank: int32(b.World), call: c}
	}
	cl := b.s.colls[id]
	if cl == nil {
		cl = &coll{need: len(ms), members: ms}
		b.s.colls[id] = cl
	}
	return &op{kind: collOp, rank: int32(b.World), coll: cl, call: c}
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
					if !o.waited || o.cancelled || s.lenient {
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
				if o.peer == nil && o.waited && !o.cancelled && !s.lenient {
					return fmt.Sprintf("the message rank %d received in %s is not in the records", w, o.call.Name())
				}
			}
		}
	}
	return ""
}

// Pair is a message of a run: the call that sent it and the call that
// received it (for a nonblocking receive, the call that started it), by
// world rank.
type Pair struct {
	From, To   int
	Send, Recv *trace.Call
}

// Messages pairs the sends and receives of a run as the MPI matched them
// (see match), for the space-time diagram of the report. It also pairs
// what a run that did not end left (a receive still blocked is not
// paired), and returns nil, with why, where the records cannot tell (see
// zerobuf.Result.Why). Its memory grows with the messages of the run.
func Messages(run *trace.Run) ([]Pair, string) {
	s := newSim()
	s.lenient = true
	for _, p := range run.Procs {
		if why := s.build(p); why != "" {
			return nil, why
		}
	}
	s.match()
	var out []Pair
	for _, w := range s.order {
		for _, e := range s.ranks[w].events {
			for _, o := range e.posts {
				if o.kind == recvOp && o.peer != nil {
					out = append(out, Pair{From: int(o.peer.rank), To: int(o.rank), Send: o.peer.call, Recv: o.call})
				}
			}
		}
	}
	return out, ""
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
