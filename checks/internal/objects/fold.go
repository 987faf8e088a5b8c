package objects

import (
	"hash/maphash"
)

// folding lets Follow leave out the repetitions of a folded loop that
// change none of the rank's live objects (trace.Folding): a repetition
// that creates and completes its requests leaves the same handles, in
// the same states, and makes no event.
type folding struct {
	f     *Follower
	final *bool
}

var seed = maphash.MakeSeed()

// objectState is what a digest compares of a live object: not the calls
// that created or started it (offsets, which differ from one repetition
// to the next).
type objectState struct {
	kind                                 string
	handle, at                           uint64
	persistent, active, cancelled, known bool
	pending                              bool
	ops                                  int
}

func (x folding) Digest() uint64 {
	f := x.f
	return maphash.Comparable(seed, [4]uint64{f.Digest(), uint64(len(f.st.Events)), uint64(len(f.st.Requests)),
		map[bool]uint64{true: 1}[*x.final]})
}

// Digest is a digest of the follower's live objects and their states, not
// of the calls that made or started them (a trace.Folding's part).
func (f *Follower) Digest() uint64 {
	var sum uint64 // of the live objects, in no order
	for _, os := range f.live {
		for _, o := range os {
			sum += maphash.Comparable(seed, objectState{string(o.Kind), o.Handle, o.At, o.Persistent, o.Active, o.Cancelled, o.KnownDone,
				o.cur != nil && o.cur.Done == nil, len(o.Ops)})
		}
	}
	return maphash.Comparable(seed, [3]uint64{sum, uint64(len(f.pending)), uint64(len(f.live))})
}

// Skip refuses repetitions that hold an operation the buffer checker
// reported (its calls are kept: Object.Ops).
func (x folding) Skip(from, to uint64, reps int) bool {
	for off := range x.f.wanted {
		if off >= from && off < to {
			return false
		}
	}
	return true
}
