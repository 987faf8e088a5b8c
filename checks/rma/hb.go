package rma

import (
	"sort"

	"mpivet/trace"
)

// The happens-before order of the run's synchronisations, rebuilt after the
// run with vector clocks over the logged calls: a rank's own component is
// the index of its latest call plus one, so a clock costs nothing between
// synchronisations, and clocks are kept only where an access starts.
// Synchronisations: collectives that let no member leave before all entered
// (barrier-like ones, window creation, fence and free: every member's clock
// becomes their join), a post that a start naming its rank waits for, and a
// complete that the wait of the matching post waits for, and a message
// sent before the completion of the receive that takes it (p2p.go).

type syncKind uint8

const (
	syncColl     syncKind = iota // id, members
	syncPost                     // peers: the origins
	syncStart                    // peers: the targets
	syncComplete                 // peers: the targets of the start
	syncWait                     // peers: the origins of the post
	syncAccess                   // not a synchronisation: an access starts (its clock is kept)
	syncSend                     // msg: a message sent
	syncRecv                     // msg: the completion of its receive
)

type sync struct {
	at      int // index of the call in the rank's calls
	kind    syncKind
	id      string
	members []int
	peers   []int
	access  *access
	msg     msgKey
	late    bool // after every other synchronisation at the same call (a target's access after the call)
}

func (s *scan) addSync(p *trace.Process, y sync) { s.syncs[p] = append(s.syncs[p], y) }

// sim replays the synchronisations of every rank to give each access its
// clock and each completion its origin's time.
type sim struct {
	n       int
	vc      map[int][]int
	next    map[int]int              // next sync of each rank
	arrived map[string]map[int][]int // collective id -> member -> clock on entry
	sent    map[[3]int][][]int       // (kind, from, to) -> clocks sent, in order
	used    map[[3]int]int           // how many of them were taken
	syncs   map[int][]sync           // by world rank
	msgs    map[msgKey][][]int       // clocks of the messages sent on each channel, in order
	taken   map[msgKey]int           // how many of them receives took
}

func clocks(s *scan) {
	n := 0
	for r := range s.procs {
		n = max(n, r+1)
	}
	m := &sim{n: n, vc: map[int][]int{}, next: map[int]int{}, arrived: map[string]map[int][]int{},
		sent: map[[3]int][][]int{}, used: map[[3]int]int{}, syncs: map[int][]sync{},
		msgs: map[msgKey][][]int{}, taken: map[msgKey]int{}}
	for p, ys := range s.syncs {
		// receives are placed at their completion, after the calls between
		sort.SliceStable(ys, func(i, j int) bool { return ys[i].at < ys[j].at || ys[i].at == ys[j].at && !ys[i].late && ys[j].late })
		m.syncs[p.Rank] = ys
		m.vc[p.Rank] = make([]int, n)
	}
	for {
		progress, left := false, false
		for r, ys := range m.syncs {
			for m.next[r] < len(ys) && m.step(r, ys[m.next[r]], false) {
				m.next[r]++
				progress = true
			}
			left = left || m.next[r] < len(ys)
		}
		if !left {
			break
		}
		if !progress { // a partner never came (a hang, a mismatch): go on without it
			for r, ys := range m.syncs {
				if m.next[r] < len(ys) {
					m.step(r, ys[m.next[r]], true)
					m.next[r]++
					break
				}
			}
		}
	}
	for _, a := range s.accesses {
		if a.done != nil {
			a.doneVC = a.done.idx + 1
		} else {
			a.doneVC = maxInt
		}
	}
}

func join(a, b []int) {
	for i := range a {
		if i < len(b) && b[i] > a[i] {
			a[i] = b[i]
		}
	}
}

// step passes rank r's synchronisation y, if what it waits for happened
// (or force).
func (m *sim) step(r int, y sync, force bool) bool {
	vc := m.vc[r]
	if vc[r] < y.at+1 {
		vc[r] = y.at + 1
	}
	switch y.kind {
	case syncAccess:
		y.access.vc = append([]int(nil), vc...)
	case syncColl:
		got := m.arrived[y.id]
		if got == nil {
			got = map[int][]int{}
			m.arrived[y.id] = got
		}
		if got[r] == nil {
			got[r] = append([]int(nil), vc...)
		}
		for _, q := range y.members {
			if got[q] == nil && m.syncs[q] != nil && !force {
				return false
			}
		}
		for _, c := range got {
			join(vc, c)
		}
	case syncPost, syncComplete:
		for _, q := range y.peers {
			k := [3]int{int(y.kind), r, q}
			m.sent[k] = append(m.sent[k], append([]int(nil), vc...))
		}
	case syncSend:
		m.msgs[y.msg] = append(m.msgs[y.msg], append([]int(nil), vc...))
	case syncRecv:
		k := m.taken[y.msg]
		if k >= len(m.msgs[y.msg]) {
			if !force && m.syncs[y.msg.src] != nil {
				return false
			}
			break
		}
		join(vc, m.msgs[y.msg][k])
		m.taken[y.msg]++
	case syncStart, syncWait:
		from := syncPost
		if y.kind == syncWait {
			from = syncComplete
		}
		for _, q := range y.peers {
			k := [3]int{int(from), q, r}
			if m.used[k] >= len(m.sent[k]) && m.syncs[q] != nil && !force {
				return false
			}
		}
		for _, q := range y.peers {
			k := [3]int{int(from), q, r}
			if m.used[k] < len(m.sent[k]) {
				join(vc, m.sent[k][m.used[k]])
				m.used[k]++
			}
		}
	}
	return true
}
