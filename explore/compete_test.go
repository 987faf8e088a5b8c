package explore

import (
	"reflect"
	"testing"

	"mpivet/trace"
)

// Two threads' receives that took messages of one source, tag and
// communicator compete: each is held back until the other has matched,
// once per pair of positions; messages of other sources or tags, or taken
// by one thread, are not a competition.
func TestCompetitions(t *testing.T) {
	const t1, t2 = 1 << 32, 2 << 32
	p := &trace.Process{Rank: 0, Late: []trace.Late{
		{Source: 1, World: 1, Comm: 1, Tag: 0, Before: t2},
		{Source: 1, World: 1, Comm: 1, Tag: 0, Before: t1},
		{Source: 1, World: 1, Comm: 1, Tag: 0, Before: t2},     // the same pair again
		{Source: 1, World: 1, Comm: 1, Tag: 5, Before: t1 + 1}, // another tag
		{Source: 2, World: 2, Comm: 1, Tag: 0, Before: t1 + 1}, // another source
		{Source: 2, World: 2, Comm: 1, Tag: 0, Before: t1 + 1}, // ... taken by the same thread
	}}
	got := Competitions(p)
	want := []Competition{{Held: t2, Release: t1, Source: 1, World: 1}, {Held: t1, Release: t2, Source: 1, World: 1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Competitions = %+v, want %+v", got, want)
	}
	il := &Interleaving{N: 1, Run: &trace.Run{Procs: []*trace.Process{p}}}
	cs := competing(il, nil, nil)
	if len(cs) != 2 {
		t.Fatalf("competing: %d replays, want 2", len(cs))
	}
	if d := cs[1].ds[len(cs[1].ds)-1]; d != (Decision{0, t1, t2, HoldKind}) || cs[1].b.Kind != HoldKind || cs[1].b.Event != t2 {
		t.Errorf("replay %+v, branch %+v", d, cs[1].b)
	}
	// a replay that decided the pair (either way) does not replay it again
	il.Decisions = []Decision{{0, t2, t1, HoldKind}}
	if cs := competing(il, nil, nil); len(cs) != 0 {
		t.Errorf("competing below a hold of the pair: %+v", cs)
	}
}
