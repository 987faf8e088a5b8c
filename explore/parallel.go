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

// level is the replays planned for one interleaving under exploration;
// next is the first not reached.
type level struct {
	items []*item
	next  int
}

// item is one planned replay: its decisions, the branch that made it,
// and where the search goes below it.
type item struct {
	ds            []Decision
	b             *Branch
	bound         *Key
	depth, orders int
	task          *task // run ahead (nil: not started)
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
}

// fill starts the next replays of the frontier, in the order the search
// will reach them (the deepest level first), while fewer than Jobs run and
// fewer than lookahead*Jobs wait for the search.
func (x *explorer) fill() {
	p := x.o.Parallel
	left := -1 // replays --max-interleavings still allows
	if x.o.MaxInterleavings > 0 {
		left = x.o.MaxInterleavings - x.n
	}
	for l := len(x.levels) - 1; l >= 0; l-- {
		for _, it := range x.levels[l].items[x.levels[l].next:] {
			if x.running >= p.Jobs || (left >= 0 && len(x.ahead) > left) {
				return
			}
			// Replays of the deepest level are the next the search
			// reaches; those of shallower levels wait longer once run,
			// and fill the lookahead, which must not keep the next ones
			// from running.
			if l < len(x.levels)-1 && len(x.ahead) >= lookahead*p.Jobs {
				return
			}
			if it.task == nil {
				x.launch(it)
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
