package collective

import (
	"hash/maphash"
)

// Folded loops. A rank's calls are read with the repetitions of a folded
// loop left out once one changes nothing the reading keeps
// (trace.CallsFolded): its communicators, user operations and files.
// The collectives the left-out repetitions make are queued as a run: the
// collectives of the last repetition on each communicator, so many times
// over. The comparison takes a run's collectives one at a time; once the
// members' next collectives have all come from runs of the same period
// for a whole period with no mismatch, the next comparisons would be the
// same ones: whole periods are counted, not compared again.

// A queue is a member's collectives on a communicator not compared yet.
type queue []entry

// An entry is a collective, or a run: period[at:], then period again,
// left collectives in all.
type entry struct {
	call     call
	period   []call
	at, left int
}

func (q queue) front() call {
	if e := q[0]; e.period != nil {
		return e.period[e.at]
	}
	return q[0].call
}

// pop takes the front collective; ended: a run ended with it.
func (q queue) pop() (queue, bool) {
	e := &q[0]
	if e.period == nil {
		return q[1:], false
	}
	e.at, e.left = (e.at+1)%len(e.period), e.left-1
	if e.left > 0 {
		return q, false
	}
	return q[1:], true
}

// bulk counts the whole periods that every member's run still holds once
// a whole period was compared in a row; it returns the period when every
// member's next collective comes from a run of it (0: not so).
func (oc *onComm) bulk() int {
	p := 0
	for _, r := range oc.members {
		q := oc.queue[r]
		if len(q) == 0 || q[0].period == nil || p != 0 && len(q[0].period) != p {
			oc.cycle = 0
			return 0
		}
		p = len(q[0].period)
	}
	if oc.cycle < p {
		return p
	}
	n := -1
	for _, r := range oc.members {
		if k := oc.queue[r][0].left / p; n < 0 || k < n {
			n = k
		}
	}
	oc.cycle = 0
	if n <= 0 {
		return p
	}
	for _, r := range oc.members {
		q := oc.queue[r]
		if q[0].left -= n * p; q[0].left == 0 {
			oc.queue[r] = q[1:]
		}
	}
	oc.base += n * p
	return oc.bulk()
}

// queued is a collective the rank queued on a communicator.
type queued struct {
	key string
	cl  call
}

// maxRep is how many collectives of one repetition are kept for a run.
const maxRep = 4096

func (s *rankStream) queued(key string, cl call) {
	if len(s.rep) >= maxRep {
		s.bad = true
		return
	}
	s.rep = append(s.rep, queued{key, cl})
}

var seed = maphash.MakeSeed()

// Digest is the rank's communicators, user operations and communicators
// with files opened; it ends the repetition whose collectives are kept.
// A rank with files open is read call by call.
func (s *rankStream) Digest() uint64 {
	s.lastRep, s.rep = s.rep, s.lastRep[:0]
	s.lastBad, s.bad = s.bad, false
	if len(s.files) > 0 {
		s.folds++
		return s.folds
	}
	return maphash.Comparable(seed, [3]uint64{s.t.Digest(), uint64(len(s.ops)), uint64(len(s.opens))})
}

// Skip queues the collectives of reps more repetitions like the last, a
// run on each communicator.
func (s *rankStream) Skip(from, to uint64, reps int) bool {
	if s.lastBad {
		return false
	}
	var order []string
	periods := map[string][]call{}
	for _, q := range s.lastRep {
		if periods[q.key] == nil {
			order = append(order, q.key)
		}
		periods[q.key] = append(periods[q.key], q.cl)
	}
	for _, k := range order {
		oc := s.keys[k]
		if oc == nil || oc.over {
			continue
		}
		oc.queue[s.p.Rank] = append(oc.queue[s.p.Rank], entry{period: periods[k], left: reps * len(periods[k])})
	}
	return true
}
