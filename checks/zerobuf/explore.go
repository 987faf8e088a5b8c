package zerobuf

import (
	"mpivet/check"
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

func (l *lazySlack) Need(rank int, w *trace.Wildcard, a explore.Alt) (explore.Alt, bool) {
	if !l.built {
		l.built = true
		l.sl = NewSlack(l.u, l.buffered, l.all)
		l.maps = map[int][]trace.Mapping{}
		for _, p := range l.u.In.Run.Procs {
			l.maps[p.Rank] = p.Maps
		}
		l.u = nil
	}
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
	ref := func(s Send) *explore.SendRef {
		r := &explore.SendRef{Rank: s.Rank, Ordinal: s.Ordinal, Dest: s.Dest, Maps: l.maps[s.Rank]}
		if s.Call != nil {
			r.PC = s.Call.PC
		}
		return r
	}
	a.Send = ref(*n.Send)
	for _, s := range n.Buffer {
		a.Buffer = append(a.Buffer, *ref(s))
	}
	return a, true
}
