package explore

import (
	"context"
	"sort"
	"time"

	"mpivet/api"
	"mpivet/trace"
)

// Decision forces wildcard event Event of rank Rank to match Source (a rank
// of the event's communicator), or a Waitany-family event (Kind
// trace.WildAny) to return the request at index Source (several decisions for
// one event: a Waitsome returning all of them).
type Decision struct {
	Rank   int
	Event  uint64
	Source int64
	Kind   int
}

// decisions force event w of rank to the outcome it had.
func decisions(rank int, w *trace.Wildcard) []Decision {
	if w.Kind == trace.WildAny && len(w.Chosen) > 0 {
		ds := make([]Decision, len(w.Chosen))
		for i, c := range w.Chosen {
			ds[i] = Decision{rank, w.Event, c, w.Kind}
		}
		return ds
	}
	return []Decision{{rank, w.Event, w.Source, w.Kind}}
}

// Complete returns decisions that replay run r exactly: every wildcard event
// that matched, forced to the source it matched.
func Complete(r *trace.Run) []Decision {
	var ds []Decision
	for _, p := range Points(r) {
		ds = append(ds, decisions(p.Rank, p.Wild)...)
	}
	return ds
}

// Branch is the deviation that made an interleaving: one wildcard event
// forced to another source than it matched in the interleaving it came from
// (or a Waitany-family event to another index than it returned). It holds
// what a report needs to describe it, not the run it came from.
type Branch struct {
	From        int // the interleaving it deviates from
	Rank        int
	Event       uint64
	Kind        int             // of the event (trace.WildRecv, ...)
	PC          uint64          // the event's call site
	Maps        []trace.Mapping // the rank's mappings in that run, to place PC
	Call        string          // the MPI call of the event
	EventName   string          // the event, its thread named (trace.Process.EventName)
	Was, Forced Alt
	// Expect says, for each rank with a forced event, where in its log of
	// the run deviated from the replay must still make the same calls.
	Expect []Expect
}

// Expect is what a rank of a replay must repeat of the run it comes from:
// its calls in Log (its log of that run) up to the entry record at Limit,
// the last event the replay forces in it (layer/src/divergence.c).
type Expect struct {
	Rank  int
	Log   string
	Limit uint64
}

// Interleaving is one execution of the program.
type Interleaving struct {
	N         int // 1 for the first, free run
	Decisions []Decision
	Branch    *Branch
	Run       *trace.Run
	// Slack, if set, rules out and annotates the alternatives the clocks
	// offer (it is dropped once the interleaving's plan is made).
	Slack Slack
	// Unbuffered are the standard-mode sends a deadlock that exists only
	// for want of buffering (unsafe-buffering) waits for: the exploration
	// runs the interleaving again with them buffered, to see what the
	// program does past them.
	Unbuffered []SendRef
	Infeasible bool        // a forced match could not happen: not a real execution
	Diverged   bool        // the program took another path before a forced match: not the execution asked for
	DivergedAt *Divergence // where, if known (timing.go)
	Errors     bool        // checks found errors in it
	TimedOut   bool        // stopped at the time limit
	// Stopped says why the run was cut short by mpivet's user or budget
	// (interrupt, time budget): the exploration ends there.
	Stopped string
}

// Unmatched says how a run that stopped without finishing (deadlock or time
// limit) left its forced events. unmatched: a forced event never matched, so the
// forced source may never have sent a message it could take, which the
// program's own wildcard would not have waited for (another interleaving
// covers what it would have matched), and the stop need not be an error of
// the program. blocked: such an event is the receive or probe its rank is
// blocked in, which proves it. Otherwise they are nonblocking receives whose
// completion call is blocked, and those may have matched (the MPI says so
// only when the completion returns: seed 003 Fig. 8).
//
// A receive a hold-back still held (HoldKind) proves it as well: the event
// it waited for never matched, whatever the call its thread is in.
func Unmatched(r *trace.Run) (unmatched, blocked bool) {
	for _, p := range r.Procs {
		for _, h := range p.Holds {
			if !h.Released {
				unmatched, blocked = true, true
			}
		}
		cur := append([]*trace.Call{p.Last()}, p.Threads...) // the call each thread is in
		for _, w := range p.Wild {
			if !w.Matched && !w.Cancelled && forcedIn(p, w) {
				unmatched = true
				for _, c := range cur {
					blocked = blocked || blockedIn(c, w)
				}
			}
		}
	}
	return unmatched, blocked
}

// blockedIn reports whether call c, in progress, is the receive or probe of
// wildcard event w: its entry record, or a blocking call's entry kept in
// the state page (not logged: its brief record is in the log) at w's call
// site, a blocking call that its thread cannot have left for a later one.
func blockedIn(c *trace.Call, w *trace.Wildcard) bool {
	if c == nil || c.Returned {
		return false
	}
	if c.Offset != trace.Unknown {
		return c.Offset == w.Offset && w.Offset != trace.Unknown
	}
	return c.Def.Has("blocking") && w.PC != 0 && c.PC == w.PC
}

// forcedIn reports whether a decision imposed the match of p's event w.
func forcedIn(p *trace.Process, w *trace.Wildcard) bool {
	anySource := int64(-1)
	if v, ok := p.Const("MPI_ANY_SOURCE"); ok {
		anySource = int64(v)
	}
	return w.Forced != anySource
}

// Runner executes the program with the given decisions forced and returns
// the interleaving, checked (Errors set). n numbers it.
type Runner func(n int, ds []Decision, b *Branch) (*Interleaving, error)

// Options bound the exploration.
type Options struct {
	MaxInterleavings int           // 0: no limit
	Budget           time.Duration // 0: no limit
	BudgetName       string        // how the stop names it ("": Budget)
	MixingBound      int           // -1: unbounded; K: at most K+1 nested deviations from a run's own matches (§5.3.5.2)
	// OrderBound bounds the Waitany-family deviations the same way, on
	// their own: -1 explores every order in which requests can complete
	// (n! for a Waitany loop over n receives); 0, each other outcome of each
	// such call once, in the run that found it (about n²/2).
	OrderBound int
	// ReduceOrders: replay one other completion order of a Waitany-family
	// event whose alternatives are orders only, and the others of its
	// context only if that one changed the calls that follow (orders.go).
	ReduceOrders bool
	FirstError   bool // stop at the first interleaving with errors
	// Library, if set, reports whether a call site's module is an
	// installed library (not the program's own code): the other outcomes
	// of events at its sites are not explored, and are counted
	// (SiteStats.Library, Stats.Library) instead. Python lines are always
	// the program's.
	Library  func(module string) bool
	Progress func(Progress)
	// Done is told when the search below a replay is over: its records,
	// which the replays below it compare themselves with, are no longer
	// needed.
	Done func(n int)
	// Parallel, if set, runs up to Parallel.Jobs replays at once (see
	// Parallel); Run is then not used for replays.
	Parallel *Parallel
}

// Progress is the state of an exploration. Frontier counts the alternatives
// known and not run yet; more may be found in the replays still to run.
type Progress struct {
	Done, Frontier, Running        int
	Infeasible, Diverged, TimedOut int
	Elapsed                        time.Duration // since the exploration started
	Budget                         time.Duration // of the exploration (0: none): Elapsed never goes past it
}

// Stats says how an exploration ended.
type Stats struct {
	Interleavings int // executions, including infeasible and diverged ones
	Infeasible    int
	Diverged      int
	TimedOut      int
	Queued        int // alternatives known but not run when it stopped
	RuledOut      int // potential matches no buffering makes possible (not run)
	Buffered      int // interleavings run with sends buffered by mpivet
	// Events counts the wildcard events found with other possible
	// outcomes (each once, in the run that found it); of those outcomes,
	// Explored were run and Pruned left out by the mixing or order bound.
	Events, Explored, Pruned int
	// Repeated counts the replays that forced the same decisions as an
	// earlier one: the search should never plan one (repeat.go), so any is
	// a bug of the search, not of the program.
	Repeated int
	// Equivalent counts the completion orders not replayed because another
	// order in the same context led to the same calls (orders.go).
	Equivalent int
	Sites      []SiteStats // per nondeterministic call site, the sites with most events first
	// NotReplayable counts the alternatives left out because replays
	// diverged at a place they must repeat (timing.go).
	NotReplayable int
	// Library counts the alternatives not explored because their call
	// site is in an installed library (Options.Library).
	Library  int
	Complete bool   // every outcome was covered (within the mixing bound)
	Stopped  string // why not, otherwise
}

type explorer struct {
	o      Options
	run    Runner
	start  time.Time
	n      int
	prog   Progress
	stop   string
	queued int // the frontier when the search stopped
	// coverage (Stats)
	events, explored, pruned int
	// ruledOut counts the alternatives Slack ruled out, buffered the
	// replays run with sends buffered
	ruledOut, buffered int
	// the decisions of the replays run, to count repeats (repeat.go)
	ran      map[decisionKey]bool
	repeated int
	// per call site (sites.go), and the contexts of completion orders
	// tested (orders.go)
	sites       sites
	equiv       map[uint64]int8
	equivalents int
	// where replays diverged, the places found not replayable and the
	// alternatives they left out (timing.go)
	places       map[placeKey]*place
	timing       []string
	unreplayable int
	// library counts the alternatives at sites in installed libraries,
	// not explored (Options.Library)
	library int
	// the replays planned and not run yet, one level per interleaving
	// being explored (the deepest last), and those run ahead of their
	// turn (parallel.go)
	levels  []*level
	ahead   map[*task]bool
	running int
	done    chan *task
	cancel  context.CancelFunc
	ctx     context.Context
}

// halt stops the search for the reason given: the items not reached are
// queued.
func (x *explorer) halt(reason string) bool {
	x.stop, x.queued = reason, x.prog.Frontier
	for _, lv := range x.levels {
		for _, it := range lv.items {
			switch {
			case it.reached:
			case x.equivalent(it): // known equivalent already, not left to run
				x.queued--
				x.equivalents++
				if it.site != nil {
					it.site.Equivalent++
				}
			case it.site != nil:
				it.site.Queued++
			}
		}
	}
	return false
}

// Explore runs the depth-first search of seed 000 Fig. 5.23 from the first
// interleaving: for each matched wildcard event, latest first, and each of
// its alternatives, replay with every earlier event (in Key order), and
// every event the replays above forced, forced to what it matched and this
// one forced to the alternative; then explore the events after it in that
// replay the same way. Each match set is replayed once (repeat.go). Events before the deviation do
// not depend on it (their clocks are smaller), so the forced matches can
// happen; an event's alternatives are tried once, in the subtree of the run
// that found them. The replays are those of that search; their order puts
// each call site's first round before any site's second (search.go), and
// completion orders that change no later call are left out (orders.go).
//
// Only a plan of each interleaving (its decisions and alternatives) is kept
// while replays of it are left, never its records: memory grows with the
// depth of the search (plus at most one level per call site) times the
// wildcard events, not with the runs.
func Explore(first *Interleaving, run Runner, o Options) Stats {
	x := &explorer{o: o, run: run, start: time.Now(), n: 1, sites: sites{library: o.Library}}
	defer x.drain()
	x.prog.Done = 1
	x.count(first)
	if first.Run != nil && !first.Infeasible && !first.Diverged {
		x.sites.space(first.Run)
	}
	if !(o.FirstError && first.Errors) {
		x.push(first.N, x.plan(first, nil, 0), 0, 0)
		x.search()
	} else {
		x.stop = "stopped at the first interleaving with errors"
	}
	stop := x.stop
	if t := x.timingStop(); t != "" && stop == "" {
		stop = t
	} else if t != "" {
		stop += "; " + t
	}
	return Stats{Interleavings: x.n, Infeasible: x.prog.Infeasible, Diverged: x.prog.Diverged, TimedOut: x.prog.TimedOut,
		Queued: x.queued, RuledOut: x.ruledOut, Buffered: x.buffered, Complete: stop == "", Stopped: stop,
		Events: x.events, Explored: x.explored, Pruned: x.pruned, Repeated: x.repeated,
		Equivalent: x.equivalents, Sites: x.sites.list(), NotReplayable: x.unreplayable, Library: x.library}
}

func (x *explorer) report() {
	if x.o.Progress != nil {
		x.prog.Elapsed, x.prog.Budget = time.Since(x.start), x.o.Budget
		x.o.Progress(x.prog)
	}
}

func (x *explorer) count(il *Interleaving) {
	if il.Infeasible {
		x.prog.Infeasible++
	}
	if il.Diverged {
		x.prog.Diverged++
	}
	if il.TimedOut {
		x.prog.TimedOut++
	}
}

// step is one matched wildcard event of an interleaving, in Key order: the
// decisions that force it to what it matched, and, when it is to be
// explored, its alternatives and the branch that describes each.
type step struct {
	key    Key
	forced []Decision
	// pinned: a decision of the replay forced it (forcedIn), so every
	// replay below keeps it forced, wherever its key falls (repeat.go)
	pinned bool
	log    string // the log of the event's rank in the run
	offset uint64 // the event's entry record there (^0: not logged)
	alts   []Alt
	branch Branch // Forced and Expect are set per alternative
	site   *SiteStats
	// ctx, after: the event's context and window, when its other
	// completion orders are replayed only if they matter (orders.go)
	ctx, after uint64
}

// plan is what the search keeps of an interleaving while it explores below
// it: its steps, and what every rank of it does before it can learn
// anything from another (alone).
type plan struct {
	steps []step
	alone []Expect
	// buffer: the buffering and hold-back decisions of the interleaving,
	// which every replay below it keeps (its events matched as they did
	// with them)
	buffer []Decision
	// cont: the interleaving again, with the sends its unsafe-buffering
	// deadlock waited for buffered (nil: none)
	cont *continuation
	// compete: the interleaving again with one thread's receive held back
	// until another thread's, which took a later message of the same
	// source, has matched (compete.go)
	compete []continuation
}

type continuation struct {
	ds []Decision
	b  Branch
}

// expect says what each rank of a replay forcing steps must repeat: up to
// its last forced event, or, for a rank without one, up to its first call
// that takes anything from another rank (before it, a rank depends on
// nothing the replay changes).
func (pl plan) expect(steps []step) []Expect {
	at := map[int]Expect{}
	for _, e := range pl.alone {
		at[e.Rank] = e
	}
	for _, s := range steps {
		if s.offset != trace.Unknown && s.log != "" {
			if e, ok := at[s.key.Rank]; !ok || e.Log != s.log || e.Limit < s.offset {
				at[s.key.Rank] = Expect{Rank: s.key.Rank, Log: s.log, Limit: s.offset} // the last forced event
			}
		}
	}
	es := make([]Expect, 0, len(at))
	for _, e := range at {
		es = append(es, e)
	}
	sort.Slice(es, func(i, j int) bool { return es[i].Rank < es[j].Rank })
	return es
}

// expectedLog is the log a replay's rank p is compared with (its calls
// repeat those in it): p's. When several of p's threads called MPI, whose
// calls interleave differently in every run, the layer compares each
// thread with p's thread of the same identity (layer/src/divergence).
func expectedLog(p *trace.Process) string {
	return p.File
}

// alone finds, for each rank of r, the entry record of its first call that
// may take something from another rank: a receive, probe, collective or
// completion.
func alone(r *trace.Run) []Expect {
	var es []Expect
	for _, p := range r.Procs {
		if p.Rank < 0 || expectedLog(p) == "" {
			continue
		}
		for c := range p.Calls() {
			if d := c.Def; d.Has("recv") || d.Has("probe") || d.Has("coll") || d.Has("completion") {
				es = append(es, Expect{Rank: p.Rank, Log: p.File, Limit: c.Offset})
				break
			}
		}
	}
	return es
}

// plan returns the steps of il (none if it is not to be explored further):
// its events after bound are explored, unless forced by the runs it comes
// from, quiet, or Waitany-family events beyond the order bound.
func (x *explorer) plan(il *Interleaving, bound *Key, orders int) plan {
	if il.Run == nil || il.Infeasible || il.Diverged {
		return plan{}
	}
	ps := Points(il.Run)
	steps := make([]step, len(ps))
	memo := siteMemo{}
	for i, p := range ps {
		s := &steps[i]
		s.key, s.forced = p.Key(), decisions(p.Rank, p.Wild)
		s.log, s.offset = expectedLog(p.Proc), p.Wild.Offset
		s.pinned = forcedIn(p.Proc, p.Wild)
		if len(p.Alts) == 0 || p.Wild.Quiet || s.pinned || (bound != nil && !bound.Less(s.key)) {
			continue
		}
		x.events++
		s.site = x.sites.of(p, memo)
		s.site.Events++
		if s.site.InLibrary {
			x.library += len(p.Alts)
			s.site.Library += len(p.Alts)
			continue
		}
		if p.Wild.Kind == trace.WildAny && x.o.OrderBound >= 0 && orders > x.o.OrderBound {
			x.pruned += len(p.Alts)
			s.site.Pruned += len(p.Alts)
			continue
		}
		s.alts = x.slack(il, p)
		s.branch = Branch{From: il.N, Rank: p.Rank, Event: p.Wild.Event, Kind: p.Wild.Kind, PC: p.Wild.PC, Maps: p.Proc.Maps,
			Was: Alt{Source: p.Wild.Source, World: p.Wild.World}, EventName: p.Proc.EventName(p.Wild.Event)}
		if c := p.Proc.CallAt(p.Wild.Offset); c != nil {
			s.branch.Call = c.Name()
		}
	}
	if x.o.ReduceOrders {
		x.contexts(ps, steps)
	}
	il.Slack = nil
	pl := plan{steps: steps, alone: alone(il.Run), buffer: append(Buffers(il.Decisions), Holds(il.Decisions)...)}
	if len(il.Unbuffered) > 0 {
		ds := bufferDecisions(append([]Decision(nil), pl.buffer...), il.Unbuffered)
		if len(ds) > len(pl.buffer) { // never twice the same
			pl.cont = &continuation{ds: append(ds, Complete(il.Run)...),
				b: Branch{From: il.N, Rank: -1, Kind: BufferKind, Forced: Alt{Buffer: il.Unbuffered}, Expect: pl.expect(steps)}}
		}
	}
	pl.compete = competing(il, pl.buffer, pl.expect(steps))
	return pl
}

// contexts sets the context and window of the steps whose other
// completion orders are replayed only if they matter (orders.go).
func (x *explorer) contexts(ps []*Point, steps []step) {
	events := map[*trace.Process]map[uint64]bool{}
	for i, p := range ps {
		if steps[i].site != nil && len(steps[i].alts) > 0 && p.Wild.Kind == trace.WildAny {
			if events[p.Proc] == nil {
				events[p.Proc] = map[uint64]bool{}
			}
			events[p.Proc][p.Wild.Event] = true
		}
	}
	hashes := map[*trace.Process]map[uint64][2]uint64{}
	for p, evs := range events {
		hashes[p] = ordersMatter(p, evs)
	}
	for i, p := range ps {
		if h, ok := hashes[p.Proc][p.Wild.Event]; ok && events[p.Proc][p.Wild.Event] {
			steps[i].ctx = contextKey(p.Rank, steps[i].site.Key, p.Wild, h[0])
			steps[i].after = h[1]
		}
	}
}

// slack returns the alternatives of point p of il that some buffering makes
// possible, each with the sends it needs buffered (all of them, as the
// clocks say, without il.Slack).
func (x *explorer) slack(il *Interleaving, p *Point) []Alt {
	if il.Slack == nil || p.Wild.Kind == trace.WildAny {
		return p.Alts
	}
	var alts []Alt
	for _, a := range p.Alts {
		if b, ok := il.Slack.Need(p.Rank, p.Wild, a); ok {
			alts = append(alts, b)
		} else {
			x.ruledOut++
		}
	}
	return alts
}

// BufferKind is the kind of a decision that buffers a send (api.WildBuffer):
// its Event is the send's number among its rank's MPI_Send and MPI_Isend
// calls (layer/src/slack).
const BufferKind = api.WildBuffer

// bufferDecisions adds to ds the decisions that buffer sends, once each.
func bufferDecisions(ds []Decision, sends []SendRef) []Decision {
	for _, s := range sends {
		d := Decision{Rank: s.Rank, Event: s.Ordinal, Kind: BufferKind}
		dup := false
		for _, e := range ds {
			dup = dup || e == d
		}
		if !dup {
			ds = append(ds, d)
		}
	}
	return ds
}

// HoldKind is the kind of a decision that holds back a thread's receives
// (api.WildHold): its Event is the thread's position (its count of
// wildcard events, numbered as events), its Source the event whose match
// releases them. Only replays of several threads have them.
const HoldKind = api.WildHold

// holdDecisions adds to ds the decisions that hold back the receives at
// positions hold until event of rank has matched, once each, but not
// those of a position that a decision of ds forces: a forced receive
// takes its own source's message, not another.
func holdDecisions(ds []Decision, rank int, event uint64, hold []uint64) []Decision {
	for _, pos := range hold {
		skip := false
		for _, d := range ds {
			forces := d.Kind != BufferKind && d.Kind != HoldKind
			skip = skip || d.Rank == rank && d.Event == pos && (forces || d.Kind == HoldKind && d.Source == int64(event))
		}
		if !skip {
			ds = append(ds, Decision{Rank: rank, Event: pos, Source: int64(event), Kind: HoldKind})
		}
	}
	return ds
}

// Holds returns the decisions of ds that hold back receives.
func Holds(ds []Decision) []Decision { return ofKind(ds, HoldKind) }

// ofKind returns the decisions of ds of the given kind, in their order.
func ofKind(ds []Decision, kind int) []Decision {
	var of []Decision
	for _, d := range ds {
		if d.Kind == kind {
			of = append(of, d)
		}
	}
	return of
}

// replayOf returns the decisions and branch of the replay that forces
// alternative alt of step i: the interleaving's buffering decisions (with
// those alt needs), every earlier step forced to what it matched, every
// later step a replay above forced (pinned: later only by its clock in
// this run) forced alike, and step i to alt.
func (pl *plan) replayOf(i int, alt Alt) ([]Decision, *Branch) {
	steps := pl.steps
	s := &steps[i]
	ds := append([]Decision(nil), pl.buffer...)
	ds = bufferDecisions(ds, alt.Buffer)
	kept := append([]step(nil), steps[:i]...)
	for _, q := range steps[i+1:] {
		if q.pinned {
			kept = append(kept, q) // forced above, after s only by its clock in this run
		}
	}
	for _, q := range kept {
		ds = append(ds, q.forced...)
	}
	ds = append(ds, Decision{s.branch.Rank, s.branch.Event, alt.Source, s.branch.Kind})
	ds = holdDecisions(ds, s.branch.Rank, s.branch.Event, alt.Hold)
	b := s.branch
	b.Forced = alt
	b.Expect = pl.expect(append(kept, *s))
	return ds, &b
}
