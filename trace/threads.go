package trace

import (
	"fmt"
	"strconv"
	"strings"

	"mpivet/api"
)

// ThreadID is who a thread of a rank that called MPI is (api.MetaThread):
// its number in this run's record headers (Call.Thread, the order in which
// threads first called MPI) and its identity, the same in every run.
type ThreadID struct {
	No     uint8
	ID     uint32 // its path among the threads the program created (ThreadPath)
	Thread Thread // who it was at its first MPI call (its OpenMP number there)
}

func (p *Process) metaThread(w []uint64) {
	if len(w) < 5 {
		return
	}
	if p.ThreadIDs == nil {
		p.ThreadIDs = map[uint8]ThreadID{}
	}
	no := uint8(w[0])
	p.ThreadIDs[no] = ThreadID{No: no, ID: uint32(w[1]), Thread: thread(w[2:5])}
}

// ThreadOf is the identity of the thread whose records carry number no
// (Call.Thread): the first thread's is 0 (the process's initial thread).
func (p *Process) ThreadOf(no uint8) uint32 {
	if t, ok := p.ThreadIDs[no]; ok {
		return t.ID
	}
	if no == 0 {
		return 0
	}
	return api.ThreadUnnamed | uint32(no)
}

// ThreadPath writes a thread's identity as its path: "0" for the process's
// initial thread, "3" for the third thread it created, "3.1" for the first
// that one created; "#N" for a thread the layer could not name (its number
// in this run only).
func ThreadPath(id uint32) string {
	if id&api.ThreadUnnamed != 0 {
		return "#" + strconv.Itoa(int(id&0xff))
	}
	if id == 0 {
		return "0"
	}
	var parts []string
	for ; id != 0; id >>= 8 {
		parts = append(parts, strconv.Itoa(int(id&0xff)))
	}
	return strings.Join(parts, ".")
}

// ParseThreadPath reads what ThreadPath wrote (not "#N").
func ParseThreadPath(s string) (uint32, error) {
	if s == "0" {
		return 0, nil
	}
	var id uint32
	for i, part := range strings.Split(s, ".") {
		k, err := strconv.Atoi(part)
		if err != nil || k < 1 || k > 255 || i > 2 {
			return 0, fmt.Errorf("thread %q: not a thread path (N, N.N or N.N.N, each 1 to 255)", s)
		}
		id |= uint32(k) << (8 * i)
	}
	return id, nil
}

// ThreadName names a thread of p by its identity for a report: "thread 0
// (the main thread)", "thread 3", or, for an OpenMP thread (one whose first
// MPI call was in a parallel region), "OpenMP thread 2 (thread 3)".
func (p *Process) ThreadName(id uint32) string {
	if id == 0 {
		return "thread 0 (the main thread)"
	}
	for _, t := range p.ThreadIDs {
		if t.ID == id && t.Thread.OMP > 0 {
			return fmt.Sprintf("OpenMP thread %d (thread %s)", t.Thread.OMP, ThreadPath(id))
		}
	}
	return "thread " + ThreadPath(id)
}

// EventName is EventName(e) with the thread named as ThreadName does.
func (p *Process) EventName(e uint64) string {
	if e>>32 == 0 {
		return EventName(e)
	}
	return fmt.Sprintf("%s's event %d", p.ThreadName(uint32(e>>32)), e&0xffffffff)
}

// SlotThreadName names the thread of the state page's slot (ThreadSlots)
// as ThreadName does; the last slot, shared by the threads past the
// others, names none of them.
func (p *Process) SlotThreadName(slot int) string {
	if slot >= api.StateSlots-1 {
		return fmt.Sprintf("a thread past the first %d", api.StateSlots-1)
	}
	return p.ThreadName(p.ThreadOf(uint8(slot)))
}
