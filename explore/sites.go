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
// Every outcome known is in exactly one of Run, Equivalent, Pruned and
// Queued; the outcomes not known (in replays never run) are in none, which
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
	Queued     int // known, not run: the search stopped (budget, --max-interleavings, interrupt)
	// Space is the size of the site's space of outcomes in the first run,
	// where it can be computed: for wildcard receives and probes, the orders
	// in which the messages they matched could have been matched, per
	// rank (a multinomial), multiplied over the ranks; for completion calls,
	// the product over their calls of the outcomes each could have had
	// alone, a bound on the orders of completion. Nil: not computed.
	Space *big.Int
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
	for _, m := range maps {
		if pc >= m.Start && pc < m.End {
			if m.Py != nil {
				return fmt.Sprintf("%s:%d", m.Py.File, m.Py.Line)
			}
			return fmt.Sprintf("%s+%#x", m.Path, pc-m.Start+m.Offset)
		}
	}
	return fmt.Sprintf("%#x", pc)
}

// sites keeps the SiteStats of an exploration.
type sites struct {
	by    map[string]*SiteStats
	order []*SiteStats
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

// space computes each site's Space from the first run r.
func (s *sites) space(r *trace.Run) {
	type rankSite struct {
		st   *SiteStats
		rank int
	}
	from := map[rankSite]map[int64]int64{} // wildcard sites: messages matched per source
	memo := siteMemo{}
	for _, p := range Points(r) {
		if len(p.Alts) == 0 || p.Wild.Quiet {
			continue
		}
		st := s.of(p, memo)
		if st.Space == nil {
			st.Space = big.NewInt(1)
		}
		if p.Wild.Kind == trace.WildAny {
			st.Space.Mul(st.Space, big.NewInt(int64(1+len(p.Alts))))
			continue
		}
		k := rankSite{st, p.Rank}
		if from[k] == nil {
			from[k] = map[int64]int64{}
		}
		from[k][p.Wild.Source]++
	}
	for _, p := range Points(r) { // events without alternatives still take part in the orders
		if p.Wild.Kind == trace.WildAny || p.Wild.Quiet || len(p.Alts) > 0 {
			continue
		}
		if k := (rankSite{memo[sitePC{p.Proc, p.Wild.PC}], p.Rank}); k.st != nil && from[k] != nil {
			from[k][p.Wild.Source]++
		}
	}
	for k, counts := range from {
		k.st.Space.Mul(k.st.Space, multinomial(counts))
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
