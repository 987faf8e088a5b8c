package explore

import (
	"fmt"
	"strings"
	"testing"
)

// diverging runs the model with logs, and makes replay k diverge, at its
// rank 0's event `at` of the run it replays, when div(k) says so and the
// replay must repeat that event.
func diverging(m *model, at int, div func(k int) bool) Runner {
	return func(k int, ds []Decision, b *Branch) (*Interleaving, error) {
		il, err := m.run(k, ds, b)
		if err != nil {
			return nil, err
		}
		p := il.Run.Procs[0]
		p.File = fmt.Sprintf("log%d", k)
		for i, w := range p.Wild {
			w.Offset = uint64(16 + 8*i)
		}
		if b == nil || !div(k) {
			return il, nil
		}
		for _, e := range b.Expect {
			if e.Rank == 0 && e.Limit >= uint64(16+8*at) {
				il.Diverged, il.Run = true, nil
				il.DivergedAt = &Divergence{Rank: 0, Offset: uint64(16 + 8*at), Where: "prog.c:3 (rank 0's MPI_Send)"}
			}
		}
		return il, nil
	}
}

// Replays that must repeat a timing-dependent place diverge there: after
// three in a row the alternatives that need it are left out as not
// replayable, the others still run, and the search ends incomplete,
// naming the place, in a few replays instead of 2^8.
func TestTimingDependentPlace(t *testing.T) {
	m := &model{n: 8}
	run := diverging(m, 2, func(int) bool { return true })
	first, _ := run(1, nil, nil)
	st := Explore(first, run, Options{MixingBound: -1, OrderBound: -1})
	if st.Complete || !strings.Contains(st.Stopped, "depend on timing at prog.c:3") || st.NotReplayable == 0 || st.Interleavings > 20 {
		t.Fatalf("%d interleavings, %d not replayable, complete %v, stopped %q", st.Interleavings, st.NotReplayable, st.Complete, st.Stopped)
	}
	// the alternatives of events 0 and 1 need no repeat of event 2: run,
	// and their subtrees too, but for what repeats a place known
	if st.Explored < 2+3 {
		t.Errorf("%d outcomes run: the alternatives before the place were not", st.Explored)
	}
	for _, s := range st.Sites {
		if s.Events != s.Run+s.Equivalent+s.Pruned+s.Queued+s.NotReplayable {
			t.Errorf("site %s does not add up: %+v", s.Key, s)
		}
	}
}

// A replay that diverges once, for a reason met once, and two in a row
// with a replay repeating the place between them, leave nothing out.
func TestOneOffDivergence(t *testing.T) {
	for _, div := range []func(k int) bool{
		func(k int) bool { return k == 2 },
		func(k int) bool { return k == 2 || k == 3 || k == 5 || k == 6 },
	} {
		m := &model{n: 8}
		run := diverging(m, 2, div)
		first, _ := run(1, nil, nil)
		st := Explore(first, run, Options{MixingBound: -1, OrderBound: -1})
		if !st.Complete || st.NotReplayable != 0 || st.Diverged == 0 || st.Interleavings < 100 {
			t.Errorf("%d interleavings, %d diverged, %d not replayable, complete %v, stopped %q",
				st.Interleavings, st.Diverged, st.NotReplayable, st.Complete, st.Stopped)
		}
	}
}
