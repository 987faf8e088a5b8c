package explore

import (
	"fmt"
	"math/big"
	"sort"

	"mpivet/trace"
)

// SiteStats is what the exploration did at one nondeterministic call site
// (a wildcard receive or probe, or a Waitany, Waitsome, Testany or
// Testsome, at one place in the code, all ranks together): how many of its
// events had other outcomes, and what became of those outcomes.
//
// Every outcome known is in exactly one of Run, Equivalent, Pruned,
// NotReplayable and Queued; the outcomes not known (in replays never run) are in none, which
// is why Space says how large the site's space is where that can be
// computed, instead of a share of the outcomes known.
type SiteStats struct {
	Key   string // the site, whatever the run: module and offset (Site)
	Kind  int    // trace.WildRecv, WildProbe or WildAny
	Call  string // the MPI call
	Ranks []int  // the ranks it was found in
	PC    uint64 // in the first rank found with it, to place it (Maps)
	Maps  []trace.Mapping
	// Events with other possible outcomes, counted once in each
	// interleaving planned (an event seen again in a replay counts again).
	Events int
	Run    int // outcomes replayed
	// Unchecked: of those, replays that did not give the execution asked
	// for (the forced match could not happen, or the program diverged):
	// the outcome was tried, not checked.
	Unchecked int
	// Equivalent: completion orders not replayed because another order of
	// the same call in the same context was replayed and led to the same
	// MPI calls (orders.go).
	Equivalent int
	Pruned     int // cut by --mixing-bound or --order-bound
	// NotReplayable: left out because replays diverged, before their
	// forced match, at a place they must repeat (timing.go)
	NotReplayable int
	Queued        int // known, not run: the search stopped (budget, --max-interleavings, interrupt)
	// InLibrary: the site is in an installed library (Options.Library),
	// and Library counts the outcomes of its events not explored so.
	InLibrary bool
	Library   int
	// Space is the size of the site's space of outcomes in the first run,
	// where it can be computed: for wildcard receives and probes, the orders
	// in which the messages they matched could have been matched, per
	// rank (a multinomial), multiplied over the ranks; for completion calls,
	// and wildcard sites whose alternatives are messages they did not match,
	// the product over their events of the outcomes each could have had, a
	// bound (SpaceBound). Nil: not computed.
	Space *big.Int
	// SpaceBound: Space is a bound (a product of the events' outcomes),
	// not the number of orders (always so for completion calls).
	SpaceBound bool
	// round: the step of a level whose alternatives are the site's first
	// round (site-first priority, search.go); done once they all ran.
	round      *level
	roundStep  int
	roundsDone int
}

// Site names a call site whatever the run: the module that holds the
// return address and its offset in the file (address-space randomisation
// moves modules, not offsets), or the Python line, or the address.
func Site(maps []trace.Mapping, pc uint64) string {
	m := mappingOf(maps, pc)
	switch {
	case m == nil:
		return fmt.Sprintf("%#x", pc)
	case m.Py != nil:
		return fmt.Sprintf("%s:%d", m.Py.File, m.Py.Line)
	}
	return fmt.Sprintf("%s+%#x", m.Path, pc-m.Start+m.Offset)
}

// mappingOf returns the mapping that holds pc (nil: none).
func mappingOf(maps []trace.Mapping, pc uint64) *trace.Mapping {
	for i := range maps {
		if pc >= maps[i].Start && pc < maps[i].End {
			return &maps[i]
		}
	}
	return nil
}

// sites keeps the SiteStats of an exploration.
type sites struct {
	by      map[string]*SiteStats
	order   []*SiteStats
	library func(module string) bool // Options.Library
}

// siteMemo names the sites of one run's points: a run has few sites and
// many events (kept only while one run is planned: it holds its processes).
type siteMemo map[sitePC]*SiteStats

type sitePC struct {
	p  *trace.Process
	pc uint64
}

// of returns the stats of the site of point p, made on first sight.
func (s *sites) of(p *Point, memo siteMemo) *SiteStats {
	k := sitePC{p.Proc, p.Wild.PC}
	if st, ok := memo[k]; ok {
		return st
	}
	key := Site(p.Proc.Maps, p.Wild.PC)
	st := s.by[key]
	if st == nil {
		if s.by == nil {
			s.by = map[string]*SiteStats{}
		}
		st = &SiteStats{Key: key, Kind: p.Wild.Kind, PC: p.Wild.PC, Maps: p.Proc.Maps}
		if m := mappingOf(p.Proc.Maps, p.Wild.PC); s.library != nil && m != nil && m.Py == nil {
			st.InLibrary = s.library(m.Path)
		}
		if c := p.Proc.CallAt(p.Wild.Offset); c != nil {
			st.Call = c.Name()
		}
		s.by[key] = st
		s.order = append(s.order, st)
	}
	memo[k] = st
	addRank(st, p.Rank)
	return st
}

func addRank(st *SiteStats, rank int) {
	i := sort.SearchInts(st.Ranks, rank)
	if i < len(st.Ranks) && st.Ranks[i] == rank {
		return
	}
	st.Ranks = append(st.Ranks, 0)
	copy(st.Ranks[i+1:], st.Ranks[i:])
	st.Ranks[i] = rank
}

// list returns the stats, the sites with most events first.
func (s *sites) list() []SiteStats {
	out := make([]SiteStats, 0, len(s.order))
	for _, st := range s.order {
		c := *st
		c.round = nil
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Events > out[j].Events })
	return out
}

// space computes each site's Space from the first run r. A wildcard site's
// space in a rank is the orders of the messages it matched (a multinomial)
// when every alternative of its events is a source it matched too;
// otherwise (an alternative is a message a later receive took) it is
// bounded by the product of its events' outcomes (SpaceBound).
func (s *sites) space(r *trace.Run) {
	type rankSite struct {
		st   *SiteStats
		rank int
	}
	type acc struct {
		from map[int64]int64 // messages matched per source
		alts map[int64]bool  // sources of alternatives
		prod *big.Int        // product of the events' outcomes
	}
	per := map[rankSite]*acc{}
	memo := siteMemo{}
	ps := Points(r)
	for _, p := range ps {
		if !p.Wild.Quiet && len(p.Alts) > 0 {
			s.of(p, memo) // the sites with alternatives
		}
	}
	for _, p := range ps { // their events without alternatives take part in the orders too
		st := memo[sitePC{p.Proc, p.Wild.PC}]
		if p.Wild.Quiet || st == nil {
			continue
		}
		k := rankSite{st, p.Rank}
		a := per[k]
		if a == nil {
			a = &acc{from: map[int64]int64{}, alts: map[int64]bool{}, prod: big.NewInt(1)}
			per[k] = a
		}
		a.from[p.Wild.Source]++
		a.prod.Mul(a.prod, big.NewInt(int64(1+len(p.Alts))))
		for _, alt := range p.Alts {
			a.alts[alt.Source] = true
		}
	}
	for k, a := range per {
		if k.st.Space == nil {
			k.st.Space = big.NewInt(1)
		}
		exact := k.st.Kind != trace.WildAny
		for src := range a.alts {
			exact = exact && a.from[src] > 0
		}
		if exact {
			k.st.Space.Mul(k.st.Space, multinomial(a.from))
		} else {
			k.st.Space.Mul(k.st.Space, a.prod)
			k.st.SpaceBound = true
		}
	}
}

// multinomial is the number of sequences with counts[s] items of each s.
func multinomial(counts map[int64]int64) *big.Int {
	m, n := big.NewInt(1), int64(0)
	for _, c := range counts {
		for i := int64(1); i <= c; i++ {
			n++
			m.Mul(m, big.NewInt(n))
			m.Div(m, big.NewInt(i))
		}
	}
	return m
}
