package explore

import (
	"encoding/binary"
	"hash/fnv"
	"sort"
)

// Which replays are redundant (docs/design/exploration.md, "Why no replay
// repeats").
//
// The search reduces as DAMPI does (seed 000, §5.3), POE's reduction in
// distributed form (seed 000 ch. 4): it replays match sets, never orders
// of independent operations, and each match set once: no two replays of
// an exploration force the same decisions. Proof: a replay planned under
// interleaving I for step i and alternative a forces (p_i, a) and, for
// every step j before i, (p_j, o_j), o_j what p_j matched in I. Every
// replay below it forces (p_i, a) too: an event a decision forced is
// pinned (forcedIn), never deviated again, and kept in the decisions of
// every replay planned below, wherever its key falls (items). Take two
// replays and the last interleaving both descend from (the first run at
// worst): below it they come from different items, different steps i < k,
// where the one from k forces (p_i, o_i) and the one from i forces
// (p_i, a), a ≠ o_i; or one step and alternatives a ≠ a'; or one is that
// interleaving's continuation (plan.cont), which forces all its matches
// with more sends buffered, where the other forces an alternative. A
// decision names an event by rank and number and gives it one source (a
// Waitany-family event a set of indexes, which differ too), so the two
// sets of decisions differ. Stats.Repeated counts repeats all the same,
// as a self-check.
//
// Keeping pinned events whatever their key matters: an event's key is its
// clock when it matched, and forcing a nonblocking wildcard receive to
// another source can let messages that raise it arrive before its
// completion, past events its replay then deviates. Forcing only the
// events before those in key order would let the pinned one match freely
// there: the replays would leave its subtree, miss the outcomes with it
// forced (p = a with q deviated), and sibling subtrees would plan the same
// decisions (TestPinnedStayForced).
//
// So what could be left out is not a repeated replay but a different one
// with the same outcome. The candidates, and what they remove (measured
// on every corpus program with more than one interleaving, both MPIs:
// docs/design/exploration.md):
//
//   - A forced replay whose forced match turned out infeasible, or whose
//     program diverged: the search does not go below it already (plan: its
//     run is not the execution asked for), and it is needed to learn that.
//   - A replay whose whole match set equals one already run: impossible
//     for the decisions, by the proof; a free match that happens to repeat
//     an earlier replay's forced one is still another execution of the
//     free events (none in the corpus: TestExplorationRepeatFree).
//   - Alternatives that differ only in which message of one source the
//     receive takes (same communicator, same tag): the MPI's
//     non-overtaking order picks it; Potential keeps one alternative per
//     source already.
//   - Alternatives whose message is taken in every extension by a receive
//     before the event: a receive posted before the event is excluded
//     (Late.Before), and a message sent after the event matched is
//     excluded by its clock, exactly with vector clocks; with Lamport
//     clocks a false alternative makes an infeasible replay (none in the
//     corpus).
//   - Probes whose status the program ignores (and MPI_Iprobe's flag=false,
//     Test's incomplete outcomes, which are no events): the source a probe
//     saw cannot be observed and the probe takes no message, so its other
//     sources are equivalent; the layer does not record whether the status
//     was ignored, and the one corpus program with such a probe never sees
//     it match.
//
// Reductions beyond these merge match sets that lead to different states,
// and are heuristics (§5.3.5's loop abstraction and bounded mixing:
// MPI_Pcontrol, --mixing-bound, --order-bound), not equivalences.

// decisionKey identifies a set of decisions whatever their order: a 64-bit
// FNV-1a hash of them sorted, and their count (a collision among the few
// thousand replays of an exploration is negligible, and would only count a
// repeat that is not one).
type decisionKey struct {
	hash uint64
	n    int
}

func keyOf(ds []Decision) decisionKey {
	s := append([]Decision(nil), ds...)
	sort.Slice(s, func(i, j int) bool {
		a, b := s[i], s[j]
		if a.Rank != b.Rank {
			return a.Rank < b.Rank
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		if a.Event != b.Event {
			return a.Event < b.Event
		}
		return a.Source < b.Source
	})
	h := fnv.New64a()
	var buf [4 * 8]byte
	n := 0
	for i, d := range s {
		if i > 0 && d == s[i-1] {
			continue // the same decision twice forces nothing more
		}
		binary.LittleEndian.PutUint64(buf[0:], uint64(d.Rank))
		binary.LittleEndian.PutUint64(buf[8:], uint64(d.Kind))
		binary.LittleEndian.PutUint64(buf[16:], d.Event)
		binary.LittleEndian.PutUint64(buf[24:], uint64(d.Source))
		h.Write(buf[:])
		n++
	}
	return decisionKey{h.Sum64(), n}
}

// repeat notes the decisions of a replay about to run, and reports whether
// an earlier replay forced the same set. It costs a map entry per replay
// (16 bytes), not its decisions.
func (x *explorer) repeat(ds []Decision) bool {
	if x.ran == nil {
		x.ran = map[decisionKey]bool{}
	}
	k := keyOf(ds)
	if x.ran[k] {
		return true
	}
	x.ran[k] = true
	return false
}
