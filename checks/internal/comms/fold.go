package comms

import (
	"hash/maphash"
)

// An Index leaves out the repetitions of a folded loop that create no
// communicator (trace.Folding): the collectives they make are counted
// (the latest of each communicator, Recent, then hold the same calls at
// other offsets: a repetition's are those of any other). A rank with
// windows or persistent collectives is followed call by call.
var seed = maphash.MakeSeed()

// Digest is the communicators the rank has and the keys of those it made
// collectives on; it saves the collectives' counts, which Skip adds to.
func (x *Index) Digest() uint64 {
	if x.p.Windows || x.pers.on != nil {
		x.folds++ // never the same: every repetition is read
		return x.folds
	}
	sum := x.Tracker.Digest()
	x.prev, x.now = x.now, x.prev
	clear(x.now)
	if x.now == nil {
		x.now = map[string]int{}
	}
	for k, r := range x.colls {
		sum += maphash.String(seed, k)
		x.now[k] = r.n
	}
	return maphash.Comparable(seed, [3]uint64{sum, uint64(len(x.callKey)), uint64(len(x.colls))})
}

// Skip adds what reps more repetitions like the last add to the counts of
// collectives; it refuses repetitions that hold a call a thread is in.
func (x *Index) Skip(from, to uint64, reps int) bool {
	for off := range x.current {
		if off >= from && off < to {
			return false
		}
	}
	for k, r := range x.colls {
		r.n += reps * (x.now[k] - x.prev[k])
	}
	return true
}

// Digest is the communicators the tracker has: their keys and how many
// were made with the same members.
func (t *Tracker) Digest() uint64 {
	var sum uint64
	for k, v := range t.same {
		sum += maphash.Comparable(seed, struct {
			k string
			v int
		}{k, v})
	}
	return maphash.Comparable(seed, [3]uint64{sum, uint64(len(t.key)), uint64(len(t.comm))})
}
