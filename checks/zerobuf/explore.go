package zerobuf

import (
	"sort"

	"mpivet/check"
	"mpivet/checks/internal/comms"
	"mpivet/checks/internal/objects"
	"mpivet/checks/zerobuf/internal/ops"
	"mpivet/explore"
	"mpivet/trace"
)

// ForExplorer gives the explorer the minimal slack of the run of u (Slack),
// built when it is first asked: most runs have no alternative to ask about.
// ds are the decisions the run was made with (the sends it buffered), all
// says that every standard-mode send was buffered (--buffering=infinite).
func ForExplorer(u *check.Unit, ds []explore.Decision, all bool) explore.Slack {
	buffered := map[int]map[uint64]bool{}
	for _, d := range ds {
		if d.Kind == explore.BufferKind {
			if buffered[d.Rank] == nil {
				buffered[d.Rank] = map[uint64]bool{}
			}
			buffered[d.Rank][d.Event] = true
		}
	}
	return &lazySlack{u: u, buffered: buffered, all: all}
}

type lazySlack struct {
	u        *check.Unit
	buffered map[int]map[uint64]bool
	all      bool
	built    bool
	sl       *Slack
	maps     map[int][]trace.Mapping
}

func (l *lazySlack) build() {
	if !l.built {
		l.built = true
		l.sl = NewSlack(l.u, l.buffered, l.all)
		l.maps = map[int][]trace.Mapping{}
		for _, p := range l.u.In.Run.Procs {
			l.maps[p.Rank] = p.Maps
		}
		l.u = nil
	}
}

func (l *lazySlack) ref(s Send) *explore.SendRef {
	r := &explore.SendRef{Rank: s.Rank, Ordinal: s.Ordinal, Dest: s.Dest, Maps: l.maps[s.Rank]}
	if s.Call != nil {
		r.PC = s.Call.PC
	}
	return r
}

func (l *lazySlack) Need(rank int, w *trace.Wildcard, a explore.Alt) (explore.Alt, bool) {
	l.build()
	if w.Offset == trace.Unknown || a.World < 0 {
		return a, true
	}
	n := l.sl.Need(rank, w.Offset, a.World)
	if !n.Known {
		return a, true
	}
	if !n.Possible {
		return a, false
	}
	a.Send = l.ref(*n.Send)
	for _, s := range n.Buffer {
		a.Buffer = append(a.Buffer, *l.ref(s))
	}
	return a, true
}

// BlockedSends are the standard-mode sends (MPI_Send, MPI_Isend) that the
// ranks of a stopped run wait for: the send a rank is blocked in, and the
// pending ones of a rank blocked in a completion call. In a deadlock that
// exists only for want of buffering (unsafe-buffering), buffering them lets
// the run go on, as an MPI with more buffer space would. Each blocked
// rank's calls are read once (trace.Process.Calls); what is kept is the
// MPI_Isend requests not completed (as far as the records go).
func BlockedSends(u *check.Unit) []explore.SendRef {
	var out []explore.SendRef
	for _, p := range u.In.Run.Procs {
		cur := p.Last()
		if p.Rank < 0 || cur == nil || cur.Returned {
			continue
		}
		out = append(out, blockedSends(p, cur)...)
	}
	return out
}

// blockedSends reads rank p's calls for the standard sends it waits for
// in cur, its last call: cur itself if it is an MPI_Send, else, in a
// completion call, the MPI_Isend requests not completed, in the order they
// were created.
func blockedSends(p *trace.Process, cur *trace.Call) []explore.SendRef {
	ms := comms.NewTracker(p)
	ref := func(c *trace.Call, k uint64) explore.SendRef {
		dest := -1
		if h := c.Word("comm"); ms.Known(h) {
			dest = ops.WorldRank(ms.Members(h), c.Int("dest"))
		}
		return explore.SendRef{Rank: p.Rank, Ordinal: k, Dest: dest, PC: c.PC, Maps: p.Maps}
	}
	type pending struct {
		ref    explore.SendRef
		serial int
	}
	isends := map[uint64]explore.SendRef{} // MPI_Isend calls by entry record, while their request is followed
	open := map[*objects.Object]*pending{}
	serial := 0
	f := objects.NewFollower(p)
	f.Start = func(o *objects.Object, c *trace.Call) {
		if r, ok := isends[o.Created.Offset]; ok && o.Created.Name() == "MPI_Isend" {
			open[o] = &pending{r, serial}
			serial++
			delete(isends, o.Created.Offset)
		}
	}
	f.Done = func(o *objects.Object, c *trace.Call) { delete(open, o) }
	var n uint64
	var out []explore.SendRef
	following := cur.Def.Has("completion")
	for c := range p.Calls() {
		ms.Created(c)
		if nm := c.Name(); nm == "MPI_Send" || nm == "MPI_Isend" {
			switch {
			case c.Offset == cur.Offset && nm == "MPI_Send":
				out = append(out, ref(c, n))
			case nm == "MPI_Isend" && following:
				isends[c.Offset] = ref(c, n)
			}
			n++
		}
		if following && !f.Step(c) {
			following = false
		}
		clear(isends) // (an MPI_Isend's request is started by its own call)
	}
	if !cur.Def.Has("completion") {
		return out
	}
	ps := make([]*pending, 0, len(open))
	for _, x := range open {
		ps = append(ps, x)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].serial < ps[j].serial })
	for _, x := range ps {
		out = append(out, x.ref)
	}
	return out
}

// NeededSlack describes the matches of the run of u that needed buffering:
// for each matched wildcard receive whose send could only be issued while
// it was unmatched if some sends were buffered (by the MPI, eagerly, or by
// mpivet), a branch whose Forced names those sends and the send matched.
// ds and all are ForExplorer's.
func NeededSlack(u *check.Unit, ds []explore.Decision, all bool) []*explore.Branch {
	l := ForExplorer(u, ds, all).(*lazySlack)
	run := u.In.Run
	var out []*explore.Branch
	for _, p := range run.Procs {
		for _, w := range p.Wild {
			if !w.Matched || w.Kind != trace.WildRecv || w.Offset == trace.Unknown {
				continue
			}
			l.build()
			n := l.sl.Matched(p.Rank, w.Offset)
			if !n.Known || !n.Possible || len(n.Buffer) == 0 {
				continue
			}
			b := &explore.Branch{Rank: p.Rank, Event: w.Event, Kind: w.Kind, PC: w.PC, Maps: p.Maps}
			b.Forced.Send = l.ref(*n.Send)
			for _, s := range n.Buffer {
				b.Forced.Buffer = append(b.Forced.Buffer, *l.ref(s))
			}
			out = append(out, b)
		}
	}
	return out
}
