package explore

import (
	"fmt"
	"time"

	"mpivet/trace"
)

// The order of the search.
//
// Each interleaving explored gets a level: the replays that cover the
// alternatives of its events (items), latest event first, as the depth-first
// search of seed 000 Fig. 5.23 runs them. A level lives until each of its
// items was run or left out; the levels form a stack, the newest on top.
//
// Which replay comes next:
//  1. Site first: a nondeterministic call site (a place in the code, all
//     ranks together: Site) whose alternatives were never tried has
//     priority. Its first round is the alternatives of one of its events,
//     the first the depth-first order reaches (newest level, latest event);
//     once they ran, its other events wait for their depth-first turn. So
//     every site found gets its alternatives tried before any site gets a
//     second round, wherever it is in the run: a depth-first search alone
//     spends its budget below the latest events, and a bug behind an early
//     site waits for every combination of the later ones (a wildcard loop's
//     2^n).
//  2. Otherwise depth first: the next item of the newest level.
//
// The items run are the same as in a depth-first search and each match set
// is still replayed once (repeat.go): only their order changes, and with
// it which ones a budget or --max-interleavings leaves out. A replay run
// out of depth-first order puts its level on top of the stack, so the
// levels alive are the depth of the search plus at most one per site.

// search runs the replays of the levels until none is left or the search
// stops.
func (x *explorer) search() {
	for {
		lv, i := x.pick()
		if lv == nil {
			return
		}
		it := lv.items[i]
		if x.equivalent(it) {
			x.reach(lv, it)
			x.skip(it)
			x.over(lv)
			continue
		}
		if !x.replay(lv, it) {
			return
		}
		x.over(lv)
	}
}

// pick returns the next replay: level and item (nil: none left).
func (x *explorer) pick() (*level, int) {
	if lv, i := x.freshItem(); lv != nil {
		return lv, i
	}
	for len(x.levels) > 0 {
		lv := x.levels[len(x.levels)-1]
		for lv.next < len(lv.items) && lv.items[lv.next].reached {
			lv.next++
		}
		if lv.next < len(lv.items) {
			return lv, lv.next
		}
		x.over(lv)
	}
	return nil, -1
}

// freshItem returns an item of a site's first round, if one is left.
func (x *explorer) freshItem() (*level, int) {
	for l := len(x.levels) - 1; l >= 0; l-- {
		lv := x.levels[l]
		for _, f := range lv.fresh {
			if !f.open(lv) {
				continue
			}
			st := f.site
			for i := f.from; i < f.to; i++ {
				if !lv.items[i].reached && !x.equivalent(lv.items[i]) {
					st.round, st.roundStep = lv, f.step
					return lv, i
				}
			}
			if st.round == lv {
				st.roundsDone, st.round = 1, nil // its first round is over
			}
		}
	}
	return nil, -1
}

// reach marks item it of lv as reached: run, or left out.
func (x *explorer) reach(lv *level, it *item) {
	it.reached = true
	lv.left--
	x.prog.Frontier--
}

// over removes lv if none of its items is left, and says its search is
// over (Options.Done).
func (x *explorer) over(lv *level) {
	if lv.left > 0 {
		return
	}
	for i, l := range x.levels {
		if l == lv {
			x.levels = append(x.levels[:i], x.levels[i+1:]...)
			if x.o.Done != nil && lv.n > 0 {
				x.o.Done(lv.n)
			}
			return
		}
	}
}

// push adds the level of the plan of interleaving n, unless it has no
// replay to run.
func (x *explorer) push(n int, pl plan, depth, orders int) {
	if x.o.MixingBound >= 0 && depth > x.o.MixingBound {
		for _, s := range pl.steps {
			x.pruned += len(s.alts)
			if s.site != nil {
				s.site.Pruned += len(s.alts)
			}
		}
		return
	}
	lv := &level{n: n}
	lv.items, lv.fresh = x.items(&pl, depth, orders)
	if len(lv.items) == 0 {
		return
	}
	lv.left = len(lv.items)
	x.prog.Frontier += lv.left
	x.levels = append(x.levels, lv)
}

// items are the replays that cover the alternatives of pl, in depth-first
// order: the continuation with more sends buffered first, then the
// competing receives of several threads held back (compete.go), then each step's
// alternatives, latest step first; and, for each site, the items of its
// first step in that order. A step's replay forces the matches of the
// steps before it and of the pinned ones after it: an event the replays
// above forced stays forced below, even where the run gave it a later
// clock than the step (repeat.go).
func (x *explorer) items(pl *plan, depth, orders int) ([]*item, []freshStep) {
	var items []*item
	var fresh []freshStep
	if pl.cont != nil {
		// the same matches, with the sends its deadlock waited for
		// buffered: what the program does where the MPI buffers more
		items = append(items, &item{ds: pl.cont.ds, b: &pl.cont.b, depth: depth, orders: orders})
	}
	for i := range pl.compete { // the other thread's receive takes the first message
		items = append(items, &item{ds: pl.compete[i].ds, b: &pl.compete[i].b, depth: depth + 1, orders: orders})
	}
	seen := map[*SiteStats]bool{}
	for i := len(pl.steps) - 1; i >= 0; i-- {
		s := &pl.steps[i]
		if len(s.alts) == 0 {
			continue
		}
		nextOrders := orders
		if s.branch.Kind == trace.WildAny {
			nextOrders++
		}
		if s.site != nil && !seen[s.site] {
			seen[s.site] = true
			fresh = append(fresh, freshStep{site: s.site, step: i, from: len(items), to: len(items) + len(s.alts)})
		}
		for _, alt := range s.alts {
			items = append(items, &item{pl: pl, step: i, alt: alt, bound: &s.key, depth: depth + 1, orders: nextOrders,
				site: s.site, ctx: s.ctx, after: s.after, rank: s.key.Rank, event: s.key.Event})
		}
	}
	return items, fresh
}

// stopped says whether a limit stops the search before another replay.
func (x *explorer) stopped() (string, bool) {
	if x.o.MaxInterleavings > 0 && x.n >= x.o.MaxInterleavings {
		return fmt.Sprintf("stopped at --max-interleavings=%d", x.o.MaxInterleavings), true
	}
	if x.o.Budget > 0 && time.Since(x.start) >= x.o.Budget {
		name := x.o.BudgetName
		if name == "" {
			name = x.o.Budget.String()
		}
		return fmt.Sprintf("stopped at the time budget (%s)", name), true
	}
	return "", false
}

// replay runs item it of lv, and plans the interleaving it makes; false if
// the search stops.
func (x *explorer) replay(lv *level, it *item) bool {
	if why, stop := x.stopped(); stop {
		return x.halt(why)
	}
	x.reach(lv, it)
	ds, _ := it.decisions()
	if len(Buffers(ds)) > 0 {
		x.buffered++
	}
	x.n++
	x.explored++
	if it.site != nil {
		it.site.Run++
	}
	if x.repeat(ds) {
		x.repeated++
	}
	child, err := x.runItem(x.n, it)
	it.ds, it.b, it.pl = nil, nil, nil // run: the level keeps no replay's decisions
	x.prog.Running = 0
	if err != nil {
		return x.halt(err.Error())
	}
	if child.Stopped != "" {
		// A replay cut short is not done: it was not checked to its end.
		it.reached = false
		lv.left++
		x.prog.Frontier++
		x.explored--
		if it.site != nil {
			it.site.Run--
		}
		return x.halt(child.Stopped)
	}
	x.prog.Done++
	x.count(child)
	if it.site != nil && (child.Infeasible || child.Diverged) {
		it.site.Unchecked++
	}
	x.learn(child)
	x.report()
	x.compare(it, child)
	if x.o.FirstError && child.Errors {
		return x.halt("stopped at the first interleaving with errors")
	}
	x.push(child.N, x.plan(child, it.bound, it.orders), it.depth, it.orders)
	return true
}
