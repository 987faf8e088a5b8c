// Package comms places communicators across ranks. Handle values differ
// between ranks (in Open MPI they are addresses), so checks that compare
// what different ranks did on "the same" communicator name it with Key, and
// find its members with Members.
package comms

import (
	"fmt"

	"mpivet/trace"
)

// Members returns the world ranks of communicator comm as rank p sees it
// (for an intercommunicator, the remote group: the ranks point-to-point
// calls name).
func Members(p *trace.Process, comm uint64) []int {
	if v, ok := p.Const("MPI_COMM_WORLD"); ok && v == comm {
		w := make([]int, p.Size)
		for i := range w {
			w[i] = i
		}
		return w
	}
	if v, ok := p.Const("MPI_COMM_SELF"); ok && v == comm {
		return []int{p.Rank}
	}
	var found []int
	for _, c := range p.Calls { // the latest communicator with this handle
		if c.Comm != nil && c.Comm.Handle == comm {
			found = c.Comm.World
			if c.Comm.Remote != nil {
				found = c.Comm.Remote
			}
		}
	}
	return found
}

// Key names a communicator the same way on every rank: "world", "self:R",
// or the world ranks of its members with the communicator's position among
// those this rank created with the same members (members create their
// communicators collectively, so in the same order).
func Key(p *trace.Process, comm uint64) string {
	if v, ok := p.Const("MPI_COMM_WORLD"); ok && v == comm {
		return "world"
	}
	if v, ok := p.Const("MPI_COMM_SELF"); ok && v == comm {
		return fmt.Sprintf("self:%d", p.Rank)
	}
	seen := map[string]int{}
	key := fmt.Sprintf("unknown:%d:%#x", p.Rank, comm)
	for _, c := range p.Calls {
		if c.Comm == nil {
			continue
		}
		m := fmt.Sprint(c.Comm.World, c.Comm.Remote)
		if c.Comm.Handle == comm {
			key = fmt.Sprintf("%s#%d", m, seen[m])
		}
		seen[m]++
	}
	return key
}

// IsInter reports whether comm is an intercommunicator.
func IsInter(p *trace.Process, comm uint64) bool {
	inter := false
	for _, c := range p.Calls {
		if c.Comm != nil && c.Comm.Handle == comm {
			inter = c.Comm.Remote != nil
		}
	}
	return inter
}

// Name is how reports show a communicator.
func Name(p *trace.Process, comm uint64) string {
	if names := p.Consts[comm]; len(names) > 0 {
		return names[0]
	}
	ms := Members(p, comm)
	if ms == nil {
		return fmt.Sprintf("communicator %#x", comm)
	}
	return fmt.Sprintf("the communicator of world ranks %v", ms)
}
