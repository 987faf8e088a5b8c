package rma

import (
	"fmt"
	"sort"

	"mpivet/api"
	"mpivet/check"
)

// bytes sets the target bytes an access touches and what it does there.
func (s *scan) bytes(a *access) {
	c, p := a.c, a.p
	ws := p.RMA[c.Offset]
	if len(ws) < api.RMAWords {
		return // no span recorded: nothing to compare
	}
	disp := c.Int("target_disp")
	if !a.w.dynamic {
		unit, ok := a.w.dispUnit[a.target]
		if !ok {
			return
		}
		disp *= unit
	}
	a.lo = disp + int64(ws[api.RMATargetLB])
	a.hi = a.lo + int64(ws[api.RMATargetSpan])
	name := c.Name()
	tf := "target_datatype"
	if !c.HasField(tf) {
		tf = "datatype"
	}
	if ns := p.Consts[c.Word(tf)]; len(ns) > 0 {
		a.typ = ns[0]
	}
	a.elem = a.typ
	if rest := ws[api.RMAWords:]; len(rest) > 0 && uint64(len(rest)) >= 1+2*rest[0] {
		for i := uint64(0); i < rest[0]; i++ {
			off := disp + int64(rest[1+2*i])
			a.blocks = append(a.blocks, [2]int64{off, off + int64(rest[2+2*i])})
		}
		if el := rest[1+2*rest[0]:]; len(el) >= 2 { // the type map's basic type and its extent
			a.elem, a.esize = "", int64(el[1])
			if ns := p.Consts[el[0]]; el[0] != 0 && len(ns) > 0 {
				a.elem = ns[0]
			}
		}
	}
	switch name {
	case "MPI_Put", "MPI_Rput":
		a.write = true
	case "MPI_Get", "MPI_Rget":
	case "MPI_Compare_and_swap":
		a.write, a.atomic, a.op = true, true, "cas"
	default: // accumulates
		a.atomic = true
		if ns := p.Consts[c.Word("op")]; len(ns) > 0 {
			a.op = ns[0]
		}
		a.write = a.op != "MPI_NO_OP"
	}
}

// spans are the target bytes the access touches: its datatype's blocks,
// or the one range [lo, hi).
func (a *access) spans() [][2]int64 {
	if a.blocks == nil {
		return [][2]int64{{a.lo, a.hi}}
	}
	return a.blocks
}

// overlap returns the first bytes [lo, hi) both accesses touch (hi <= lo:
// none), from their blocks where the target datatype is derived.
func overlap(a, b *access) (int64, int64) {
	if a.hi <= b.lo || b.hi <= a.lo {
		return 0, 0
	}
	as, bs := a.spans(), b.spans()
	for _, x := range as {
		for _, y := range bs {
			if lo, hi := max(x[0], y[0]), min(x[1], y[1]); lo < hi {
				return lo, hi
			}
		}
	}
	return 0, 0
}

// conflict reports whether two accesses of different origins to
// overlapping bytes conflict: one writes, and they are not both atomic
// accumulates of the same elements (sameElements) with compatible
// operations.
func conflict(a, b *access) bool {
	if !a.write && !b.write {
		return false
	}
	if sameElements(a, b) {
		if a.op == b.op || a.op == "MPI_NO_OP" || b.op == "MPI_NO_OP" || a.op == "cas" || b.op == "cas" {
			return false
		}
	}
	return true
}

// sameElements reports whether a and b are accumulate-class operations
// whose target type maps have the same one predefined basic type, with
// elements at the same offsets where they overlap: an accumulate is atomic
// per element of its basic type (MPI 4.0 §12.7.1), so the datatypes
// themselves (4 ints as one contiguous type, a vector of ints, MPI_INT)
// may differ. Ints at byte 0 and ints at byte 1 are not the same elements,
// nor are ints over half of a double.
func sameElements(a, b *access) bool {
	if !a.atomic || !b.atomic || a.elem == "" || a.elem != b.elem {
		return false
	}
	if a.esize <= 0 || b.esize != a.esize {
		return a.esize == b.esize // not recorded: the same predefined datatype
	}
	as, bs := a.spans(), b.spans()
	for _, x := range as {
		for _, y := range bs {
			if max(x[0], y[0]) < min(x[1], y[1]) && (x[0]-y[0])%a.esize != 0 {
				return false
			}
		}
	}
	return true
}

// ordered reports whether a completes before b starts, or b before a, or
// exclusive locks serialise their epochs.
func ordered(a, b *access) bool {
	if a.lock && b.lock && (a.excl || b.excl) {
		return true
	}
	before := func(x, y *access) bool { return x.doneVC != maxInt && y.vc != nil && y.vc[x.origin] >= x.doneVC }
	return before(a, b) || before(b, a)
}

// races compares the accesses to each target of each window that may be
// concurrent: sorted by generation (fences and barrier-like collectives on
// the window's communicator, which every member passes alike), an access
// can only race with those that start before its generation ends.
func (s *scan) races() {
	groups := map[string][]*access{}
	var keys []string
	for _, a := range s.accesses {
		s.bytes(a) // once every rank's windows are known: the target's disp_unit
		if a.hi <= a.lo {
			continue
		}
		k := fmt.Sprintf("%s@%d", a.w.key, a.target)
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], a)
	}
	sort.Strings(keys)
	seen := map[[3]uint64]bool{}
	for _, k := range keys {
		as := groups[k]
		sort.SliceStable(as, func(i, j int) bool { return as[i].gen < as[j].gen })
		for i, a := range as {
			s.pass.In.Run.CheckStop() // a bounded analysis may stop here (trace.Run.StopWhen)
			for _, b := range as[i+1:] {
				if b.gen > a.doneAt {
					break
				}
				if b.lo >= a.hi || a.lo >= b.hi {
					continue
				}
				if a.origin == b.origin && !sameOriginRace(a, b) || a.origin != b.origin && (!conflict(a, b) || ordered(a, b)) {
					continue
				}
				s.raceOnce(seen, a, b)
			}
		}
	}
	s.repeatRaces(seen)
}

// raceOnce reports the race of a and b, once per pair of call sites and
// target, if their bytes overlap.
func (s *scan) raceOnce(seen map[[3]uint64]bool, a, b *access) {
	if lo, hi := overlap(a, b); hi <= lo {
		return
	}
	id := [3]uint64{min(a.c.PC, b.c.PC), max(a.c.PC, b.c.PC), uint64(a.target)}
	if seen[id] {
		return
	}
	seen[id] = true
	if a.origin == b.origin {
		s.originRace(a, b)
	} else {
		s.race(a, b)
	}
}

func (s *scan) race(a, b *access) {
	if b.origin < a.origin {
		a, b = b, a
	}
	lo, hi := overlap(a, b)
	la, lb := s.loc(&a.call, fmt.Sprintf("rank %d's operation", a.origin)), s.loc(&b.call, fmt.Sprintf("rank %d's operation", b.origin))
	locs := []check.Location{la, lb}
	if w := a.w.created[a.target]; w != nil {
		locs = append(locs, s.loc(w, "the target's window, created here"))
	}
	s.pass.Report(check.Finding{Kind: "rma-race", Message: fmt.Sprintf(
		"%s from rank %d and %s from rank %d touch bytes %d-%d of rank %d's window with nothing ordering them (%s)",
		a.c.Name(), a.origin, b.c.Name(), b.origin, lo, hi-1, a.target, interval(a, b)), Locations: locs})
}

func interval(a, b *access) string {
	switch {
	case a.lock && b.lock:
		return "shared passive-target epochs, neither flushed or unlocked before the other began"
	case !a.lock && !b.lock:
		return "the same synchronisation interval"
	}
	return "epochs of different kinds"
}
