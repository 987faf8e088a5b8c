package rma

import (
	"fmt"
	"strings"

	"mpivet/api"
)

// A program that makes the same one-sided operation many times in one
// epoch (a Get of the same element in a loop, an accumulate into one
// counter) would make the analysis grow with the run: every access is
// kept, and the race search compares pairs. So an access that repeats one
// still pending in the same epoch of the same origin is left out:
// same call site and call, same target and target bytes (displacement,
// count, datatype and the blocks the layer recorded), same operation,
// same generation, and no other call on the window between them that is
// not itself an operation (a flush, an unlock, a fence would complete the
// first and not the second).
//
// Left out, it changes no finding. Both are completed by the same call
// (the same doneVC and doneAt), and the second starts after the first on
// the same rank, so its clock is at least the first's: for any access b of
// another origin, b ordered before the first is ordered before the
// second, and the first ordered before b (its completion before b's
// start) is the second too. The generation filter compares the same
// generations. So the second races with no access the first does not,
// and a race is reported once per pair of call sites and target anyway,
// with the same bytes. Against the first itself it is judged as an
// operation of the same origin (origin.go): two Puts of the same bytes in
// one epoch race. The target's own accesses (local.go) are compared
// with the operations of an epoch by their bytes, the same for both; the
// values a Put wrote (values.go) are found through repeats.

// repeatKey is what an access must share with an earlier one to repeat it.
type repeatKey struct {
	def    *api.Call
	pc     uint64
	target int
	gen    int
	params string // the target's displacement, count, datatype, operation, and the recorded blocks
}

var repeatParams = []string{"target_disp", "target_count", "target_datatype", "datatype", "op"}

// repeated reports whether a repeats an access still pending in epoch e
// (and is left out, see above).
func (s *scan) repeated(e *epochs, a *access) bool {
	c := a.c
	if strings.HasPrefix(c.Name(), "MPI_R") {
		return false // request-based: completed by its request, not only by the epoch
	}
	var b strings.Builder
	for _, f := range repeatParams {
		if c.HasField(f) {
			fmt.Fprintf(&b, "%x ", c.Word(f))
		}
	}
	fmt.Fprint(&b, a.p.RMA[c.Offset])
	k := repeatKey{def: c.Def, pc: c.PC, target: a.target, gen: e.gen, params: b.String()}
	if first := e.seen[k]; first != nil && first.lock == a.lock && first.excl == a.excl && first.start == a.start && first.fence == a.fence {
		if c.Name() == "MPI_Put" {
			s.repeats[[2]uint64{uint64(a.origin), c.Offset}] = first // what the target recorded of it names it
		}
		if first.again == nil {
			first.again = &a.call // judged against the first (origin.go)
		}
		return true
	}
	if e.seen == nil {
		e.seen = map[repeatKey]*access{}
	}
	e.seen[k] = a
	return false
}
