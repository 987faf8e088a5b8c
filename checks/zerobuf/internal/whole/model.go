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

// rank is one rank's part in the simulation.
type rank struct {
	p       *trace.Process
	world   int
	ords    map[uint64]uint64 // standard-mode sends' numbers, by entry record (Slack)
	events  []*ops.Event
	pos     int
	entered bool // events[pos] has posted its operations
}

func newSim() *sim {
	return &sim{table: ops.NewTable(), ranks: map[int]*rank{}, probers: map[*ops.Op][]*ops.Op{}}
}

type sim struct {
	lenient bool // match: leave out what cannot be paired (Messages)
	ranks   map[int]*rank
	order   []int // world ranks in the order built
	table   *ops.Table
	probers map[*ops.Op][]*ops.Op // the probes that wait for a send
	matches int
}

// build turns rank p's calls into events, reading them once from its log
// (trace.Process.Calls). It keeps only what the replay needs (an event per
// call that starts or completes an operation, an operation per message
// and collective, the calls of those kept apart: Call.Keep), not an index
// of every call. A request's operations are made as an objects.Follower,
// stepped along, reports their starts and completions.
func (s *sim) build(p *trace.Process) string {
	if why := ops.Usable(p); why != "" {
		return why
	}
	if _, dup := s.ranks[p.Rank]; dup {
		return fmt.Sprintf("rank %d appears twice", p.Rank)
	}
	r := &rank{p: p, world: p.Rank, ords: map[uint64]uint64{}}
	s.ranks[p.Rank], s.order = r, append(s.order, p.Rank)
	q := &requests{b: ops.New(p, r.world, s.table), Requests: ops.NewRequests()}
	f := objects.NewFollower(p)
	f.Start, f.Done, f.Gone = q.started, q.completed, q.Gone
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
		e := &ops.Event{Call: c}
		posted, t := q.b.Ops(c)
		e.Post(posted...)
		q.Made(c, t)
		if q.b.Why != "" {
			return q.b.Why
		}
		q.b.Comms.Created(c)
		keep := len(e.Posts) > 0 || d.Has("completion") || d.Has("start") || t != nil
		q.e = e
		f.Step(c) // its requests: started, completed (the hooks)
		q.e = nil
		if keep {
			r.events = append(r.events, e)
		}
		q.Read(c)
	}
	// a request cancelled later: all its operations (as the records of
	// the whole run say)
	for _, x := range q.made {
		x.Cancelled = x.Obj.Cancelled
	}
	return ""
}

// requests makes the operations of one rank's requests as its Follower
// reports them: each starts at the call that started it and is waited
// for by the call that completed it.
type requests struct {
	b *ops.Rank
	*ops.Requests
	e    *ops.Event // the event of the call being followed
	made []*ops.Op  // every request operation, for their cancellation
}

// started: call c started an operation of request o, of the kind its
// creating call made (a persistent request's operations are alike).
func (q *requests) started(o *objects.Object, c *trace.Call) {
	if q.e == nil {
		return // started at or after MPI_Finalize
	}
	x := q.Start(o)
	if x == nil {
		return
	}
	if x.Kind == ops.RecvOp && x.Src < 0 {
		x.Src = int32(q.b.SourceOf(c, nil, o.Created))
	}
	q.e.Posts = append(q.e.Posts, x)
	q.made = append(q.made, x)
}

// completed: call c completed request o's current operation.
func (q *requests) completed(o *objects.Object, c *trace.Call) {
	x := q.Current(o)
	if x == nil || q.e == nil {
		return
	}
	q.e.Waits = append(q.e.Waits, x)
	x.Waited = true
	if x.Kind == ops.RecvOp && x.Src < 0 {
		x.Src = int32(q.b.SourceOf(o.Created, c, o.Created)) // (its start's wildcard record was looked at when started)
	}
	q.Done(o)
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
		sends []*ops.Op
		head  int // sends before it are all taken
	}
	queues := map[channel]*queue{}
	for _, w := range s.order {
		for _, e := range s.ranks[w].events {
			for _, o := range e.Posts {
				if o.Kind == ops.SendOp {
					ch := channel{o.Dst, o.Src, o.Comm}
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
	taken := map[*ops.Op]bool{}
	for _, w := range s.order {
		for _, e := range s.ranks[w].events {
			for _, o := range e.Posts {
				if o.Kind != ops.RecvOp && o.Kind != ops.ProbeOp {
					continue
				}
				if o.Src < 0 {
					if !o.Waited || o.Cancelled || s.lenient {
						continue
					}
					return fmt.Sprintf("the source of rank %d's receive from MPI_ANY_SOURCE (%s) is not recorded", w, o.Call.Name())
				}
				q := queues[channel{int32(w), o.Src, o.Comm}]
				if q == nil {
					q = &queue{}
				}
				for q.head < len(q.sends) && taken[q.sends[q.head]] {
					q.head++
				}
				for _, m := range q.sends[q.head:] {
					if taken[m] || (!o.AnyTag && m.Tag != o.Tag) {
						continue
					}
					if o.Kind == ops.ProbeOp {
						o.Peer = m
						s.probers[m] = append(s.probers[m], o)
					} else {
						taken[m] = true
						o.Peer, m.Peer = m, o
						s.matches++
					}
					break
				}
				if o.Peer == nil && o.Waited && !o.Cancelled && !s.lenient {
					return fmt.Sprintf("the message rank %d received in %s is not in the records", w, o.Call.Name())
				}
			}
		}
	}
	for _, q := range queues {
		for _, m := range q.sends {
			m.Lone = m.Peer == nil // an unreceived message: complete at once
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
			for _, o := range e.Posts {
				if o.Kind == ops.RecvOp && o.Peer != nil {
					out = append(out, Pair{From: int(o.Peer.Rank), To: int(o.Rank), Send: o.Peer.Call, Recv: o.Call})
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
				e.Enter(s.probers, wake)
			}
			for _, o := range e.Waits {
				if !o.Complete() {
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
			stuck = append(stuck, Blocked{Rank: w, Call: r.events[r.pos].Call})
		}
	}
	return stuck
}
