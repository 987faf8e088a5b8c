package whole

// Minimal slack enumeration (seed 001, §4), on the same model as the
// zero-buffering replay.
//
// MPI programs are slack inelastic: whether a standard-mode send is
// buffered changes which sends can race for a wildcard receive. A send S can
// match a wildcard receive R only if S can be issued while R is still
// unmatched: if there is no completes-before path from R to S. Such a path
// goes through the completion calls of the run (a send's wait waits for its
// receive to be posted, a receive's for its send, a collective for every
// member); a path through the wait of an unbuffered standard send breaks if
// that send is buffered. The clock protocol cannot see those paths: a
// send's completion carries no clock back from its receiver, so the clocks
// offer S as a potential match of R whether or not some send must be
// buffered first, or whether the match can happen at all.
//
// Slack answers that question for each potential match the clocks found, by
// running the zero-buffering model with R frozen (posted, never matched) and
// asking whether S is issued. R's own match loses its receiver (its send
// completes only if buffered). If S is not issued, the unbuffered standard
// sends whose waits block ranks are the candidates; sets of them are tried
// by increasing size (breadth first), so the first that lets S be issued is
// a minimal wait set (Definition 8): the sends to buffer. Past maxTries sets
// or maxSetSize sends the answer is unknown, and the match is tried as the
// clocks say (as without this model). A path that no
// buffering breaks (through a receive, a synchronous send, a collective:
// seed 001 Fig. 5(b)) leaves no set: the match cannot happen, and no replay
// is spent on it.

import (
	"sort"

	"mpivet/checks/zerobuf/internal/ops"
	"mpivet/trace"
)

// Slack answers, for the matched wildcard receives of one run, which sends
// must be buffered for another source to match them.
type Slack struct {
	s      *sim
	all    []*ops.Op
	colls  []*ops.Coll
	recvAt map[recvKey]*ops.Op   // wildcard receives and probes, by rank and entry record
	index  map[*ops.Op]int       // position among its rank's operations, in post order
	ord    map[*ops.Op]uint64    // a standard send's number among its rank's (layer/src/slack)
	chans  map[chanKey][]*ops.Op // sends by channel, in order
}

type recvKey struct {
	rank   int
	offset uint64
}

type chanKey struct {
	to, from, comm int32
}

// Send is a send Slack names: which rank made it, its number among the
// rank's standard-mode sends (what a buffering decision names), where it
// goes and its call.
type Send struct {
	Rank    int
	Ordinal uint64
	Dest    int // world rank
	Call    *trace.Call
}

// Need is what it takes for a wildcard receive to match a source.
type Need struct {
	// Known is false when the model cannot tell (the receive or the send
	// is not in it): the match is to be tried as the clocks say.
	Known bool
	// Possible: some buffering of standard sends lets the match happen.
	Possible bool
	Buffer   []Send // the sends to buffer (none: possible as it is)
	Send     *Send  // the send that can then match
}

// maxTries bounds the sets of sends tried per match: the problem is
// #P-complete (seed 001, Theorem 4); more is reported as impossible.
const (
	maxTries   = 64
	maxSetSize = 4
)

// NewSlack builds the model of run (its cost: see the package comment).
// buffered says which standard sends the layer buffered in that run (by
// rank, their numbers), all that it buffered them all
// (--buffering=infinite). nil if the records do not describe the run well
// enough.
func NewSlack(run *trace.Run, buffered map[int]map[uint64]bool, all bool) *Slack {
	s := newSim()
	for _, p := range run.Procs {
		if why := s.build(p); why != "" {
			return nil
		}
	}
	if why := s.match(); why != "" {
		return nil
	}
	sl := &Slack{s: s, recvAt: map[recvKey]*ops.Op{}, index: map[*ops.Op]int{}, ord: map[*ops.Op]uint64{}, chans: map[chanKey][]*ops.Op{}}
	for _, c := range s.table.Colls {
		sl.colls = append(sl.colls, c)
	}
	for _, w := range s.order {
		rk := s.ranks[w]
		i := 0
		for _, e := range rk.events {
			for _, o := range e.Posts {
				if _, dup := sl.index[o]; dup {
					continue
				}
				sl.all = append(sl.all, o)
				sl.index[o] = i
				i++
				switch o.Kind {
				case ops.SendOp:
					if k, ok := rk.ords[o.Call.Offset]; ok {
						sl.ord[o] = k
						o.Buffered = o.Buffered || all || buffered[w][k]
					}
					ch := chanKey{o.Dst, o.Src, o.Comm}
					sl.chans[ch] = append(sl.chans[ch], o)
				case ops.RecvOp, ops.ProbeOp:
					if e.Call != nil {
						sl.recvAt[recvKey{w, e.Call.Offset}] = o
					}
				}
			}
		}
		rk.ords = nil // the numbers are in sl.ord
	}
	return sl
}

// Need says what it takes for the wildcard receive or probe of rank whose
// call has entry record offset to match a message of world rank source.
func (sl *Slack) Need(rank int, offset uint64, source int) Need {
	if sl == nil {
		return Need{}
	}
	r := sl.recvAt[recvKey{rank, offset}]
	if r == nil {
		return Need{}
	}
	return sl.search(r, sl.candidate(r, int32(source)))
}

// Matched says what the match the wildcard receive of rank whose call has
// entry record offset made in the run needed: the sends that had to be
// buffered (by the MPI, or by mpivet) for its send to be issued while the
// receive was unmatched.
func (sl *Slack) Matched(rank int, offset uint64) Need {
	if sl == nil {
		return Need{}
	}
	r := sl.recvAt[recvKey{rank, offset}]
	if r == nil || r.Kind != ops.RecvOp {
		return Need{}
	}
	return sl.search(r, r.Peer)
}

// search finds a minimal set of sends to buffer for s to be issued while r
// is unmatched.
func (sl *Slack) search(r, s *ops.Op) Need {
	if s == nil {
		return Need{}
	}
	target := sl.send(s)
	need := Need{Known: true, Send: &target}
	// breadth first over sets of sends to buffer
	type set []*ops.Op
	queue := []set{nil}
	seen := map[string]bool{"": true}
	cut := false // a set was not extended: the search is not exhaustive
	for tries := 0; len(queue) > 0; tries++ {
		if tries == maxTries {
			cut = true
			break
		}
		b := queue[0]
		queue = queue[1:]
		ok, blocked, persistent := sl.reach(r, s, b)
		// a persistent standard send may be buffered by the MPI, not by
		// mpivet: past it the model cannot tell
		cut = cut || persistent
		if ok {
			need.Possible = true
			for _, o := range b {
				need.Buffer = append(need.Buffer, sl.send(o))
			}
			return need
		}
		if len(b) == maxSetSize {
			cut = cut || len(blocked) > 0
			continue
		}
		sl.prefer(blocked, s)
		for _, o := range blocked {
			nb := append(append(set{}, b...), o)
			sort.Slice(nb, func(i, j int) bool { return sl.before(nb[i], nb[j]) })
			k := sl.key(nb)
			if !seen[k] {
				seen[k] = true
				queue = append(queue, nb)
			}
		}
	}
	// Past the bounds the model cannot tell: the run may also have relied
	// on the MPI's own buffering, which the model does not give.
	need.Known = !cut
	return need
}

// candidate is the send of source that r would take if it matched that
// source: the first message of that channel that r's tag accepts and that
// no receive posted before r took.
func (sl *Slack) candidate(r *ops.Op, source int32) *ops.Op {
	for _, s := range sl.chans[chanKey{r.Dst, source, r.Comm}] {
		if !r.AnyTag && s.Tag != r.Tag {
			continue
		}
		if s.Peer == nil || s.Peer == r || sl.index[s.Peer] > sl.index[r] {
			if s.Peer == r {
				return nil // r's own match: not another source
			}
			return s
		}
	}
	return nil
}

// reach runs the model with r frozen and the sends b buffered, and says
// whether s is issued; if not, the standard sends mpivet could buffer whose
// completion blocks a rank, and whether a persistent standard send (which
// the MPI may buffer, but mpivet does not) blocks one too.
func (sl *Slack) reach(r, s *ops.Op, b []*ops.Op) (bool, []*ops.Op, bool) {
	for _, o := range sl.all {
		o.Posted, o.Frozen, o.Orphan, o.Extra = false, false, false, false
	}
	for _, c := range sl.colls {
		c.Arrived = 0
	}
	for _, rk := range sl.s.ranks {
		rk.pos, rk.entered = 0, false
	}
	r.Frozen = true
	if r.Kind == ops.RecvOp && r.Peer != nil {
		r.Peer.Orphan = true
	}
	for _, o := range b {
		o.Extra = true
	}
	sl.s.run()
	if s.Posted {
		return true, nil, false
	}
	var blocked []*ops.Op
	persistent := false
	for _, w := range sl.s.order {
		rk := sl.s.ranks[w]
		if rk.pos >= len(rk.events) {
			continue
		}
		for _, o := range rk.events[rk.pos].Waits {
			if o.Kind != ops.SendOp || !o.Posted || o.Complete() {
				continue
			}
			if _, std := sl.ord[o]; std {
				blocked = append(blocked, o)
			} else if o.Call != nil && o.Call.Name() == "MPI_Send_init" {
				persistent = true
			}
		}
	}
	return false, blocked, persistent
}

// prefer orders candidate sends: those of s's own rank first (the wait
// nearest the send wanted, as seed 001 buffers P0's first send in Fig.
// 1(a)), then by rank and program order.
func (sl *Slack) prefer(os []*ops.Op, s *ops.Op) {
	sort.SliceStable(os, func(i, j int) bool {
		ai, aj := os[i].Rank == s.Rank, os[j].Rank == s.Rank
		if ai != aj {
			return ai
		}
		return sl.before(os[i], os[j])
	})
}

func (sl *Slack) before(a, b *ops.Op) bool {
	if a.Rank != b.Rank {
		return a.Rank < b.Rank
	}
	return sl.index[a] < sl.index[b]
}

func (sl *Slack) key(b []*ops.Op) string {
	k := make([]byte, 0, 16*len(b))
	for _, o := range b {
		k = append(k, byte(o.Rank), byte(o.Rank>>8), byte(o.Rank>>16))
		i := sl.index[o]
		k = append(k, byte(i), byte(i>>8), byte(i>>16), byte(i>>24), ';')
	}
	return string(k)
}

func (sl *Slack) send(o *ops.Op) Send {
	return Send{Rank: int(o.Rank), Ordinal: sl.ord[o], Dest: int(o.Dst), Call: o.Call}
}
