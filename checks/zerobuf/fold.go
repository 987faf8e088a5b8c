package zerobuf

import (
	"hash/maphash"

	"mpivet/checks/zerobuf/internal/ops"
)

// The replay reads the ranks' folded loops (trace.Process.CallsFolded)
// together: it leaves out repetitions only on every rank at once, and only
// the same number on each. Each time a rank's reader ends a repetition of
// its loop, the replay takes a digest of its whole state, relative to
// where each rank is: every rank's place in its repetition and how many
// calls it read since the previous end, the operations in flight (their
// kinds, peers, tags, whether posted, matched or complete, how far back
// their calls are from their rank's latest), the channels' queues in
// order, the collectives waiting and each rank's live requests. When a
// repetition leaves that digest as it found it and every rank read
// exactly one repetition of its own loop over it, the replay is periodic:
// the same state comes back after every round, whose calls are the same
// but for their offsets. That rank then leaves out n repetitions (all but
// the last three it is offered, so that a rank up to two repetitions
// ahead has as many left) and every other rank owes the same n at its next
// end. The replay of what is left is the replay of all of it shifted by n
// rounds: what follows the loops, and the loops' last repetitions, are
// read for real, a deadlock in them found at the same call. A rank that
// cannot pay (its loop has fewer repetitions left, its reader passes an
// end without offering them, the replay ends first) makes the replay start
// again reading everything.

// refold is the why that stops a replay whose ranks did not leave out the
// same repetitions: simulate replays them again, reading everything.
const refold = "\x00refold"

// maxEnds is how many ends of a loop's repetitions a rank may have shown
// for another rank to start a joint skip: the reader asks a loop's digest
// at 8 repetitions at most (trace), and the rank must be asked once more.
const maxEnds = 6

var seed = maphash.MakeSeed()

// loopState is a rank's part in the state's digest.
type loopState struct {
	idx, pos, gap, events int
	entered, ended        bool
	objects               uint64
}

// opState is an operation's part: j is the place of its event in its
// rank's queue (-1: a request's) or its place in its channel's queue.
type opState struct {
	j, rel, peerRel, peerRank, arrived, need    int
	rank, src, dst, comm                        int32
	tag                                         int64
	kind                                        ops.Kind
	queue                                       byte
	posted, waited, lone, deferred, buffered    bool
	cancelled, anyTag, complete, peered, isColl bool
}

// maxPeriod is how many ends of its repetitions back a rank looks for
// the state it is in: the ranks read ahead in turns, so the replay's state
// at a rank's end may come back only every few repetitions.
const maxPeriod = 4

// seenState is the replay's state at an end of a rank's repetition: its
// digest, every rank's Seq and the matches made by then.
type seenState struct {
	digest  uint64
	seq     []int
	matches int
}

// folder is rank r's trace.PartFolding.
type folder struct{ r *rank }

// Digest records an end of a repetition of the rank's loop and returns
// the replay's state as the rank sees it: the digest it returned at its
// previous end if the state is one it saw p ends back, when every rank
// read p repetitions of its loop since (its period, then).
func (x folder) Digest() uint64 {
	r, s := x.r, x.r.s
	if r.owe > 0 {
		r.asked = true // the joint skip: the same digest, for its offer
		return r.last
	}
	if r.bound < 0 || r.seq-r.bound != r.gap {
		r.ends, r.hist = 0, r.hist[:0]
	}
	if r.bound >= 0 {
		r.gap = r.seq - r.bound
	}
	r.bound = r.seq
	r.ends++
	now := seenState{digest: s.digest(), matches: s.matches}
	for _, w := range s.order {
		now.seq = append(now.seq, s.ranks[w].seq)
	}
	r.period = 0
	for p := 1; p <= len(r.hist) && r.period == 0; p++ {
		if then := r.hist[len(r.hist)-p]; s.again(then, now, p) {
			r.period, r.mper = p, now.matches-then.matches
		}
	}
	if len(r.hist) == maxPeriod {
		r.hist = r.hist[1:]
	}
	r.hist = append(r.hist, now)
	if r.period == 0 {
		r.last = now.digest
	}
	return r.last
}

// again reports whether state now is state then, p ends back, every rank
// having read p repetitions of its loop since.
func (s *sim) again(then, now seenState, p int) bool {
	if then.digest != now.digest {
		return false
	}
	for i, w := range s.order {
		if q := s.ranks[w]; q.gap <= 0 || now.seq[i]-then.seq[i] != p*q.gap {
			return false
		}
	}
	return true
}

// Skip is not asked: SkipSome is.
func (x folder) Skip(from, to uint64, reps int) bool { return false }

// SkipSome pays what the rank owes, or starts a joint skip when the
// replay is periodic: a multiple of its period, all but a few of the
// repetitions it is offered, so that a rank ahead of it has as many left.
func (x folder) SkipSome(from, to uint64, reps int) int {
	r, s := x.r, x.r.s
	if r.owe > 0 {
		r.asked = false
		if reps < r.owe {
			s.why = refold
			return 0
		}
		n := r.owe
		r.owe = 0
		s.owing--
		return n
	}
	p := r.period
	if p == 0 || s.owing > 0 || s.draining || !s.periodic(r) {
		return 0
	}
	n := reps - 2 - 2*p
	n -= n % p
	if n < 1 {
		return 0
	}
	for _, w := range s.order {
		if q := s.ranks[w]; q != r {
			q.owe = n
			s.owing++
		}
	}
	s.folded += n
	s.matches += n / p * r.mper // each period matches the same messages
	return n
}

// periodic reports whether every rank is in its loop, and every other
// rank than r will be asked at its next end.
func (s *sim) periodic(r *rank) bool {
	for _, w := range s.order {
		q := s.ranks[w]
		if q.ended || q.gap <= 0 {
			return false
		}
		if q != r && (q.ends > maxEnds || q.seq-q.bound > q.gap) {
			return false
		}
	}
	return true
}

// owes checks, as rank r reads a call, that it did not pass an end of its
// repetition owing repetitions.
func (r *rank) owes() {
	if r.owe > 0 && (r.asked || r.seq-r.bound > r.gap) {
		r.s.why = refold
	}
}

// digest is the replay's state, relative to where each rank is.
func (s *sim) digest() uint64 {
	var sum uint64 // in no order
	add := func(v any) { sum += maphash.Comparable(seed, v) }
	for i, w := range s.order {
		q := s.ranks[w]
		pos := -1
		if q.bound >= 0 {
			pos = q.seq - q.bound
		}
		add(loopState{i, pos, q.gap, len(q.events), q.entered, q.ended, q.f.Digest()})
		for j, e := range q.events {
			for _, o := range e.Posts {
				add(s.opState(o, j, 'p'))
			}
			for _, o := range e.Waits {
				add(s.opState(o, j, 'w'))
			}
		}
		q.q.Each(func(o *ops.Op) { add(s.opState(o, -1, 'q')) })
	}
	for _, qu := range s.channels {
		for j, o := range qu.sends {
			add(s.opState(o, j, 's'))
		}
		for j, o := range qu.recvs {
			add(s.opState(o, j, 'r'))
		}
	}
	return maphash.Comparable(seed, [3]uint64{sum, uint64(len(s.probers)), uint64(len(s.table.Colls))})
}

// opState is operation o's part in the digest.
func (s *sim) opState(o *ops.Op, j int, queue byte) opState {
	x := opState{j: j, rel: s.rel(o), peerRel: -1, peerRank: -1, rank: o.Rank, src: o.Src, dst: o.Dst, comm: o.Comm,
		tag: o.Tag, kind: o.Kind, queue: queue, posted: o.Posted, waited: o.Waited, lone: o.Lone, deferred: o.Deferred,
		buffered: o.Buffered, cancelled: o.Cancelled, anyTag: o.AnyTag, complete: o.Complete(), peered: o.Peer != nil}
	if o.Peer != nil {
		x.peerRel, x.peerRank = s.rel(o.Peer), int(o.Peer.Rank)
	}
	if o.Coll != nil {
		x.isColl, x.arrived, x.need = true, o.Coll.Arrived, o.Coll.Need
	}
	return x
}

// rel is how many calls back from its rank's latest operation o's call is.
func (s *sim) rel(o *ops.Op) int {
	q := s.ranks[int(o.Rank)]
	if q == nil || o.Call == nil {
		return -1
	}
	return q.seq - o.Call.Seq
}
