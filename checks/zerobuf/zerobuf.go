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
//
// Folded loops are read as a count once the replay's state comes back
// every period on every rank, all ranks leaving out the same number of
// repetitions (fold.go): the replay's time follows the records, not the
// iterations.
package zerobuf

import (
	"fmt"
	"iter"
	"reflect"
	"sort"
	"strings"

	"mpivet/check"
	"mpivet/checks/internal/objects"
	"mpivet/checks/zerobuf/internal/ops"
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
	// Folded is how many repetitions of the ranks' folded loops every
	// rank left out together (fold.go).
	Folded int
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

// rank is one rank's part in the simulation: its calls, read as the
// simulation reaches them, and the events read but not simulated yet.
type rank struct {
	p       *trace.Process
	world   int
	next    func() (*trace.Call, bool)
	stop    func()
	ended   bool         // all its calls are read (or MPI_Finalize reached)
	events  []*ops.Event // read, not yet simulated; events[0] is the current one
	entered bool         // events[0] has posted its operations
	s       *sim
	b       *ops.Rank
	f       *objects.Follower
	q       *ops.Requests // the operations of its requests
	e       *ops.Event    // the event of the call being read
	keep    bool          // ... kept (it starts or completes something)
	// Its folded loop's repetitions (fold.go): the Seq of the latest call
	// read and at the latest end of a repetition (-1: none), the calls
	// between its last two ends, how many ends in a row were so far apart,
	// the replay's state at its latest ends, its period then (0: none) and
	// the matches made over it, the digest it returned last, the
	// repetitions it owes to a joint skip.
	seq, bound, gap, ends int
	hist                  []seenState
	period, mper          int
	last                  uint64
	owe                   int
	asked                 bool // an end owing: its offer must come before its next call
}

// Analyzer replays an execution's matches under zero buffering. It is a
// result-only analysis the run driver asks for (check.Unit.Result) on the
// first interleaving.
var Analyzer = &check.Check{
	Name: "zerobuf",
	Doc: `the matches of an execution replayed with zero buffering

A result-only analysis for the run driver: whether every rank would end if
standard-mode sends were synchronous (Result).`,
	ResultType: reflect.TypeOf((*Result)(nil)),
	Run: func(pass *check.Pass) (any, error) {
		return simulate(pass.In.Run), nil
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

// simulate co-simulates the ranks: each rank's calls are read only as far
// as the simulation takes it, and an operation is kept while it is pending
// or unmatched, so memory follows what is in flight, not the run's length.
// Matches are made as the calls are read (match); when no rank can go on,
// the ranks whose peers may still match an operation they wait for are
// read ahead (lookahead), as the replay of the whole records would have.
func simulate(run *trace.Run) *Result {
	res := replay(run, true)
	if res == nil {
		res = replay(run, false) // the ranks did not leave out the same repetitions
	}
	return res
}

// replay co-simulates the ranks, reading their folded loops together if
// fold; nil if they did not leave out the same repetitions.
func replay(run *trace.Run, fold bool) *Result {
	s := &sim{table: ops.NewTable(), ranks: map[int]*rank{}, probers: map[*ops.Op][]*ops.Op{},
		channels: map[channel]*queue{}, fold: fold}
	defer func() {
		for _, r := range s.ranks {
			r.stop()
		}
	}()
	for _, p := range run.Procs {
		if why := s.add(p); why != "" {
			return &Result{Why: why}
		}
	}
	stuck := s.run()
	if s.why == refold || s.owing > 0 {
		return nil
	}
	if s.why != "" {
		return &Result{Why: s.why}
	}
	if len(stuck) > 0 {
		// What the whole records would have refused (a communicator they
		// do not describe, a wildcard source not recorded) is looked for
		// in the rest of every rank's calls.
		if why := s.drain(); why != "" {
			return &Result{Why: why}
		}
	} else if why := s.unmatched(); why != "" {
		return &Result{Why: why}
	}
	res := &Result{Checked: true, Matches: s.matches, Stuck: stuck, Folded: s.folded}
	sort.Slice(res.Stuck, func(i, j int) bool { return res.Stuck[i].Rank < res.Stuck[j].Rank })
	return res
}

type channel struct {
	to, from, comm int32
}

// queue holds a channel's sends that no receive took yet and its receives
// and probes that found no message yet, each in the order they were read.
type queue struct {
	sends, recvs []*ops.Op
}

type sim struct {
	ranks    map[int]*rank
	order    []int // world ranks in the order added
	table    *ops.Table
	probers  map[*ops.Op][]*ops.Op // the probes that wait for a send not posted yet
	channels map[channel]*queue
	matches  int
	why      string
	work     []int // ranks to advance
	queued   map[int]bool
	fold     bool // read the folded loops together (fold.go)
	owing    int  // ranks that owe repetitions to a joint skip
	folded   int  // repetitions left out by every rank
	draining bool // reading the rest of the calls, not replaying them (drain)
}

// add prepares rank p's part.
func (s *sim) add(p *trace.Process) string {
	if why := ops.Usable(p); why != "" {
		return why
	}
	if _, dup := s.ranks[p.Rank]; dup {
		return fmt.Sprintf("rank %d appears twice", p.Rank)
	}
	r := &rank{p: p, world: p.Rank, s: s, q: ops.NewRequests(), bound: -1}
	if s.fold {
		r.next, r.stop = iter.Pull(p.CallsFolded(folder{r}))
	} else {
		r.next, r.stop = iter.Pull(p.Calls())
	}
	r.b = ops.New(p, r.world, s.table)
	r.f = objects.NewFollower(p)
	r.f.Start, r.f.Done, r.f.Gone = r.started, r.completed, r.q.Gone
	s.ranks[p.Rank], s.order = r, append(s.order, p.Rank)
	return ""
}

// read reads the rank's calls up to its next event and queues it; false
// once the rank's calls are all read.
func (r *rank) read(s *sim) bool {
	for !r.ended {
		c, ok := r.next()
		if !ok || c.Def.Has("finalize") {
			r.end(s)
			return false
		}
		r.seq = c.Seq
		r.owes()
		e := r.event(s, c)
		if s.why != "" {
			r.end(s)
			return false
		}
		if e != nil {
			r.events = append(r.events, e)
			return true
		}
	}
	return false
}

// end marks the rank's calls all read: the sends to it that no receive
// took never will be.
func (r *rank) end(s *sim) {
	if r.ended {
		return
	}
	r.ended = true
	r.stop()
	for ch, q := range s.channels {
		if ch.to != int32(r.world) {
			continue
		}
		for _, m := range q.sends {
			m.Lone = true
			s.wakeRank(int(m.Rank))
		}
		q.sends = nil
		if len(q.recvs) == 0 {
			delete(s.channels, ch)
		}
	}
}

// event turns call c into an event (nil if it starts and completes
// nothing), its operations matched with those read so far.
func (r *rank) event(s *sim, c *trace.Call) *ops.Event {
	b := r.b
	e := &ops.Event{Call: c}
	d := c.Def
	posted, t := b.Ops(c) // t: the operation of a request c creates
	e.Post(posted...)
	if b.Why != "" {
		s.why = b.Why
		return nil
	}
	b.Comms.Created(c)
	for _, o := range e.Posts {
		s.match(o)
	}
	r.q.Made(c, t)
	r.e, r.keep = e, len(e.Posts) > 0 || d.Has("completion") || d.Has("start") || t != nil
	r.f.Step(c) // its requests: started, completed (the hooks below)
	r.e = nil
	r.q.Read(c)
	if !r.keep {
		return nil
	}
	return e
}

// started: call c started an operation of request o, of the kind its
// creating call made (a persistent request's operations are alike).
func (r *rank) started(o *objects.Object, c *trace.Call) {
	if !r.keep {
		return
	}
	x := r.q.Start(o)
	if x == nil {
		return
	}
	if x.Kind == ops.RecvOp && x.Src < 0 {
		if w := r.b.Wild[c.Offset]; w != nil {
			x.Src = int32(w.World)
		} else {
			x.Deferred = true // its completion's status may say
		}
	}
	r.e.Posts = append(r.e.Posts, x)
	if !x.Deferred {
		r.s.match(x)
	}
}

// completed: call c completed request o's current operation.
func (r *rank) completed(o *objects.Object, c *trace.Call) {
	x := r.q.Current(o)
	if x == nil || !r.keep {
		return
	}
	r.e.Waits = append(r.e.Waits, x)
	x.Waited = true
	if x.Deferred {
		x.Deferred = false
		x.Src = int32(r.b.SourceOf(x.Call, c, o.Created))
		r.s.match(x)
	}
}

// match pairs operation o, just read, with what the other side read so
// far: a receive takes the earliest message from its source on its
// communicator that it matches and that no receive read before it took, a
// send goes to the earliest receive read that matches it and found none, a
// probe waits for the message its receive would take. That is the MPI's
// own outcome whatever the timing (messages from one sender do not
// overtake each other, and the wildcard sources are those of the run), and
// the outcome of pairing the whole records in order, as they are read in
// order on both sides.
func (s *sim) match(o *ops.Op) {
	if o.Kind == ops.LocalOp || o.Kind == ops.CollOp {
		return
	}
	if o.Kind != ops.SendOp && o.Src < 0 {
		if o.Waited && !o.Cancelled && (o.Obj == nil || !o.Obj.Cancelled) {
			s.why = fmt.Sprintf("the source of rank %d's receive from MPI_ANY_SOURCE (%s) is not recorded", o.Rank, o.Call.Name())
		}
		return
	}
	ch := channel{o.Dst, o.Src, o.Comm}
	q := s.channels[ch]
	if q == nil {
		if to := s.ranks[int(o.Dst)]; o.Kind == ops.SendOp && (to == nil || to.ended) {
			o.Lone = true // its receiver has ended: no receive takes it
			return
		}
		q = &queue{}
		s.channels[ch] = q
	}
	tags := func(r, m *ops.Op) bool { return r.AnyTag || r.Tag == m.Tag }
	if o.Kind == ops.SendOp {
		for i := 0; i < len(q.recvs); i++ {
			r := q.recvs[i]
			if !tags(r, o) {
				continue
			}
			q.recvs = append(q.recvs[:i], q.recvs[i+1:]...)
			i--
			if r.Kind == ops.ProbeOp {
				s.probe(r, o)
				continue
			}
			s.pair(o, r)
			s.drop(ch, q)
			return
		}
		if to := s.ranks[int(o.Dst)]; to == nil || to.ended {
			o.Lone = true // its receiver has ended: no receive takes it
			s.drop(ch, q)
			return
		}
		q.sends = append(q.sends, o)
		return
	}
	for i, m := range q.sends {
		if !tags(o, m) {
			continue
		}
		if o.Kind == ops.ProbeOp {
			s.probe(o, m)
			return
		}
		q.sends = append(q.sends[:i], q.sends[i+1:]...)
		s.pair(o, m)
		s.drop(ch, q)
		return
	}
	q.recvs = append(q.recvs, o)
}

// pair matches send or receive o with m. A side already posted may be
// waiting for the other (a receive whose source its completion said is
// matched late): its rank is woken.
func (s *sim) pair(o, m *ops.Op) {
	o.Peer, m.Peer = m, o
	s.matches++
	for _, x := range []*ops.Op{o, m} {
		if x.Posted {
			s.wakeRank(int(x.Rank))
		}
	}
}

// probe makes probe pr wait for send m.
func (s *sim) probe(pr, m *ops.Op) {
	pr.Peer = m
	if !m.Posted {
		s.probers[m] = append(s.probers[m], pr)
	} else if pr.Posted {
		s.wakeRank(int(pr.Rank))
	}
}

// drop forgets an empty channel.
func (s *sim) drop(ch channel, q *queue) {
	if len(q.sends) == 0 && len(q.recvs) == 0 {
		delete(s.channels, ch)
	}
}

// run advances every rank as far as zero buffering lets it, and returns
// those that cannot finish.
func (s *sim) run() []Blocked {
	s.work = append([]int{}, s.order...)
	s.queued = map[int]bool{}
	for _, w := range s.work {
		s.queued[w] = true
	}
	for {
		for len(s.work) > 0 && s.why == "" {
			w := s.work[len(s.work)-1]
			s.work = s.work[:len(s.work)-1]
			s.queued[w] = false
			s.advance(s.ranks[w])
		}
		if s.why != "" || !s.lookahead() {
			break
		}
	}
	var stuck []Blocked
	for _, w := range s.order {
		if r := s.ranks[w]; len(r.events) > 0 {
			stuck = append(stuck, Blocked{Rank: w, Call: r.events[0].Call})
		}
	}
	return stuck
}

// wakeRank queues rank w to be advanced.
func (s *sim) wakeRank(w int) {
	if s.queued != nil && !s.queued[w] {
		s.queued[w] = true
		s.work = append(s.work, w)
	}
}

// advance simulates rank r's events while their operations complete.
func (s *sim) advance(r *rank) {
	for s.why == "" {
		if len(r.events) == 0 && !r.read(s) {
			return
		}
		e := r.events[0]
		if !r.entered {
			r.entered = true
			e.Enter(s.probers, s.wakeRank)
			for _, o := range e.Posts {
				if o.Kind == ops.CollOp && o.Coll.Arrived == o.Coll.Need {
					delete(s.table.Colls, o.Coll.ID) // every member read it
				}
				delete(s.probers, o)
			}
		}
		for _, o := range e.Waits {
			if !o.Complete() {
				return
			}
		}
		r.events[0] = nil
		r.events = r.events[1:]
		r.entered = false
	}
}

// lookahead reads ahead, when no rank can go on, the ranks that may still
// match an operation a blocked rank waits for: until it is matched, or
// they end. It reports whether it read anything.
func (s *sim) lookahead() bool {
	read := false
	for _, w := range s.order {
		r := s.ranks[w]
		if len(r.events) == 0 || !r.entered {
			continue
		}
		for _, o := range r.events[0].Waits {
			if o.Complete() || o.Peer != nil || o.Kind == ops.CollOp || o.Kind == ops.LocalOp {
				continue
			}
			peer := o.Dst
			if o.Kind != ops.SendOp {
				peer = o.Src
			}
			other := s.ranks[int(peer)]
			if other == nil || peer < 0 {
				continue
			}
			for o.Peer == nil && !o.Lone && !other.ended && s.why == "" {
				other.read(s)
				read = true
			}
			s.wakeRank(w)
			s.wakeRank(int(peer))
		}
	}
	return read
}

// drain reads the rest of every rank's calls for what the records cannot
// say (a communicator they do not describe, a wildcard source not
// recorded), without simulating them.
func (s *sim) drain() string {
	s.draining = true
	for _, w := range s.order {
		r := s.ranks[w]
		for !r.ended && s.why == "" {
			r.read(s)
			r.events = nil // not simulated: only read
		}
		if s.why != "" {
			return s.why
		}
	}
	return ""
}

// unmatched reports a receive the records hold no message for, once every
// rank ended.
func (s *sim) unmatched() string {
	for _, q := range s.channels {
		for _, o := range q.recvs {
			if o.Waited && !o.Cancelled && (o.Obj == nil || !o.Obj.Cancelled) {
				return fmt.Sprintf("the message rank %d received in %s is not in the records", o.Rank, o.Call.Name())
			}
		}
	}
	return ""
}
