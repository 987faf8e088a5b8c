package rma

import (
	"fmt"
	"sort"

	"mpivet/api"
	"mpivet/check"
	"mpivet/trace"
)

// targetAccesses reports the target's own loads and stores of its window
// during an exposure epoch (a fence epoch, or between MPI_Win_post and
// MPI_Win_wait) that touch bytes a remote operation of the same epoch
// writes (a load or a store against a Put or Accumulate) or reads (a store
// against a Get). The layer (layer/src/buffers/exposure.c) records the
// first load and the first store of each page of the window in a watched
// epoch, with the byte it touched. Within an epoch nothing orders the
// target's own accesses with a remote operation: it completes at the
// target only when the epoch closes (MPI-3.1 §11.5.1, §11.7), whatever
// messages or barriers the ranks exchange in between. So an overlap is a
// race, reported with both lines. It returns the (remote operation's line,
// target) pairs reported, which the value check (targetStores) need not
// report again.
func (s *scan) targetAccesses() map[[2]uint64]bool {
	type fenceKey struct {
		w             *window
		target, fence int
	}
	byFence := map[fenceKey][]*access{}
	byStart := map[*trace.Call][]*access{}
	for _, a := range s.accesses {
		if a.origin == a.target || a.w.dynamic {
			continue
		}
		if a.fence > 0 {
			k := fenceKey{a.w, a.target, a.fence}
			byFence[k] = append(byFence[k], a)
		}
		if a.start != nil {
			byStart[a.start.c] = append(byStart[a.start.c], a)
		}
	}
	var ranks []int
	for r := range s.procs {
		ranks = append(ranks, r)
	}
	sort.Ints(ranks)
	reported := map[[2]uint64]bool{}
	seen := map[string]bool{}
	for _, r := range ranks {
		p := s.procs[r]
		for _, b := range p.Buffers {
			if b.Kind != api.AccessTargetLoad && b.Kind != api.AccessTargetStore {
				continue
			}
			opener := p.CallAt(b.Op)
			if opener == nil {
				continue
			}
			x, ok := s.openers[[2]uint64{uint64(r), opener.Offset}]
			if !ok {
				continue
			}
			var remote []*access
			if x.post != nil {
				remote = s.pscwOf(r, x.post, byStart)
			} else {
				remote = byFence[fenceKey{x.w, r, x.fence}]
			}
			store := b.Kind == api.AccessTargetStore
			off := int64(b.Other)
			mine := &access{lo: off, hi: off + 1}
			for _, a := range remote {
				if !store && !a.write {
					continue // two reads
				}
				if l, h := overlap(mine, a); l >= h {
					continue
				}
				reported[[2]uint64{a.c.PC, uint64(r)}] = true
				// one finding per pair of lines: every rank of a
				// stencil makes the same mistake
				id := s.pass.AtAccess(p, b.PCs).Where() + "|" + s.loc(&a.call, "").Where()
				if !seen[id] {
					seen[id] = true
					s.reportLocal(p, b, opener, x, a)
				}
				break
			}
		}
	}
	return reported
}

// pscwOf gives the operations of the origins of target r's post that
// their matching start (the k-th naming r for the k-th post naming them)
// covers.
func (s *scan) pscwOf(r int, post *call, byStart map[*trace.Call][]*access) []*access {
	var out []*access
	for _, o := range group(*post) {
		posts := s.posts[[2]int{r, o}]
		for k, q := range posts {
			if q.c != post.c {
				continue
			}
			if starts := s.starts[[2]int{o, r}]; k < len(starts) {
				for _, a := range byStart[starts[k].c] {
					if a.target == r {
						out = append(out, a)
					}
				}
			}
		}
	}
	return out
}

// reportLocal reports target rank p's access b against the remote
// operation a of the epoch x opened by opener.
func (s *scan) reportLocal(p *trace.Process, b trace.BufferAccess, opener *trace.Call, x exposure, a *access) {
	verb, rule := "read", "writes"
	if b.Kind == api.AccessTargetStore {
		verb = "wrote"
		if !a.write {
			rule = "reads"
		}
	}
	epoch := "fence epoch"
	if x.post != nil {
		epoch = "exposure epoch (MPI_Win_post to MPI_Win_wait)"
	}
	lo, hi := a.lo, a.hi
	for _, bl := range a.blocks {
		if bl[0] <= int64(b.Other) && int64(b.Other) < bl[1] {
			lo, hi = bl[0], bl[1]
		}
	}
	at := s.pass.AtAccess(p, b.PCs)
	at.Note = fmt.Sprintf("rank %d %s byte %d of its own window here", p.Rank, verb, b.Other)
	open := s.pass.At(p, opener)
	open.Note = fmt.Sprintf("the %s opens here; the remote operation completes at rank %d only when it closes", epoch, p.Rank)
	locs := []check.Location{at, s.loc(&a.call, fmt.Sprintf("rank %d's %s, in the same epoch", a.origin, a.c.Name())), open}
	s.pass.Report(check.Finding{Kind: "rma-race", Message: fmt.Sprintf(
		"rank %d %s byte %d of its own window during the %s in which %s from rank %d %s bytes %d-%d: "+
			"the target's own access is concurrent with the remote one (close the epoch first)",
		p.Rank, verb, b.Other, epoch, a.c.Name(), a.origin, rule, lo, hi-1), Locations: locs})
}
