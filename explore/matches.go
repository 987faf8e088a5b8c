// Package explore covers the nondeterminism of an MPI program by replay, as
// DAMPI does (seed 000, §5.3): from the clocks and wildcard events the ranks
// logged (layer/src/clocks/protocol.c), it finds which other sources each wildcard
// receive or probe could have matched, and which other requests each
// Waitany, Testany, Waitsome or Testsome could have returned, and runs the
// program again with decisions that force them, depth first, until every
// outcome is covered or a bound is reached.
//
// The files: matches.go finds each event's alternatives (Points, Alt) from
// one run's records; orders.go the completion orders that need no replay;
// explore.go the decisions a replay forces (Decision, Complete, the
// decision files) and the search's state (Branch, Interleaving); search.go
// the order of the search (levels, latest event first) and repeat.go why no
// replay repeats another; parallel.go runs replays of the frontier ahead of
// their turn (--jobs) while the search stays sequential; slack.go the
// buffering-aware part (sends a match needs buffered); timing.go replays
// that keep diverging; sites.go what the exploration did at each
// nondeterministic call site (SiteStats). docs/design/exploration.md is the
// design.
package explore

import (
	"slices"
	"sort"

	"mpivet/trace"
)

// Alt is a source a wildcard event could have matched instead.
type Alt struct {
	Source int64 // rank in the event's communicator: what a decision forces
	World  int   // its rank in MPI_COMM_WORLD, for reports (-1 unknown)
	// Buffer are the standard-mode sends the replay must buffer for the
	// match to be possible (seed 001's minimal slack), and Send the send
	// that can then match; both empty when the clocks' word is taken as
	// it is (Slack).
	Buffer []SendRef
	Send   *SendRef
	// Hold are the positions (numbered as events: thread in the high
	// bits) of other threads' receives that took a message from Source
	// in the run: a replay forcing the event holds them back until it has
	// matched (HoldKind decisions), or they may take the message first.
	Hold []uint64
}

// SendRef is a send of a run, as a replay's buffering decision names it
// (its rank and its number among the rank's MPI_Send and MPI_Isend calls)
// and a report places it.
type SendRef struct {
	Rank    int
	Ordinal uint64
	Dest    int             // world rank
	PC      uint64          // call site
	Maps    []trace.Mapping // of its rank, to place PC
}

// Slack knows which sends a run would have had to buffer for a wildcard
// event to match another source (seed 001: the clocks offer every send not
// known to come after the event, including sends that only buffering lets
// race for it, and sends that cannot race for it at all).
type Slack interface {
	// Need returns a annotated with what the match needs, and false if no
	// buffering of standard-mode sends makes it possible.
	Need(rank int, w *trace.Wildcard, a Alt) (Alt, bool)
}

// Point is a matched wildcard event of a run, with its alternatives.
type Point struct {
	Rank  int // world rank of the process
	Proc  *trace.Process
	Wild  *trace.Wildcard
	Alts  []Alt
	clock uint64
}

// Key orders points: by final clock, then rank, then event number. An event
// that matches-before another has a smaller clock (seed 000, Lemma 5.1/5.2),
// so every point is after all those it may depend on.
type Key struct {
	Clock uint64
	Rank  int
	Event uint64
}

// Less reports whether k is before l.
func (k Key) Less(l Key) bool {
	if k.Clock != l.Clock {
		return k.Clock < l.Clock
	}
	if k.Rank != l.Rank {
		return k.Rank < l.Rank
	}
	return k.Event < l.Event
}

// Key returns the point's position in the order.
func (p *Point) Key() Key { return Key{p.Wild.Clock, p.Rank, p.Wild.Event} }

// Points returns the matched wildcard events of a run in Key order, each
// with the sources it could have matched instead.
func Points(r *trace.Run) []*Point {
	var ps []*Point
	for _, p := range r.Procs {
		if p.Rank < 0 {
			continue
		}
		alts := Potential(p)
		for _, w := range p.Wild {
			if w.Matched {
				ps = append(ps, &Point{Rank: p.Rank, Proc: p, Wild: w, Alts: alts[w.Event], clock: w.Clock})
			}
		}
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Key().Less(ps[j].Key()) })
	return ps
}

// Potential computes the potential matches of one rank's wildcard events
// from the late messages it logged (seed 000, Theorem 5.3/5.5): a message m
// from source s, taken by a receive posted after wildcard event e, could have
// matched e if e is on the same communicator, e's tag accepts m's, e matched
// another source, and m's clock does not say it was sent after e matched
// (m.clock <= e.clock; with vector clocks the rank's own component, which
// makes the test exact). Events are numbered per thread: "posted after e"
// is asked of e's own thread only; an event of another thread of the rank
// could have taken m whenever it started, unless the clocks say otherwise
// (the threads' order is the program's synchronisation, which the layer
// does not see), so some of those alternatives may be infeasible. The
// other threads' receives that took messages from the alternative's source
// are its Hold: a replay holds them back until the event has matched.
func Potential(p *trace.Process) map[uint64][]Alt {
	anyTag := int64(-1)
	if v, ok := p.Const("MPI_ANY_TAG"); ok {
		anyTag = int64(v)
	}
	// events by communicator, sorted by clock, so that a message only meets
	// the events whose clock is at least its own
	byComm := map[uint64][]*trace.Wildcard{}
	for _, w := range p.Wild {
		if w.Matched && !w.Quiet && w.Kind != trace.WildAny {
			byComm[w.Comm] = append(byComm[w.Comm], w)
		}
	}
	for _, ws := range byComm {
		sort.Slice(ws, func(i, j int) bool { return ws[i].Clock < ws[j].Clock })
	}
	alts := map[uint64][]Alt{}
	seen := map[[2]int64]int{} // index+1 in alts[event]
	for _, m := range p.Late {
		ws := byComm[m.Comm]
		for i := sort.Search(len(ws), func(i int) bool { return ws[i].Clock >= m.Clock }); i < len(ws); i++ {
			e := ws[i]
			if (e.Event>>32 == m.Before>>32 && e.Event >= m.Before) || e.Source == m.Source || (e.Tag != anyTag && e.Tag != m.Tag) {
				continue
			}
			k := [2]int64{int64(e.Event), m.Source}
			if seen[k] == 0 {
				alts[e.Event] = append(alts[e.Event], Alt{Source: m.Source, World: m.World})
				seen[k] = len(alts[e.Event])
			}
			if a := &alts[e.Event][seen[k]-1]; e.Event>>32 != m.Before>>32 && !slices.Contains(a.Hold, m.Before) {
				a.Hold = append(a.Hold, m.Before) // another thread's receive took it
			}
		}
	}
	for _, e := range p.Wild {
		if e.Kind == trace.WildAny && e.Matched && !e.Quiet {
			alts[e.Event] = anyAlts(p, e)
		}
	}
	for _, as := range alts {
		sort.Slice(as, func(i, j int) bool { return as[i].Source < as[j].Source })
	}
	return alts
}

// anyAlts are the indexes Waitany-family event e could have returned alone:
// its candidate receives whose messages were not sent after e (the same test
// as for late messages). A candidate that e returned together with others is
// one of them: returning it alone is another outcome.
func anyAlts(p *trace.Process, e *trace.Wildcard) []Alt {
	var as []Alt
	for _, c := range e.Cands {
		if a, ok := p.Arrivals[c.Serial]; ok && a.Clock <= e.Clock {
			as = append(as, Alt{Source: c.Index, World: a.World})
		}
	}
	return as
}
