package explore

import (
	"fmt"

	"mpivet/trace"
)

// Replays that keep diverging.
//
// A replay checks nothing if its program leaves the run it replays before
// the forced match (layer/src/divergence). For a reason met once (a clock
// read once, a file) the next replays repeat the run again; but a program
// whose MPI calls depend on timing (a poll with MPI_Iprobe or MPI_Test
// from a named source that takes another path when the message is not
// there yet, a time-limited loop) makes other calls in nearly every run,
// and so in nearly every replay that must repeat it past that point: a
// budget spent on them checks nothing.
//
// So the search learns where replays diverge: a place is a rank of the run
// replayed (the interleaving the replays come from). A timing-dependent
// rank diverges wherever its timing lands, not at one fixed call (a polling
// loop that ran one round more or less: the run's call there or the next
// one), so the calls are not compared; the earliest divergence seen bounds
// the place. After divergeRun replays in a row diverged at a place, with no
// replay in between repeating that rank past it, the place is not
// replayable: the alternatives whose replays must repeat that rank up to
// it or beyond are left out and counted as not replayable, and the verdict
// is incomplete, naming the place. Those that need less of that rank still
// run. A place of another run at the same call of the same rank is known
// already: its first divergence marks it.
//
// divergeRun is 3: one divergence can be a one-off; two in a row can still
// be the replays run at once, all under the same load; a third, with none
// between them getting past the place, makes the dependence the rule,
// and each further try would cost a whole run for nothing.
const divergeRun = 3

// Divergence is where a replay left the run it replays: rank Rank made
// another call than that run's call at Offset (its entry record in the
// run's log of that rank), placed in the source by Where.
type Divergence struct {
	Rank   int
	Offset uint64
	Where  string
}

type placeKey struct{ from, rank int }

// place is what the search knows of the divergences at a place.
type place struct {
	inRow  int    // divergences in a row, none between repeating the rank past offset
	offset uint64 // the earliest seen
	where  string
	dead   bool // not replayable: its alternatives are left out
}

// learn takes note of how replay child of item it went: a divergence at a
// place, or a replay that repeated its ranks past the places known.
func (x *explorer) learn(child *Interleaving) {
	b := child.Branch
	if b == nil {
		return
	}
	if x.places == nil {
		x.places = map[placeKey]*place{}
	}
	if d := child.DivergedAt; child.Diverged && d != nil {
		k := placeKey{b.From, d.Rank}
		p := x.places[k]
		if p == nil {
			p = &place{offset: d.Offset, where: d.Where}
			x.places[k] = p
		}
		p.inRow++
		if d.Offset < p.offset {
			p.offset, p.where = d.Offset, d.Where
		}
		if !p.dead && (p.inRow >= divergeRun || x.knownTiming(d)) {
			p.dead = true
			x.timing = append(x.timing, p.where)
			x.leaveOut(k, p)
		}
		return
	}
	if child.Diverged || child.Infeasible || child.TimedOut {
		return
	}
	for _, e := range b.Expect {
		if p := x.places[placeKey{b.From, e.Rank}]; p != nil && !p.dead && e.Limit >= p.offset {
			p.inRow = 0 // repeated past it: not the rule
		}
	}
}

// knownTiming says whether a place not replayable is known at the same
// rank and call as divergence d.
func (x *explorer) knownTiming(d *Divergence) bool {
	for k, p := range x.places {
		if p.dead && k.rank == d.Rank && p.where == d.Where {
			return true
		}
	}
	return false
}

// leaveOut leaves out the alternatives of the level of interleaving k.from
// whose replays must repeat rank k.rank up to p or beyond.
func (x *explorer) leaveOut(k placeKey, p *place) {
	for _, lv := range x.levels {
		if lv.n != k.from {
			continue
		}
		for _, it := range lv.items {
			if lim, ok := it.limit(k.rank); it.reached || !ok || lim < p.offset {
				continue
			}
			x.reach(lv, it)
			x.unreplayable++
			if it.site != nil {
				it.site.NotReplayable++
			}
			x.drop(it)
		}
		if lv.left == 0 {
			x.over(lv)
		}
		return
	}
}

// limit is how far item it's replay must repeat rank r of the run it comes
// from (Expect.Limit); false if it need not repeat any of it.
func (it *item) limit(r int) (uint64, bool) {
	if it.b != nil {
		for _, e := range it.b.Expect {
			if e.Rank == r {
				return e.Limit, true
			}
		}
		return 0, false
	}
	if it.pl == nil {
		return 0, false
	}
	var lim uint64
	ok := false
	take := func(s *step) {
		if s.key.Rank == r && s.log != "" && s.offset != trace.Unknown && (!ok || s.offset > lim) {
			lim, ok = s.offset, true
		}
	}
	for i := range it.pl.steps {
		if s := &it.pl.steps[i]; i <= it.step || s.pinned {
			take(s)
		}
	}
	for _, e := range it.pl.alone {
		if e.Rank == r && (!ok || e.Limit > lim) {
			lim, ok = e.Limit, true
		}
	}
	return lim, ok
}

// timingStop is the reason the verdict is incomplete when places were not
// replayable ("" if none was).
func (x *explorer) timingStop() string {
	if len(x.timing) == 0 {
		return ""
	}
	more := ""
	if len(x.timing) > 1 {
		more = fmt.Sprintf(" (and %d more %s)", len(x.timing)-1, plural(len(x.timing)-1, "place", "places"))
	}
	return fmt.Sprintf("diverge: the program's MPI calls depend on timing at %s%s: %d %s not replayable",
		x.timing[0], more, x.unreplayable, plural(x.unreplayable, "alternative", "alternatives"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
