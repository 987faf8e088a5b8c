package explore

import "context"

// Parallel runs replays ahead of their turn, up to Jobs at once. The
// search itself stays sequential and depth-first: it numbers, checks and
// plans each replay in the order a sequential search would, so its
// interleavings, numbers, findings and report are the same. What runs
// ahead is only the costly part, the program: the replays the search has
// planned and not reached (its frontier, the alternatives of the
// interleavings it is below) are independent of one another and of the
// replay in progress, since each forces all its decisions, so they can
// run while it does.
//
// Launch runs one replay's program, without its number (a sequential
// search would give it one only when it reaches it); it is called from
// goroutines of its own, Jobs at most at once, and must stop soon when ctx
// is cancelled. Finish checks what Launch returned as interleaving n, in
// the search's order, as Runner does. Discard is given what Launch
// returned for replays the search stopped before reaching (an interrupt,
// --max-interleavings, --first-error, the budget, an error).
type Parallel struct {
	Jobs    int
	Context context.Context // (nil: none) cancelling it stops the replays running
	Launch  func(ctx context.Context, ds []Decision, b *Branch) any
	Finish  func(n int, ds []Decision, b *Branch, launched any) (*Interleaving, error)
	Discard func(launched any)
}

// lookahead bounds the replays of shallower levels run ahead and not yet
// reached, in units of Jobs: each keeps its run directory and result until
// the search reaches it, which may be long after. Replays of the deepest
// level, the next the search reaches, are started whatever the bound (at
// most Jobs run at once): held ones of shallower levels had filled it and
// kept a master/worker of 8 ranks to one replay at a time (docs/design/parallel-replays.md).
const lookahead = 2

// level is the replays planned for one interleaving under exploration
// (search.go): n is the interleaving, next the first item not reached in
// depth-first order, left how many are not, fresh the first step of each
// site among them.
type level struct {
	n     int
	items []*item
	next  int
	left  int
	fresh []freshStep
}

// freshStep is the first step of a site in a level: its items are
// items[from:to].
type freshStep struct {
	site     *SiteStats
	step     int
	from, to int
}

// open says whether f, a step of level lv, may still give its site's first
// round: the site has had none, and no other step has begun it.
func (f freshStep) open(lv *level) bool {
	st := f.site
	return st.roundsDone == 0 && (st.round == nil || st.round == lv && st.roundStep == f.step)
}

// item is one planned replay: its decisions, the branch that made it,
// and where the search goes below it.
type item struct {
	ds            []Decision
	b             *Branch
	bound         *Key
	depth, orders int
	task          *task // run ahead (nil: not started)
	reached       bool  // run, or left out
	// the site, and for a completion order that may need no replay its
	// context, window, rank and event (orders.go)
	site       *SiteStats
	ctx, after uint64
	rank       int
	event      uint64
	// The replay's decisions and branch, until made (lazy): alternative
	// alt of step `step` of plan pl. A replay's decisions force every
	// earlier event, and its branch says what each rank repeats, so made
	// for every alternative at once they took memory growing with the
	// alternatives times the events and the ranks (P³ for a wildcard
	// gather: 150 MB at 128 ranks); made when the replay is run or
	// launched, and dropped once it ran, only the replays in flight hold
	// them.
	pl   *plan
	step int
	alt  Alt
}

// decisions makes, if not made yet, and returns the replay's decisions and
// branch.
func (it *item) decisions() ([]Decision, *Branch) {
	if it.b == nil && it.pl != nil {
		it.ds, it.b = it.pl.replayOf(it.step, it.alt)
	}
	return it.ds, it.b
}

// task is a replay's program running, or run, ahead of its turn.
type task struct {
	out      any
	finished bool
	orphan   bool // its item was left out: discarded when it finishes
}

// runItem runs replay it as interleaving n: one after another through
// Runner, or, in parallel, from what Launch ran ahead.
func (x *explorer) runItem(n int, it *item) (*Interleaving, error) {
	p := x.o.Parallel
	if p == nil || p.Jobs <= 1 {
		x.prog.Running = 1
		x.report()
		ds, b := it.decisions()
		return x.run(n, ds, b)
	}
	if x.ahead == nil {
		ctx := p.Context
		if ctx == nil {
			ctx = context.Background()
		}
		x.ctx, x.cancel = context.WithCancel(ctx)
		x.ahead, x.done = map[*task]bool{}, make(chan *task, p.Jobs)
	}
	for it.task == nil && x.running >= p.Jobs {
		x.wait()
	}
	if it.task == nil {
		x.launch(it)
	}
	x.fill()
	// Those started ahead are still in the frontier: shown as running
	// (started and not checked), with the one the search waits for.
	x.prog.Running = len(x.ahead)
	x.prog.Frontier -= len(x.ahead) - 1
	x.report()
	x.prog.Frontier += len(x.ahead) - 1
	for !it.task.finished {
		x.wait()
		x.fill()
	}
	t := it.task
	it.task = nil
	delete(x.ahead, t)
	ds, b := it.decisions()
	return p.Finish(n, ds, b, t.out)
}

// launch starts the program of replay it.
func (x *explorer) launch(it *item) {
	t := &task{}
	it.task = t
	x.ahead[t] = true
	x.running++
	ds, b := it.decisions()
	go func() {
		t.out = x.o.Parallel.Launch(x.ctx, ds, b)
		x.done <- t
	}()
}

// wait waits for a replay running to finish.
func (x *explorer) wait() {
	t := <-x.done
	t.finished = true
	x.running--
	if t.orphan {
		delete(x.ahead, t)
		if x.o.Parallel.Discard != nil {
			x.o.Parallel.Discard(t.out)
		}
	}
}

// fill starts the next replays of the frontier, in the order the search
// will reach them (upcoming), while fewer than Jobs run and fewer than
// lookahead*Jobs wait for the search.
func (x *explorer) fill() {
	p := x.o.Parallel
	left := -1 // replays --max-interleavings still allows
	if x.o.MaxInterleavings > 0 {
		left = x.o.MaxInterleavings - x.n
	}
	for it, next := range x.upcoming {
		if x.running >= p.Jobs || (left >= 0 && len(x.ahead) > left) {
			return
		}
		// The next replays are those of sites never tried and of the
		// newest level; those of older levels wait longer once run, and
		// fill the lookahead, which must not keep the next ones from
		// running.
		if !next && len(x.ahead) >= lookahead*p.Jobs {
			return
		}
		if it.task == nil {
			x.launch(it)
		}
	}
}

// upcoming yields the items not reached, in about the order the search
// reaches them (search.go): the first rounds of sites never tried, then
// depth first, newest level first; next says the item is of the first
// rounds or the newest level. Items left out as equivalent are not.
func (x *explorer) upcoming(yield func(*item, bool) bool) {
	for l := len(x.levels) - 1; l >= 0; l-- {
		lv := x.levels[l]
		for _, f := range lv.fresh {
			if !f.open(lv) {
				continue
			}
			for _, it := range lv.items[f.from:f.to] {
				if !it.reached && !x.equivalent(it) && !yield(it, true) {
					return
				}
			}
		}
	}
	for l := len(x.levels) - 1; l >= 0; l-- {
		lv := x.levels[l]
		for _, it := range lv.items[lv.next:] {
			if !it.reached && !x.equivalent(it) && !yield(it, l == len(x.levels)-1) {
				return
			}
		}
	}
}

// drain stops the replays run ahead that the search will not reach, waits
// for them, and discards what they left.
func (x *explorer) drain() {
	if x.ahead == nil {
		return
	}
	x.cancel()
	for x.running > 0 {
		x.wait()
	}
	for t := range x.ahead {
		if x.o.Parallel.Discard != nil {
			x.o.Parallel.Discard(t.out)
		}
	}
	x.ahead = nil
}
