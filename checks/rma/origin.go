package rma

import (
	"fmt"
	"strings"

	"mpivet/api"
	"mpivet/check"
	"mpivet/trace"
)

// Operations of one origin on the same target are not ordered with one
// another within an epoch (MPI 4.0 §12.7): a Put and a Get of the same
// bytes, two Puts, a Put and an accumulate, accumulates of different basic
// types or element boundaries are conflicting accesses until the first is
// complete at the target. What completes it there: the fence, unlock,
// complete or flush (of its target, or flush_all) that closes it. A
// flush_local, or flush_local_all, completes at the target only the
// operations whose result it delivers (a Get, the fetching accumulates:
// their data could not arrive before the target was read), and so does,
// for the later operations of its origin, the completion of an MPI_Rget's
// or MPI_Rget_accumulate's request. Accumulates of one origin to the same
// elements of the same basic type are ordered, in program order, whatever
// their operations (the window's accumulate_ordering info is
// "rar,raw,war,waw" unless the program sets it; it is not read).

// sameOriginRace reports whether a and b, of one origin, race: one writes,
// they are not accumulates of the same elements, and the first in program
// order is not complete at the target before the second starts.
func sameOriginRace(a, b *access) bool {
	if !a.write && !b.write || sameElements(a, b) {
		return false
	}
	if b.idx < a.idx {
		a, b = b, a
	}
	complete := a.done != nil && a.done.idx < b.idx || a.fetched > 0 && a.fetched <= b.idx
	return !complete
}

// fetched notes the MPI_Rget and MPI_Rget_accumulate requests that
// completion call c (index idx among the rank's calls) completed: those it
// set to MPI_REQUEST_NULL.
func (s *scan) fetched(p *trace.Process, c *trace.Call, idx int) {
	var in, out []uint64
	for i, f := range c.Def.In {
		switch f.Name {
		case "request":
			in = []uint64{c.In(i)}
		case "array_of_requests":
			in = c.InWords(i)
		}
	}
	for i, f := range c.Def.Out {
		if f.Handle == "request" && strings.HasSuffix(f.Name, "_out") {
			if f.Kind == api.FHandles {
				out = c.OutWords(i)
			} else {
				out = []uint64{c.Out(i)}
			}
		}
	}
	null, _ := p.Const("MPI_REQUEST_NULL")
	for j, h := range in {
		k := [2]uint64{uint64(p.Rank), h}
		if a := s.rgets[k]; a != nil && j < len(out) && h != null && out[j] == null {
			a.fetched = idx + 1
			delete(s.rgets, k)
		}
	}
}

// repeatRaces reports the Puts (and accumulates of no one basic type)
// that a repeat of the same call in the same epoch races with: the repeat
// was left out (repeated), with the same target bytes, and no window call
// between them completed the first.
func (s *scan) repeatRaces(seen map[[3]uint64]bool) {
	for _, a := range s.accesses {
		if a.again == nil || a.hi <= a.lo {
			continue
		}
		b := *a
		b.call = *a.again
		if sameOriginRace(a, &b) {
			s.raceOnce(seen, a, &b)
		}
	}
}

// originRace reports two operations of one origin that race.
func (s *scan) originRace(a, b *access) {
	if b.idx < a.idx {
		a, b = b, a
	}
	lo, hi := overlap(a, b)
	la, lb := s.loc(&a.call, "the first operation"), s.loc(&b.call, "the second, the first not complete at the target")
	if a.c.PC == b.c.PC {
		la.Note, lb.Note = "the operation, repeated in one epoch", "called again here"
	}
	locs := []check.Location{la, lb}
	if w := a.w.created[a.target]; w != nil {
		locs = append(locs, s.loc(w, "the target's window, created here"))
	}
	s.pass.Report(check.Finding{Kind: "rma-race", Message: fmt.Sprintf(
		"%s and %s from rank %d touch bytes %d-%d of rank %d's window in one epoch with %s: %s",
		a.c.Name(), b.c.Name(), a.origin, lo, hi-1, a.target, completer(a), why(a, b)), Locations: locs})
}

// completer says what did not complete a before the second operation.
func completer(a *access) string {
	switch {
	case a.lock:
		return "no MPI_Win_flush or MPI_Win_unlock between them"
	case a.start != nil:
		return "no MPI_Win_complete between them"
	}
	return "no MPI_Win_fence between them"
}

// why says why the pair is not ordered.
func why(a, b *access) string {
	if a.atomic && b.atomic {
		if a.elem == "" || a.elem != b.elem {
			return fmt.Sprintf("accumulates of one origin are ordered only on the same basic type (here %s and %s)", orUnknown(a.elem), orUnknown(b.elem))
		}
		return "accumulates of one origin are ordered only on the same elements (these have different element boundaries)"
	}
	return "the operations of one origin complete at the target in no set order (MPI 4.0 §12.7), only accumulates of the same elements are ordered"
}

func orUnknown(t string) string {
	if t == "" {
		return "a type of several or unknown basic types"
	}
	return t
}
