package explore

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"mpivet/trace"
)

// model is a program whose rank 0 has n nondeterministic events in a row,
// each of which takes source 1 unless a decision says otherwise, and could
// have taken source 2 (a late message, or a candidate request of a
// Waitany-family call, with a clock that does not rule it out).
type model struct {
	n    int
	kind int
	runs int
	bad  func(outcomes []int64) (errors, infeasible bool)
}

func (m *model) run(k int, ds []Decision, b *Branch) (*Interleaving, error) {
	m.runs++
	p := &trace.Process{Rank: 0, ConstVal: map[string]uint64{"MPI_ANY_SOURCE": ^uint64(0), "MPI_ANY_TAG": ^uint64(0)},
		Arrivals: map[uint64]trace.Arrival{}}
	var outs []int64
	for i := 0; i < m.n; i++ {
		w := &trace.Wildcard{Event: uint64(i), Kind: m.kind, Comm: 1, Tag: -1, Forced: -1, Matched: true, Source: 1, World: 1, Clock: uint64(i)}
		for _, d := range ds {
			if d.Rank == 0 && d.Event == uint64(i) {
				if d.Kind != m.kind {
					return nil, &os.PathError{Op: "decision", Path: "kind", Err: os.ErrInvalid}
				}
				w.Forced, w.Source = d.Source, d.Source
			}
		}
		other := 3 - w.Source
		if m.kind == trace.WildAny {
			w.Chosen = []int64{w.Source}
			w.Cands = []trace.Cand{{Index: other, Serial: uint64(100 + i)}}
			p.Arrivals[uint64(100+i)] = trace.Arrival{Clock: uint64(i), World: int(other)}
		} else {
			p.Late = append(p.Late, trace.Late{Source: other, World: int(other), Tag: 0, Comm: 1, Clock: uint64(i), Before: uint64(i + 1)})
		}
		p.Wild = append(p.Wild, w)
		outs = append(outs, w.Source)
	}
	il := &Interleaving{N: k, Decisions: ds, Branch: b, Run: &trace.Run{Procs: []*trace.Process{p}}}
	if m.bad != nil {
		il.Errors, il.Infeasible = m.bad(outs)
	}
	return il, nil
}

func explore(t *testing.T, m *model, o Options) Stats {
	t.Helper()
	first, err := m.run(1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return Explore(first, m.run, o)
}

func TestExploreCounts(t *testing.T) {
	for _, kind := range []int{trace.WildRecv, trace.WildAny} {
		for _, c := range []struct{ n, k, want int }{{3, -1, 8}, {4, -1, 16}, {3, 0, 4}, {5, 0, 6}, {3, 1, 7}} {
			m := &model{n: c.n, kind: kind}
			st := explore(t, m, Options{MixingBound: c.k, OrderBound: -1})
			if st.Interleavings != c.want || m.runs != c.want || !st.Complete {
				t.Errorf("kind %d, %d events, K=%d: %d interleavings (%d runs, complete %v), want %d", kind, c.n, c.k, st.Interleavings, m.runs, st.Complete, c.want)
			}
			// every event has one other outcome: each was run or pruned
			if st.Explored != st.Interleavings-1 || st.Events != st.Explored+st.Pruned || (c.k < 0) != (st.Pruned == 0) {
				t.Errorf("kind %d, %d events, K=%d: coverage %+v", kind, c.n, c.k, st)
			}
		}
	}
}

func TestOrderBound(t *testing.T) {
	// Waitany-family events: with K=0, each alternative once (1 + n); wildcard
	// receives are not bounded by it
	for _, c := range []struct{ kind, n, k, want int }{{trace.WildAny, 4, 0, 5}, {trace.WildAny, 4, 1, 11}, {trace.WildAny, 4, -1, 16}, {trace.WildRecv, 4, 0, 16}} {
		m := &model{n: c.n, kind: c.kind}
		st := explore(t, m, Options{MixingBound: -1, OrderBound: c.k})
		if st.Interleavings != c.want {
			t.Errorf("kind %d, %d events, order bound %d: %d interleavings, want %d", c.kind, c.n, c.k, st.Interleavings, c.want)
		}
		if st.Events != st.Explored+st.Pruned || (c.want == 16) != (st.Pruned == 0) {
			t.Errorf("kind %d, %d events, order bound %d: coverage %+v", c.kind, c.n, c.k, st)
		}
	}
}

func TestExploreStops(t *testing.T) {
	m := &model{n: 4, kind: trace.WildRecv, bad: func(o []int64) (bool, bool) { return o[3] == 2 && o[0] == 2, false }}
	if st := explore(t, m, Options{MixingBound: -1, FirstError: true}); st.Complete || st.Interleavings >= 16 {
		t.Errorf("first error: %+v", st)
	}
	m = &model{n: 4, kind: trace.WildRecv}
	if st := explore(t, m, Options{MixingBound: -1, MaxInterleavings: 5}); st.Complete || st.Interleavings != 5 {
		t.Errorf("max interleavings: %+v", st)
	}
	// an infeasible replay is counted but not explored further: the
	// subtree under event 0 forced to source 2 is never entered
	m = &model{n: 3, kind: trace.WildRecv, bad: func(o []int64) (bool, bool) { return false, o[0] == 2 }}
	if st := explore(t, m, Options{MixingBound: -1}); st.Interleavings != 5 || st.Infeasible != 1 {
		t.Errorf("infeasible: %+v, want 5 interleavings, 1 infeasible", st)
	}
}

func TestPotential(t *testing.T) {
	p := &trace.Process{ConstVal: map[string]uint64{"MPI_ANY_TAG": ^uint64(0)}, Arrivals: map[uint64]trace.Arrival{}}
	add := func(w trace.Wildcard) { w.Event, w.Matched = uint64(len(p.Wild)), true; p.Wild = append(p.Wild, &w) }
	add(trace.Wildcard{Kind: trace.WildRecv, Comm: 1, Tag: -1, Source: 1, Clock: 2})                                                                                                       // 0
	add(trace.Wildcard{Kind: trace.WildRecv, Comm: 1, Tag: 5, Source: 1, Clock: 4})                                                                                                        // 1: tag 5 only
	add(trace.Wildcard{Kind: trace.WildRecv, Comm: 2, Tag: -1, Source: 1, Clock: 6})                                                                                                       // 2: other comm
	add(trace.Wildcard{Kind: trace.WildAny, Tag: 3, Source: 0, Chosen: []int64{0}, Clock: 7, Cands: []trace.Cand{{Index: 1, Serial: 40}, {Index: 2, Serial: 41}, {Index: 0, Serial: 42}}}) // 3
	add(trace.Wildcard{Kind: trace.WildAny, Tag: 2, Source: 0, Chosen: []int64{0, 1}, Clock: 8, Cands: []trace.Cand{{Index: 0, Serial: 50}, {Index: 1, Serial: 51}}})                      // 4
	p.Late = []trace.Late{
		{Source: 3, World: 3, Tag: 7, Comm: 1, Clock: 1, Before: 4}, // 0 (tag 7 is not 1's 5)
		{Source: 2, World: 2, Tag: 5, Comm: 1, Clock: 3, Before: 4}, // 1 (clock 3 > event 0's 2)
		{Source: 4, World: 4, Tag: 0, Comm: 1, Clock: 1, Before: 0}, // none: its receive was posted before every event
		{Source: 1, World: 1, Tag: 0, Comm: 1, Clock: 0, Before: 4}, // none: the source they matched
		{Source: 2, World: 2, Tag: 0, Comm: 2, Clock: 9, Before: 4}, // none: sent after event 2
	}
	p.Arrivals[40] = trace.Arrival{Clock: 7, World: 5} // 3: index 1
	p.Arrivals[41] = trace.Arrival{Clock: 8, World: 6} // sent after event 3
	p.Arrivals[50] = trace.Arrival{Clock: 8, World: 5} // 4: each of a set alone
	p.Arrivals[51] = trace.Arrival{Clock: 1, World: 6}
	got := Potential(p)
	want := map[uint64][]Alt{
		0: {{Source: 3, World: 3}},
		1: {{Source: 2, World: 2}},
		3: {{Source: 1, World: 5}},
		4: {{Source: 0, World: 5}, {Source: 1, World: 6}},
	}
	for e := range got {
		if len(got[e]) == 0 {
			delete(got, e)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Potential = %v, want %v", got, want)
	}
}

func TestDecisions(t *testing.T) {
	r := &trace.Run{Procs: []*trace.Process{{Rank: 1, Wild: []*trace.Wildcard{
		{Event: 0, Kind: trace.WildRecv, Matched: true, Source: 2, Clock: 1},
		{Event: 1, Kind: trace.WildAny, Matched: true, Source: 0, Chosen: []int64{0, 3}, Clock: 2},
		{Event: 2, Kind: trace.WildRecv},
	}}}}
	ds := Complete(r)
	want := []Decision{{1, 0, 2, trace.WildRecv}, {1, 1, 0, trace.WildAny}, {1, 1, 3, trace.WildAny}}
	if !reflect.DeepEqual(ds, want) {
		t.Fatalf("Complete = %v, want %v", ds, want)
	}
	path := filepath.Join(t.TempDir(), "decisions")
	if err := WriteDecisions(path, ds); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "1 0 2 1\n1 1 0 3\n1 1 3 3\n# 3 decisions, crc32c 7792437e\n" {
		t.Errorf("decision file:\n%s", data)
	}
	if back, err := ReadDecisions(path); err != nil || !reflect.DeepEqual(back, want) {
		t.Errorf("ReadDecisions = %v, %v", back, err)
	}
}

// Events are numbered per thread: a late message is an alternative for the
// events of its receiving thread started before its receive, and for the
// other threads' events whenever they started, the clocks permitting.
func TestPotentialThreads(t *testing.T) {
	const t1, t2 = 1 << 32, 2 << 32
	p := &trace.Process{ConstVal: map[string]uint64{"MPI_ANY_TAG": ^uint64(0)}}
	for _, e := range []uint64{t1, t1 + 1, t2} {
		p.Wild = append(p.Wild, &trace.Wildcard{Event: e, Kind: trace.WildRecv, Comm: 1, Tag: -1, Source: 1, Matched: true, Clock: 5})
	}
	p.Late = []trace.Late{
		{Source: 2, World: 2, Comm: 1, Clock: 1, Before: t1 + 1}, // thread 1's receive after its event 0: event 0, and thread 2's
		{Source: 3, World: 3, Comm: 1, Clock: 1, Before: t2},     // thread 2's receive before its events: thread 1's events only
		{Source: 4, World: 4, Comm: 1, Clock: 6, Before: t2 + 1}, // sent after every event matched: none
	}
	got := Potential(p)
	// the other thread's receive that took the message is held back
	want := map[uint64][]Alt{
		t1:     {{Source: 2, World: 2}, {Source: 3, World: 3, Hold: []uint64{t2}}},
		t1 + 1: {{Source: 3, World: 3, Hold: []uint64{t2}}},
		t2:     {{Source: 2, World: 2, Hold: []uint64{t1 + 1}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Potential = %v, want %v", got, want)
	}
	if w := p.WildEvent(t1 + 1); w == nil || w.Thread() != 1 || w.N() != 1 || trace.EventName(w.Event) != "thread 1's event 1" {
		t.Errorf("event %#x: %+v", t1+1, w)
	}
}

// A replay of a rank several of whose threads called MPI is compared with
// its parent run (the layer compares thread by thread): the branch expects
// the rank to repeat its log up to the forced event of thread 1.
func TestExpectThreads(t *testing.T) {
	const t1 = 1 << 32
	var expects [][]Expect
	run := func(k int, ds []Decision, b *Branch) (*Interleaving, error) {
		if b != nil {
			expects = append(expects, b.Expect)
		}
		p := &trace.Process{Rank: 0, File: "p.0.log", Slots: 3, ConstVal: map[string]uint64{"MPI_ANY_SOURCE": ^uint64(0), "MPI_ANY_TAG": ^uint64(0)}}
		w := &trace.Wildcard{Event: t1, Kind: trace.WildRecv, Comm: 1, Tag: -1, Forced: -1, Matched: true, Source: 1, World: 1, Offset: 0x400}
		for _, d := range ds {
			if d.Rank == 0 && d.Event == t1 {
				w.Forced, w.Source, w.World = d.Source, d.Source, int(d.Source)
			}
		}
		p.Wild = []*trace.Wildcard{w}
		p.Late = []trace.Late{{Source: 3 - w.Source, World: int(3 - w.Source), Comm: 1, Before: t1 + 1}}
		return &Interleaving{N: k, Decisions: ds, Branch: b, Run: &trace.Run{Procs: []*trace.Process{p}}}, nil
	}
	first, _ := run(1, nil, nil)
	if st := Explore(first, run, Options{MixingBound: -1, OrderBound: -1}); st.Interleavings != 2 {
		t.Fatalf("%d interleavings, want 2", st.Interleavings)
	}
	want := [][]Expect{{{Rank: 0, Log: "p.0.log", Limit: 0x400}}}
	if !reflect.DeepEqual(expects, want) {
		t.Errorf("expects %+v, want %+v", expects, want)
	}
}

// A replay that forces thread 1's event to a source another thread's
// receive took holds that receive back: a hold-back decision names its
// position and the event, unless a decision forces that receive already.
// The decision file keeps it; the records' decisions, which have none,
// still check against it.
func TestHoldDecisions(t *testing.T) {
	const t1, t2 = 1 << 32, 2 << 32
	ds := []Decision{{0, t1, 2, trace.WildRecv}}
	ds = holdDecisions(ds, 0, t1, []uint64{t2, t2})
	want := []Decision{{0, t1, 2, trace.WildRecv}, {0, t2, t1, HoldKind}}
	if !reflect.DeepEqual(ds, want) {
		t.Fatalf("holdDecisions = %v, want %v", ds, want)
	}
	if got := holdDecisions([]Decision{{0, t2, 1, trace.WildRecv}}, 0, t1, []uint64{t2}); len(got) != 1 {
		t.Errorf("a forced receive held back as well: %v", got)
	}
	if got := Holds(append(ds, Decision{Rank: 1, Event: 3, Kind: BufferKind})); !reflect.DeepEqual(got, want[1:]) {
		t.Errorf("Holds = %v", got)
	}
	path := filepath.Join(t.TempDir(), "decisions")
	if err := WriteDecisions(path, ds); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), "0 4294967296 2 1\n0 8589934592 4294967296 5\n# 2 decisions, ") {
		t.Errorf("decision file:\n%s", data)
	}
	back, err := ReadDecisions(path)
	if err != nil || !reflect.DeepEqual(back, want) {
		t.Fatalf("ReadDecisions = %v, %v", back, err)
	}
	if err := CheckDecisions(path, back, want[:1]); err != nil {
		t.Errorf("CheckDecisions: %v", err)
	}
}

// A replay that stopped with a receive still held back is infeasible: the
// event it waited for never matched.
func TestUnmatchedHeld(t *testing.T) {
	const t1, t2 = 1 << 32, 2 << 32
	p := &trace.Process{Holds: []trace.Hold{{Pos: t2, Release: t1, Released: true}}}
	r := &trace.Run{Procs: []*trace.Process{p}}
	if u, b := Unmatched(r); u || b {
		t.Errorf("released hold: Unmatched = %v, %v", u, b)
	}
	p.Holds = append(p.Holds, trace.Hold{Pos: t2 + 1, Release: t1 + 1})
	if u, b := Unmatched(r); !u || !b {
		t.Errorf("held receive: Unmatched = %v, %v, want true, true", u, b)
	}
}
