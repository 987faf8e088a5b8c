package explore

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"time"

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

// WriteDecisions writes the decision file the layer reads (layer.conf's
// decisions=PATH): "rank event source kind" lines, each rank's events in
// order.
func WriteDecisions(path string, ds []Decision) error {
	ds = append([]Decision(nil), ds...)
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Rank != ds[j].Rank {
			return ds[i].Rank < ds[j].Rank
		}
		return ds[i].Event < ds[j].Event
	})
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, d := range ds {
		fmt.Fprintf(w, "%d %d %d %d\n", d.Rank, d.Event, d.Source, d.Kind)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
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
// (or a Waitany-family event to another index than it returned).
type Branch struct {
	From        int // the interleaving it deviates from
	Rank        int
	Event       uint64
	Kind        int            // of the event (trace.WildRecv, ...)
	PC          uint64         // the event's call site
	Proc        *trace.Process // the rank in the run it deviates from (where PC is mapped)
	Was, Forced Alt
}

// Interleaving is one execution of the program.
type Interleaving struct {
	N          int // 1 for the first, free run
	Decisions  []Decision
	Branch     *Branch
	Run        *trace.Run
	Infeasible bool // a forced match could not happen: not a real execution
	Errors     bool // checks found errors in it
	TimedOut   bool // stopped at the time limit
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
func Unmatched(r *trace.Run) (unmatched, blocked bool) {
	for _, p := range r.Procs {
		cur := p.Last()
		for _, w := range p.Wild {
			if !w.Matched && !w.Cancelled && forcedIn(p, w) {
				unmatched = true
				blocked = blocked || (cur != nil && !cur.Returned && cur.Offset == w.Offset && w.Offset != trace.Unknown)
			}
		}
	}
	return unmatched, blocked
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
	MixingBound      int           // -1: unbounded; K: at most K+1 nested deviations from a run's own matches (§5.3.5.2)
	// OrderBound bounds the Waitany-family deviations the same way, on
	// their own: -1 explores every order in which requests can complete
	// (n! for a Waitany loop over n receives); 0, each other outcome of each
	// such call once, in the run that found it (about n²/2).
	OrderBound int
	FirstError bool // stop at the first interleaving with errors
	Progress   func(Progress)
}

// Progress is the state of an exploration.
type Progress struct {
	Done, Frontier, Infeasible int
	Elapsed                    time.Duration
}

// Stats says how an exploration ended.
type Stats struct {
	Interleavings int // executions, including infeasible ones
	Infeasible    int
	Complete      bool   // every outcome was covered (within the mixing bound)
	Stopped       string // why not, otherwise
}

type explorer struct {
	o     Options
	run   Runner
	start time.Time
	n     int
	prog  Progress
	stop  string
}

// Explore runs the depth-first search of seed 000 Fig. 5.23 from the first
// interleaving: for each matched wildcard event, latest first, and each of
// its alternatives, replay with every earlier event (in Key order) forced to
// what it matched and this one forced to the alternative; then explore the
// events after it in that replay the same way. Events before the deviation do
// not depend on it (their clocks are smaller), so the forced matches can
// happen; an event's alternatives are tried once, in the subtree of the run
// that found them.
func Explore(first *Interleaving, run Runner, o Options) Stats {
	x := &explorer{o: o, run: run, start: time.Now(), n: 1}
	x.prog.Done = 1
	if !(o.FirstError && first.Errors) {
		x.explore(first, nil, 0, 0)
	} else {
		x.stop = "stopped at the first interleaving with errors"
	}
	return Stats{Interleavings: x.n, Infeasible: x.prog.Infeasible, Complete: x.stop == "", Stopped: x.stop}
}

func (x *explorer) report() {
	if x.o.Progress != nil {
		x.prog.Elapsed = time.Since(x.start)
		x.o.Progress(x.prog)
	}
}

// explore covers the events of il after bound; false if the search stops.
// depth counts the deviations that led to il, orders those of Waitany-family
// events among them.
func (x *explorer) explore(il *Interleaving, bound *Key, depth, orders int) bool {
	if x.o.MixingBound >= 0 && depth > x.o.MixingBound {
		return true
	}
	ps := Points(il.Run)
	var todo []*Point
	for _, p := range ps {
		if p.Wild.Kind == trace.WildAny && x.o.OrderBound >= 0 && orders > x.o.OrderBound {
			continue
		}
		// Forced events were decided by the runs this one comes from.
		if len(p.Alts) > 0 && !p.Wild.Quiet && !forcedIn(p.Proc, p.Wild) && (bound == nil || bound.Less(p.Key())) {
			todo = append(todo, p)
		}
	}
	pending := 0
	for _, p := range todo {
		pending += len(p.Alts)
	}
	x.prog.Frontier += pending
	defer func() { x.prog.Frontier -= pending }()
	for i := len(todo) - 1; i >= 0; i-- {
		p := todo[i]
		key := p.Key()
		var prefix []Decision
		for _, q := range ps {
			if q.Key().Less(key) {
				prefix = append(prefix, decisions(q.Rank, q.Wild)...)
			}
		}
		for _, alt := range p.Alts {
			pending--
			x.prog.Frontier--
			if x.o.MaxInterleavings > 0 && x.n >= x.o.MaxInterleavings {
				x.stop = fmt.Sprintf("stopped at --max-interleavings=%d", x.o.MaxInterleavings)
				return false
			}
			if x.o.Budget > 0 && time.Since(x.start) >= x.o.Budget {
				x.stop = fmt.Sprintf("stopped at the time budget (%s)", x.o.Budget)
				return false
			}
			ds := append(append([]Decision(nil), prefix...), Decision{p.Rank, p.Wild.Event, alt.Source, p.Wild.Kind})
			b := &Branch{From: il.N, Rank: p.Rank, Event: p.Wild.Event, Kind: p.Wild.Kind, PC: p.Wild.PC, Proc: p.Proc,
				Was: Alt{p.Wild.Source, p.Wild.World}, Forced: alt}
			x.n++
			child, err := x.run(x.n, ds, b)
			x.prog.Done++
			if err != nil {
				x.stop = err.Error()
				return false
			}
			if child.Infeasible {
				x.prog.Infeasible++
				x.report()
				continue
			}
			x.report()
			if x.o.FirstError && child.Errors {
				x.stop = "stopped at the first interleaving with errors"
				return false
			}
			nextOrders := orders
			if p.Wild.Kind == trace.WildAny {
				nextOrders++
			}
			if !x.explore(child, &key, depth+1, nextOrders) {
				return false
			}
		}
	}
	return true
}
