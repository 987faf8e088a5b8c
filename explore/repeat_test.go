package explore

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"

	"mpivet/trace"
)

func TestKeyOf(t *testing.T) {
	a := []Decision{{0, 1, 2, trace.WildRecv}, {1, 0, 0, trace.WildAny}, {1, 0, 3, trace.WildAny}, {2, 4, 0, BufferKind}}
	b := []Decision{a[3], a[2], a[0], a[1], a[0]} // another order, a decision twice
	if keyOf(a) != keyOf(b) {
		t.Errorf("the same decisions in another order: %v and %v", keyOf(a), keyOf(b))
	}
	for i, c := range [][]Decision{
		a[:3], // one fewer
		{a[0], a[1], a[2], {2, 4, 1, BufferKind}},     // another send buffered
		{{0, 1, 3, trace.WildRecv}, a[1], a[2], a[3]}, // another source
		{a[0], a[1], {1, 0, 2, trace.WildAny}, a[3]},  // another index
	} {
		if keyOf(c) == keyOf(a) {
			t.Errorf("%d: %v has the key of %v", i, c, a)
		}
	}
}

// tree is a model program whose nondeterminism depends on its own outcomes:
// rank 0 has events 0..n-1; event i can match sources 1..k, k = 2 or 3 as
// the outcomes before it add up even or odd, and one more event comes after
// the last when the first took source 3. Unforced, an event takes source 1.
// Every other source of an event is a late message of it (or, for Waitany,
// a candidate index that arrived before it).
type tree struct {
	n, kind int
	runs    [][]Decision
	seen    map[string]bool
}

func (m *tree) sources(outs []int64) int64 {
	var sum int64
	for _, o := range outs {
		sum += o
	}
	return 2 + sum%2
}

func (m *tree) events(outs []int64) int {
	if len(outs) > 0 && outs[0] == 3 {
		return m.n + 1
	}
	return m.n
}

func (m *tree) run(k int, ds []Decision, b *Branch) (*Interleaving, error) {
	m.runs = append(m.runs, ds)
	p := &trace.Process{Rank: 0, ConstVal: map[string]uint64{"MPI_ANY_SOURCE": ^uint64(0), "MPI_ANY_TAG": ^uint64(0)},
		Arrivals: map[uint64]trace.Arrival{}}
	var outs []int64
	for i := 0; i < m.events(outs); i++ {
		w := &trace.Wildcard{Event: uint64(i), Kind: m.kind, Comm: 1, Tag: -1, Forced: -1, Matched: true, Source: 1, World: 1, Clock: uint64(i)}
		for _, d := range ds {
			if d.Rank == 0 && d.Event == uint64(i) && d.Kind == m.kind {
				w.Forced, w.Source = d.Source, d.Source
			}
		}
		nsrc := m.sources(outs)
		if w.Source > nsrc { // a forced source that cannot send here
			return &Interleaving{N: k, Decisions: ds, Branch: b, Infeasible: true}, nil
		}
		for s := int64(1); s <= nsrc; s++ {
			if s == w.Source {
				continue
			}
			if m.kind == trace.WildAny {
				serial := uint64(100*i) + uint64(s)
				w.Cands = append(w.Cands, trace.Cand{Index: s, Serial: serial})
				p.Arrivals[serial] = trace.Arrival{Clock: uint64(i), World: int(s)}
			} else {
				p.Late = append(p.Late, trace.Late{Source: s, World: int(s), Tag: 0, Comm: 1, Clock: uint64(i), Before: uint64(i + 1)})
			}
		}
		if m.kind == trace.WildAny {
			w.Chosen = []int64{w.Source}
		}
		p.Wild = append(p.Wild, w)
		outs = append(outs, w.Source)
	}
	m.seen[fmt.Sprint(outs)] = true
	return &Interleaving{N: k, Decisions: ds, Branch: b, Run: &trace.Run{Procs: []*trace.Process{p}}}, nil
}

// reachable lists every outcome vector the model can have.
func (m *tree) reachable(outs []int64, into map[string]bool) {
	if len(outs) == m.events(outs) {
		into[fmt.Sprint(outs)] = true
		return
	}
	for s := int64(1); s <= m.sources(outs); s++ {
		m.reachable(append(append([]int64(nil), outs...), s), into)
	}
}

// The full search runs every outcome of the model once: it covers every
// reachable outcome vector, and no two replays force the same decisions
// (repeat.go's proof, tested: Repeated and the decisions themselves).
func TestSearchRepeatFree(t *testing.T) {
	for _, kind := range []int{trace.WildRecv, trace.WildAny} {
		for n := 1; n <= 5; n++ {
			m := &tree{n: n, kind: kind, seen: map[string]bool{}}
			first, _ := m.run(1, nil, nil)
			st := Explore(first, m.run, Options{MixingBound: -1, OrderBound: -1, MaxInterleavings: 1000}) // a bound: a broken search may not end
			want := map[string]bool{}
			m.reachable(nil, want)
			if !reflect.DeepEqual(m.seen, want) {
				t.Errorf("kind %d, %d events: covered %d outcomes, want %d", kind, n, len(m.seen), len(want))
			}
			if st.Repeated != 0 || st.Interleavings != len(m.runs) {
				t.Errorf("kind %d, %d events: %+v", kind, n, st)
			}
			forced := map[string]int{}
			for i, ds := range m.runs[1:] {
				s := make([]string, len(ds))
				for j, d := range ds {
					s[j] = fmt.Sprint(d)
				}
				sort.Strings(s)
				k := strings.Join(s, " ")
				if j, ok := forced[k]; ok {
					t.Errorf("kind %d, %d events: replays %d and %d force %s", kind, n, j+2, i+2, k)
				}
				forced[k] = i
			}
			// one run per outcome: none is run twice, none is wasted
			if st.Interleavings != len(want) {
				t.Errorf("kind %d, %d events: %d interleavings for %d outcomes", kind, n, st.Interleavings, len(want))
			}
		}
	}
}

// A search whose premise breaks, here a runner that loses track of the
// events it forced and renumbers time, does plan the same decisions again:
// Repeated says so.
func TestRepeatedCounted(t *testing.T) {
	runs := 0
	broken := func(k int, ds []Decision, b *Branch) (*Interleaving, error) {
		runs++
		p := &trace.Process{Rank: 0, ConstVal: map[string]uint64{"MPI_ANY_SOURCE": ^uint64(0), "MPI_ANY_TAG": ^uint64(0)}}
		w := &trace.Wildcard{Event: 0, Kind: trace.WildRecv, Comm: 1, Tag: -1, Forced: -1, Matched: true, Source: 1, World: 1, Clock: uint64(10 * runs)}
		for _, d := range ds {
			w.Source = d.Source // forced, and not reported as forced
		}
		p.Late = []trace.Late{{Source: 3 - w.Source, World: int(3 - w.Source), Comm: 1, Clock: 0, Before: 1}}
		p.Wild = []*trace.Wildcard{w}
		return &Interleaving{N: k, Decisions: ds, Branch: b, Run: &trace.Run{Procs: []*trace.Process{p}}}, nil
	}
	first, _ := broken(1, nil, nil)
	st := Explore(first, broken, Options{MixingBound: -1, OrderBound: -1, MaxInterleavings: 6})
	if st.Repeated == 0 {
		t.Errorf("a search that replays {e0=2} and {e0=1} in turn: %+v", st)
	}
}

// An event forced to another source can match later by the clock (here
// rank 0's receive: clock 5 instead of 1) than an event the replay then
// deviates (rank 1's, clock 2). Its replays must keep it forced: every
// pair of outcomes is run once, none twice.
func TestPinnedStayForced(t *testing.T) {
	type pair struct{ p, q int64 }
	seen := map[pair]int{}
	run := func(k int, ds []Decision, b *Branch) (*Interleaving, error) {
		r := &trace.Run{}
		out := [2]int64{1, 0} // free: rank 0 takes source 1, rank 1 source 0
		for rank, srcs := range [][]int64{{1, 2, 3}, {0, 2}} {
			p := &trace.Process{Rank: rank, ConstVal: map[string]uint64{"MPI_ANY_SOURCE": ^uint64(0), "MPI_ANY_TAG": ^uint64(0)}}
			w := &trace.Wildcard{Event: 0, Kind: trace.WildRecv, Comm: 1, Tag: -1, Forced: -1, Matched: true, Source: out[rank]}
			for _, d := range ds {
				if d.Rank == rank {
					w.Forced, w.Source = d.Source, d.Source
				}
			}
			w.World, w.Clock = int(w.Source), 2
			if rank == 0 {
				w.Clock = 1
				if w.Source != 1 {
					w.Clock = 5 // a message that came with the other source raised it
				}
			}
			for _, s := range srcs {
				if s != w.Source {
					p.Late = append(p.Late, trace.Late{Source: s, World: int(s), Comm: 1, Before: 1})
				}
			}
			p.Wild = []*trace.Wildcard{w}
			r.Procs = append(r.Procs, p)
			out[rank] = w.Source
		}
		seen[pair{out[0], out[1]}]++
		return &Interleaving{N: k, Decisions: ds, Branch: b, Run: r}, nil
	}
	first, _ := run(1, nil, nil)
	st := Explore(first, run, Options{MixingBound: -1, OrderBound: -1, MaxInterleavings: 100})
	for _, p := range []int64{1, 2, 3} {
		for _, q := range []int64{0, 2} {
			if seen[pair{p, q}] != 1 {
				t.Errorf("outcome (%d, %d) run %d times, want once", p, q, seen[pair{p, q}])
			}
		}
	}
	if st.Interleavings != 6 || st.Repeated != 0 {
		t.Errorf("%+v, want 6 interleavings, none repeated", st)
	}
}
