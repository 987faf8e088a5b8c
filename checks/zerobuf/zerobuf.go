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
	"sort"
	"strings"

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

type opKind int

const (
	sendOp  opKind = iota
	recvOp         // takes the message of peer
	probeOp        // waits for the message of peer without taking it
	collOp
	localOp // completes at once (buffered send, MPI_Imrecv, PROC_NULL, cancelled)
)

// op is one operation of a rank.
type op struct {
	kind   opKind
	rank   int
	posted bool
	peer   *op   // the matching send or receive (nil: none)
	coll   *coll // for collOp
	// matching data
	comm      string // communicator key
	src, dst  int    // world ranks; src -1 for a receive: unknown
	tag       int64
	anyTag    bool
	call      *trace.Call
	cancelled bool
	waited    bool  // a call waits for it
	probers   []*op // probes that wait for this send
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
		return o.cancelled || o.peer == nil || o.peer.posted
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

// Simulate replays run's matches under zero buffering.
func Simulate(run *trace.Run) *Result {
	s := &sim{colls: map[string]*coll{}, ranks: map[int]*rank{}}
	for _, p := range run.Procs {
		if why := s.build(p); why != "" {
			return &Result{Why: why}
		}
	}
	if why := s.match(); why != "" {
		return &Result{Why: why}
	}
	res := &Result{Checked: true, Matches: s.matches}
	for _, b := range s.run() {
		res.Stuck = append(res.Stuck, b)
	}
	sort.Slice(res.Stuck, func(i, j int) bool { return res.Stuck[i].Rank < res.Stuck[j].Rank })
	return res
}

type sim struct {
	ranks   map[int]*rank
	order   []int // world ranks in the order built
	colls   map[string]*coll
	matches int
}

// build turns rank p's calls into events.
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
	r := &rank{p: p, world: p.Rank}
	s.ranks[p.Rank], s.order = r, append(s.order, p.Rank)
	idx := comms.NewIndex(p)
	proc := func(name string) int64 {
		if v, ok := p.Const(name); ok {
			return int64(v)
		}
		return -1 << 40
	}
	anySource, anyTag, procNull := proc("MPI_ANY_SOURCE"), proc("MPI_ANY_TAG"), proc("MPI_PROC_NULL")
	current := map[uint64]*trace.Comm{}
	// members returns the world ranks a call's communicator names in
	// point-to-point calls (the remote group of an intercommunicator) and
	// all its members (both groups).
	type group struct{ p2p, all []int }
	memb := map[*trace.Call]group{}
	members := func(c *trace.Call, field string) (p2p, all []int) {
		if g, ok := memb[c]; ok {
			return g.p2p, g.all
		}
		h := c.Word(field)
		if v, ok := p.Const("MPI_COMM_WORLD"); ok && v == h {
			w := make([]int, p.Size)
			for i := range w {
				w[i] = i
			}
			return w, w
		}
		if v, ok := p.Const("MPI_COMM_SELF"); ok && v == h {
			return []int{p.Rank}, []int{p.Rank}
		}
		if cm := current[h]; cm != nil {
			if cm.Remote != nil {
				return cm.Remote, append(append([]int{}, cm.World...), cm.Remote...)
			}
			return cm.World, cm.World
		}
		return nil, nil
	}
	world := func(ms []int, r int64) int {
		if r >= 0 && r < int64(len(ms)) {
			return ms[r]
		}
		return -1
	}
	// the sources of wildcard receives and probes, by the record of the
	// call that started them
	wild := map[uint64]*trace.Wildcard{}
	for _, w := range p.Wild {
		if w.Matched && w.Offset != trace.Unknown && w.World >= 0 {
			wild[w.Offset] = w
		}
	}
	collSeq := map[string]int{}
	collOps := map[*trace.Call]*op{}
	byCall := map[*trace.Call]*event{}
	var why string
	// p2p makes the operation of one side of a point-to-point call.
	p2p := func(c *trace.Call, kind opKind, peerField, tagField string) *op {
		ms, _ := members(c, "comm")
		peer, tag := c.Int(peerField), c.Int(tagField)
		if peer == procNull {
			return &op{kind: localOp, rank: r.world, call: c}
		}
		if ms == nil {
			why = fmt.Sprintf("rank %d used a communicator the records do not describe (%s)", p.Rank, c.Name())
			return &op{kind: localOp, rank: r.world, call: c}
		}
		o := &op{kind: kind, rank: r.world, comm: idx.KeyOf(c), tag: tag, anyTag: tag == anyTag, call: c}
		if kind == sendOp {
			o.src, o.dst = r.world, world(ms, peer)
			if o.dst < 0 {
				return &op{kind: localOp, rank: r.world, call: c}
			}
			if strings.Contains(strings.ToLower(c.Name()), "bsend") {
				o.kind = localOp
			}
			return o
		}
		o.dst, o.src = r.world, -1
		if peer != anySource {
			o.src = world(ms, peer)
		} else if st := c.Words("status"); len(st) == 2 && int64(st[0]) >= 0 && c.Returned {
			o.src = world(ms, int64(st[0]))
		} else if w := wild[c.Offset]; w != nil && c.Seq >= 0 {
			o.src = w.World
		}
		return o
	}
	collective := func(c *trace.Call) *op {
		_, ms := members(c, "comm")
		if ms == nil {
			why = fmt.Sprintf("rank %d used a communicator the records do not describe (%s)", p.Rank, c.Name())
			return &op{kind: localOp, rank: r.world, call: c}
		}
		key := idx.KeyOf(c)
		n := collSeq[key]
		collSeq[key]++
		id := fmt.Sprintf("%s/%d", key, n)
		cl := s.colls[id]
		if cl == nil {
			cl = &coll{need: len(ms), members: ms}
			s.colls[id] = cl
		}
		return &op{kind: collOp, rank: r.world, coll: cl, call: c}
	}
	for _, c := range p.Calls {
		if c.Def.Has("finalize") {
			break
		}
		if c.HasField("comm") {
			a, b := members(c, "comm")
			memb[c] = group{a, b}
		}
		e := &event{call: c}
		byCall[c] = e
		r.events = append(r.events, e)
		d := c.Def
		switch {
		case d.Has("coll") && c.HasField("comm"):
			// in call order, for the collectives' numbering; a
			// nonblocking one is started below, with its request
			o := collective(c)
			if d.Has("blocking") {
				e.posts, e.waits = append(e.posts, o), append(e.waits, o)
				o.waited = true
			} else {
				collOps[c] = o
			}
		case !d.Has("p2p") || !d.Has("blocking"):
			// nonblocking operations are started below, from their requests
		case d.Has("probe"):
			o := p2p(c, probeOp, "source", "tag")
			if c.Name() == "MPI_Mprobe" {
				o.kind = recvOp
			}
			e.posts, e.waits = append(e.posts, o), append(e.waits, o)
			o.waited = true
		case c.Name() == "MPI_Mrecv":
			// the message was taken by its MPI_Mprobe
		case d.Has("send") && d.Has("recv"):
			sendTag, recvTag := "sendtag", "recvtag"
			so, ro := p2p(c, sendOp, "dest", sendTag), p2p(c, recvOp, "source", recvTag)
			e.posts = append(e.posts, so, ro)
			e.waits = append(e.waits, so, ro)
			so.waited, ro.waited = true, true
		case d.Has("send"):
			o := p2p(c, sendOp, "dest", "tag")
			e.posts, e.waits = append(e.posts, o), append(e.waits, o)
			o.waited = true
		case d.Has("recv"):
			o := p2p(c, recvOp, "source", "tag")
			e.posts, e.waits = append(e.posts, o), append(e.waits, o)
			o.waited = true
		}
		// a successful MPI_Iprobe or MPI_Improbe waits like a probe
		if !d.Has("blocking") && d.Has("probe") && c.Returned && c.Int("flag") != 0 {
			o := p2p(c, probeOp, "source", "tag")
			if c.Name() == "MPI_Improbe" {
				o.kind = recvOp
			}
			e.posts, e.waits = append(e.posts, o), append(e.waits, o)
			o.waited = true
		}
		if why != "" {
			return why
		}
		if c.Comm != nil {
			current[c.Comm.Handle] = c.Comm
		}
	}
	// Requests: each operation starts at the call that started it and is
	// waited for by the call that completed it.
	for _, o := range objects.Follow(p).Requests {
		created := o.Created
		for _, use := range o.Ops {
			e := byCall[use.Start]
			if e == nil {
				continue // started at or after MPI_Finalize
			}
			d := created.Def
			var x *op
			switch {
			case d.Has("coll") && collOps[created] != nil:
				x = collOps[created]
			case d.Has("send"):
				x = p2p(created, sendOp, "dest", "tag")
			case created.Name() == "MPI_Imrecv":
				x = &op{kind: localOp, rank: r.world, call: created}
			case d.Has("recv"):
				x = p2p(created, recvOp, "source", "tag")
				if x.kind == recvOp && x.src < 0 {
					if w := wild[use.Start.Offset]; w != nil {
						x.src = w.World
					} else if use.Done != nil && use.Done.HasField("status") {
						if st := use.Done.Words("status"); len(st) == 2 && int64(st[0]) >= 0 {
							ms, _ := members(created, "comm")
							x.src = world(ms, int64(st[0]))
						}
					}
				}
			default:
				x = &op{kind: localOp, rank: r.world, call: created}
			}
			if why != "" {
				return why
			}
			x.cancelled = o.Cancelled
			e.posts = append(e.posts, x)
			if use.Done != nil {
				if de := byCall[use.Done]; de != nil {
					de.waits = append(de.waits, x)
					x.waited = true
				}
			}
		}
	}
	return ""
}

// match pairs each receive with the send of its message: per receiving
// rank, in the order the receives were posted, the earliest message from
// its source on its communicator that it matches and no earlier receive
// took. That is the MPI's own outcome whatever the timing: messages from
// one sender do not overtake each other, and the wildcard sources are
// those of the run.
func (s *sim) match() string {
	type channel struct {
		to, from int
		comm     string
	}
	type queue struct {
		sends []*op
		head  int // sends before it are all taken
	}
	queues := map[channel]*queue{}
	for _, w := range s.order {
		for _, e := range s.ranks[w].events {
			for _, o := range e.posts {
				if o.kind == sendOp || (o.kind == localOp && o.dst >= 0 && o.src >= 0 && o.comm != "") {
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
				q := queues[channel{w, o.src, o.comm}]
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
						m.probers = append(m.probers, o)
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
						wake(o.peer.rank)
					}
					for _, pr := range o.probers {
						wake(pr.rank)
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
