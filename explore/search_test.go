package explore

import (
	"context"
	"fmt"
	"math/big"
	"math/rand"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"mpivet/trace"
)

// pcs gives each event of a model its call site: event 0 at 0x100, the
// others at 0x200, in one mapping, so that they are two sites.
func sitesOf(r *trace.Run) {
	for _, p := range r.Procs {
		p.Maps = []trace.Mapping{{Start: 0, End: 0x1000, Path: "/prog"}}
		for _, w := range p.Wild {
			w.PC = 0x200
			if w.Event == 0 {
				w.PC = 0x100
			}
		}
	}
}

func twoSites(run Runner) Runner {
	return func(n int, ds []Decision, b *Branch) (*Interleaving, error) {
		il, err := run(n, ds, b)
		if err == nil && il.Run != nil {
			sitesOf(il.Run)
		}
		return il, err
	}
}

// A bug behind the alternative of the first event (one site) is found in
// the first round of sites, before the later events (another site, a loop
// of n) have their 2^n combinations explored; a depth-first search alone
// reaches it last.
func TestSiteFirst(t *testing.T) {
	for _, kind := range []int{trace.WildRecv, trace.WildAny} {
		m := &model{n: 8, kind: kind, bad: func(o []int64) (bool, bool) { return o[0] == 2, false }}
		run := twoSites(m.run)
		first, _ := run(1, nil, nil)
		st := Explore(first, run, Options{MixingBound: -1, OrderBound: -1, FirstError: true, MaxInterleavings: 4})
		if st.Stopped != "stopped at the first interleaving with errors" || st.Interleavings > 3 {
			t.Errorf("kind %d: %d interleavings, stopped %q: the first site's alternative was not tried early", kind, st.Interleavings, st.Stopped)
		}
		// every site's counts add up, and the whole search is the same
		// set of replays as depth first (2^8)
		m = &model{n: 8, kind: kind}
		run = twoSites(m.run)
		first, _ = run(1, nil, nil)
		st = Explore(first, run, Options{MixingBound: -1, OrderBound: -1})
		if st.Interleavings != 256 || !st.Complete || st.Repeated != 0 || len(st.Sites) != 2 {
			t.Fatalf("kind %d: %d interleavings, %d repeated, %d sites, complete %v", kind, st.Interleavings, st.Repeated, len(st.Sites), st.Complete)
		}
		for _, s := range st.Sites {
			if s.Events != s.Run+s.Equivalent+s.Pruned+s.Queued || s.Run == 0 {
				t.Errorf("kind %d: site %s: %+v", kind, s.Key, s)
			}
		}
	}
}

// windowsBy makes the windows of the model's events: the same for every
// order (same), or the source the event returned (the order changes what
// follows).
func windowsBy(same bool) func(p *trace.Process, want map[uint64]bool) map[uint64][2]uint64 {
	return func(p *trace.Process, want map[uint64]bool) map[uint64][2]uint64 {
		out := map[uint64][2]uint64{}
		for e := range want {
			h := uint64(7)
			if !same {
				h = uint64(p.Wild[e].Source)
			}
			out[e] = [2]uint64{3, h}
		}
		return out
	}
}

// Completion orders: one other order is replayed per context; when it
// leads to the same calls the others are not, and when it does not they
// all are, and a bug behind one of them is found.
func TestCompletionOrders(t *testing.T) {
	defer func(w func(*trace.Process, map[uint64]bool) map[uint64][2]uint64) { windowsOf = w }(windowsOf)
	windowsOf = windowsBy(true)
	m := &model{n: 6, kind: trace.WildAny}
	st := explore(t, m, Options{MixingBound: -1, OrderBound: 0, ReduceOrders: true})
	if st.Interleavings != 2 || st.Equivalent != 5 || !st.Complete || st.Sites[0].Equivalent != 5 || st.Sites[0].Run != 1 {
		t.Errorf("orders that do not matter: %d interleavings, %d equivalent, complete %v; want 2, 5, true", st.Interleavings, st.Equivalent, st.Complete)
	}
	// the same without the reduction: every event's other order
	st = explore(t, &model{n: 6, kind: trace.WildAny}, Options{MixingBound: -1, OrderBound: 0})
	if st.Interleavings != 7 || st.Equivalent != 0 {
		t.Errorf("without reduction: %d interleavings, want 7", st.Interleavings)
	}
	windowsOf = windowsBy(false)
	m = &model{n: 6, kind: trace.WildAny, bad: func(o []int64) (bool, bool) { return o[1] == 2, false }}
	st = explore(t, m, Options{MixingBound: -1, OrderBound: 0, ReduceOrders: true})
	if st.Interleavings != 7 || st.Equivalent != 0 {
		t.Errorf("orders that matter: %d interleavings, %d equivalent; want 7, 0", st.Interleavings, st.Equivalent)
	}
	m = &model{n: 6, kind: trace.WildAny, bad: func(o []int64) (bool, bool) { return o[1] == 2, false }}
	if st = explore(t, m, Options{MixingBound: -1, OrderBound: 0, ReduceOrders: true, FirstError: true}); st.Stopped == "" {
		t.Errorf("orders that matter: the bug behind event 1's other order was not found: %+v", st)
	}
	// wildcard receives are never reduced
	windowsOf = windowsBy(true)
	if st = explore(t, &model{n: 4, kind: trace.WildRecv}, Options{MixingBound: 0, ReduceOrders: true}); st.Interleavings != 5 {
		t.Errorf("wildcard receives: %d interleavings, want 5", st.Interleavings)
	}
}

// A stop leaves the outcomes not run queued, per site; replays that could
// not happen are run, not checked.
func TestSiteQueued(t *testing.T) {
	im := &model{n: 3, kind: trace.WildRecv, bad: func(o []int64) (bool, bool) { return false, o[0] == 2 }}
	if st := explore(t, im, Options{MixingBound: -1}); st.Sites[0].Unchecked != 1 || st.Sites[0].Run != 4 {
		t.Errorf("infeasible: %+v", st.Sites[0])
	}
	m := &model{n: 5, kind: trace.WildRecv}
	st := explore(t, m, Options{MixingBound: -1, MaxInterleavings: 4})
	s := st.Sites[0]
	if st.Complete || s.Queued == 0 || s.Events != s.Run+s.Pruned+s.Queued+s.Equivalent || s.Run != 3 {
		t.Errorf("stopped: %+v", s)
	}
}

// The space of a wildcard site is the number of orders of the messages
// its events matched, per rank: 12 from each of 2 sources, C(24,12).
func TestSpace(t *testing.T) {
	p := &trace.Process{Rank: 0, ConstVal: map[string]uint64{"MPI_ANY_SOURCE": ^uint64(0), "MPI_ANY_TAG": ^uint64(0)}}
	for i := 0; i < 24; i++ {
		src := int64(1 + i%2)
		p.Wild = append(p.Wild, &trace.Wildcard{Event: uint64(i), Kind: trace.WildProbe, Comm: 1, Tag: -1, Forced: -1, Matched: true,
			Source: src, World: int(src), Clock: uint64(2 * i)})
		p.Late = append(p.Late, trace.Late{Source: 3 - src, World: int(3 - src), Comm: 1, Tag: 0, Clock: uint64(2 * i), Before: uint64(i + 1)})
	}
	var s sites
	s.space(&trace.Run{Procs: []*trace.Process{p}})
	if len(s.order) != 1 || s.order[0].Space == nil || s.order[0].Space.Cmp(big.NewInt(2704156)) != 0 {
		t.Fatalf("space: %+v", s.order)
	}
	if s.order[0].SpaceBound {
		t.Errorf("space of a site whose alternatives it matched too: a bound")
	}
	// alternatives that are messages the site never matched (a later
	// named receive took them): the product of the outcomes, a bound
	q := &trace.Process{Rank: 0, ConstVal: p.ConstVal}
	for i := 0; i < 5; i++ {
		q.Wild = append(q.Wild, &trace.Wildcard{Event: uint64(i), Kind: trace.WildRecv, Comm: 1, Tag: -1, Forced: -1, Matched: true, Source: 1, World: 1, Clock: uint64(2 * i)})
		q.Late = append(q.Late, trace.Late{Source: 2, World: 2, Comm: 1, Clock: uint64(2 * i), Before: uint64(i + 1)})
	}
	var b sites
	b.space(&trace.Run{Procs: []*trace.Process{q}})
	if b.order[0].Space.Int64() != 32 || !b.order[0].SpaceBound {
		t.Errorf("bounded space: %v, bound %v; want 32, true", b.order[0].Space, b.order[0].SpaceBound)
	}
	if m := multinomial(map[int64]int64{1: 2, 2: 1, 3: 3}); m.Int64() != 60 {
		t.Errorf("multinomial(2,1,3) = %v, want 60", m)
	}
}

// In parallel, site-first order and left-out completion orders give the
// same replays, in the same order, as one at a time, and every replay
// launched ahead is finished or discarded.
func TestParallelSitesAndOrders(t *testing.T) {
	defer func(w func(*trace.Process, map[uint64]bool) map[uint64][2]uint64) { windowsOf = w }(windowsOf)
	for _, same := range []bool{true, false} {
		windowsOf = windowsBy(same)
		o := Options{MixingBound: 1, OrderBound: 1, ReduceOrders: true}
		var seq, par []string
		m := &model{n: 6, kind: trace.WildAny}
		run := twoSites(m.run)
		first, _ := run(1, nil, nil)
		want := Explore(first, func(n int, ds []Decision, b *Branch) (*Interleaving, error) {
			seq = append(seq, fmt.Sprint(n, ds))
			return run(n, ds, b)
		}, o)
		pm := &model{n: 6, kind: trace.WildAny}
		prun := twoSites(pm.run)
		first, _ = prun(1, nil, nil)
		var launched, finished, discarded atomic.Int64
		po := o
		po.Parallel = &Parallel{Jobs: 3,
			Launch: func(ctx context.Context, ds []Decision, b *Branch) any {
				launched.Add(1)
				time.Sleep(time.Duration(1+rand.Intn(3)) * time.Millisecond)
				return ds
			},
			Finish: func(n int, ds []Decision, b *Branch, _ any) (*Interleaving, error) {
				finished.Add(1)
				par = append(par, fmt.Sprint(n, ds))
				return prun(n, ds, b)
			},
			Discard: func(any) { discarded.Add(1) },
		}
		got := Explore(first, nil, po)
		if !reflect.DeepEqual(par, seq) || got.Interleavings != want.Interleavings || got.Equivalent != want.Equivalent {
			t.Errorf("same=%v: parallel %d interleavings (%d equivalent), sequential %d (%d)\n%v\n%v", same, got.Interleavings, got.Equivalent,
				want.Interleavings, want.Equivalent, par, seq)
		}
		if launched.Load() != finished.Load()+discarded.Load() {
			t.Errorf("same=%v: %d launched, %d finished, %d discarded", same, launched.Load(), finished.Load(), discarded.Load())
		}
	}
}

// Sites in an installed library (Options.Library) are not explored: their
// alternatives are counted, the program's site is explored as before, and
// a bug behind a library event's alternative is not reached; without
// Options.Library every combination is.
func TestLibrarySitesLeftOut(t *testing.T) {
	bad := func(o []int64) (bool, bool) { return o[7] == 2, false }
	inLib := func(run Runner) Runner { // event 0 in the program, the others in a library
		return func(n int, ds []Decision, b *Branch) (*Interleaving, error) {
			il, err := twoSites(run)(n, ds, b)
			if err == nil && il.Run != nil {
				for _, p := range il.Run.Procs {
					p.Maps = []trace.Mapping{{Start: 0, End: 0x180, Path: "/prog"}, {Start: 0x180, End: 0x1000, Path: "/lib/libx.so"}}
				}
			}
			return il, err
		}
	}
	for _, kind := range []int{trace.WildRecv, trace.WildAny} {
		run := inLib((&model{n: 8, kind: kind, bad: bad}).run)
		first, _ := run(1, nil, nil)
		st := Explore(first, run, Options{MixingBound: -1, OrderBound: -1, FirstError: true, Library: func(m string) bool { return m == "/lib/libx.so" }})
		// the first run's 7 library events, and the replay's of event 0;
		// no error found: complete
		if st.Interleavings != 2 || st.Library != 14 || !st.Complete || len(st.Sites) != 2 {
			t.Fatalf("kind %d: %d interleavings, %d library outcomes, stopped %q, %d sites", kind, st.Interleavings, st.Library, st.Stopped, len(st.Sites))
		}
		for _, s := range st.Sites {
			lib := s.Key == "/lib/libx.so+0x80"
			if s.InLibrary != lib || lib && (s.Run != 0 || s.Library != 14 || s.Events != 14) || !lib && (s.Run != 1 || s.Library != 0) {
				t.Errorf("kind %d: site %s: %+v", kind, s.Key, s)
			}
		}
		run = inLib((&model{n: 8, kind: kind, bad: bad}).run)
		first, _ = run(1, nil, nil)
		st = Explore(first, run, Options{MixingBound: -1, OrderBound: -1, FirstError: true})
		if st.Stopped != "stopped at the first interleaving with errors" || st.Library != 0 {
			t.Errorf("kind %d, no Library: %d interleavings, %d library outcomes, stopped %q", kind, st.Interleavings, st.Library, st.Stopped)
		}
	}
}
