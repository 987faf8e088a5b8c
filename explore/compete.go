package explore

import (
	"fmt"
	"strings"

	"mpivet/trace"
)

// Receives of several threads that compete for the messages of one source
// (MPI_THREAD_MULTIPLE).
//
// Two threads receiving from one source with one tag on one communicator,
// wildcard or not, compete for its messages: which thread gets the first
// is the scheduler's, the MPI allows either. The layer logs the messages
// taken on a communicator whose receives of several threads ran at once
// (clocks/events.c, arrived: the shadow is mixed) as Late records, with
// the position of the receive that took each (Late.Before: its thread's
// count of wildcard events then, thread in the high bits). Two messages of
// one source, tag and communicator taken in turn by receives of two
// threads are a competition: one outcome gives the first message to one
// receive, the other to the other. Each replay forces every matched event as the run
// had it and holds the first receive back until the second has matched
// (a HoldKind decision: the layer releases it when the receive the other
// thread posts at that position matches, clocks/holds.c). A message a
// probe claimed (MPI_Mprobe) is left out: probes are not held back. A
// competition is seen only where the two receives overlapped in the run
// (the shadow is mixed only then). Receives of one
// thread between two of its wildcard events share a position: the hold
// holds them all, until the first of the other thread's there matches.

// Competition is a message that one thread's receive took where another
// thread's receive, which took a later message of the same source, tag and
// communicator, could have taken it.
type Competition struct {
	Rank    int
	Held    uint64 // the position of the receive that took it, to hold back
	Release uint64 // the position of the other thread's receive
	Source  int64
	World   int
}

// Competitions returns the competitions of one process: for each message
// taken after an earlier one of the same source, tag and communicator by
// another thread, that pair, once per pair of positions, each way: the
// log gives the order in which the layer learnt of the matches (a
// nonblocking receive's at its completion call), not the order in which
// the MPI made them, so one of the two replays repeats the run's order.
func Competitions(p *trace.Process) []Competition {
	type key struct {
		comm   uint64
		source int64
		tag    int64
	}
	last := map[key]int{} // the index in p.Late of the last message of each
	seen := map[[2]uint64]bool{}
	var cs []Competition
	for j, m := range p.Late {
		if c := p.CallAt(m.Offset); c != nil && strings.Contains(c.Name(), "probe") {
			continue // MPI_Mprobe, MPI_Improbe: a probe is never held back
		}
		k := key{m.Comm, m.Source, m.Tag}
		i, ok := last[k]
		last[k] = j
		if !ok || p.Late[i].Before>>32 == m.Before>>32 {
			continue
		}
		for _, pair := range [][2]uint64{{p.Late[i].Before, m.Before}, {m.Before, p.Late[i].Before}} {
			if !seen[pair] {
				seen[pair] = true
				cs = append(cs, Competition{Rank: p.Rank, Held: pair[0], Release: pair[1], Source: m.Source, World: m.World})
			}
		}
	}
	return cs
}

// competing returns the replays of il's competitions that no hold-back of
// il already decided, either way: each forces every match of il and holds
// the first receive back (ds are the decisions every replay below il
// keeps).
func competing(il *Interleaving, keep []Decision, expect []Expect) []continuation {
	held := map[[3]uint64]bool{}
	for _, d := range Holds(il.Decisions) {
		held[[3]uint64{uint64(d.Rank), d.Event, uint64(d.Source)}] = true
		held[[3]uint64{uint64(d.Rank), uint64(d.Source), d.Event}] = true
	}
	var out []continuation
	for _, p := range il.Run.Procs {
		if p.Rank < 0 {
			continue
		}
		for _, c := range Competitions(p) {
			if held[[3]uint64{uint64(c.Rank), c.Held, c.Release}] {
				continue
			}
			ds := append(append([]Decision(nil), keep...), Complete(il.Run)...)
			ds = append(ds, Decision{Rank: c.Rank, Event: c.Held, Source: int64(c.Release), Kind: HoldKind})
			alt := Alt{Source: c.Source, World: c.World, Hold: []uint64{c.Held}}
			out = append(out, continuation{ds: ds, b: Branch{From: il.N, Rank: c.Rank, Event: c.Release, Kind: HoldKind,
				Was: alt, Forced: alt, Expect: expect}})
		}
	}
	return out
}

// PositionName names a thread's position, as a hold-back decision does.
func PositionName(pos uint64) string {
	return fmt.Sprintf("thread %d's receive before its wildcard event %d", pos>>32, pos&0xffffffff)
}
