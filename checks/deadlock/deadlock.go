// Package deadlock defines the deadlock check: it reads the wait state of a
// stopped run (checks/internal/waitstate), reports the deadlocked ranks as
// deadlock or unsafe-buffering, and hands the wait-for graph to the report
// in its finding (Finding.Graph), which the report's DOT printer writes.
package deadlock

import (
	"embed"
	"fmt"
	"path/filepath"
	"strings"

	"mpivet/check"
	"mpivet/checks/failure"
	"mpivet/checks/internal/waitfor"
	"mpivet/checks/internal/waitstate"
	"mpivet/trace"
)

// The check's documentation: deadlock.md is its Doc, and every other
// KIND.md explains a kind (mpivet explain KIND, docs/checks.md).
//
//go:embed *.md
var docFiles embed.FS

var checkDoc, kindDocs = check.Docs(docFiles, "deadlock")

// Check reports ranks that can never return from the MPI calls they are in.
var Check = &check.Check{
	Name:     "deadlock",
	Kinds:    []string{"deadlock", "unsafe-buffering"},
	Doc:      checkDoc,
	KindDocs: kindDocs,
	Requires: []*check.Check{waitstate.Analyzer},
	Run:      run,
}

func run(pass *check.Pass) (any, error) {
	in := pass.In
	if !in.Stalled && !in.TimedOut || in.Interrupted {
		return nil, nil
	}
	a := waitstate.Of(pass)
	if !a.IsDeadlocked() || onlyAfterFailure(a) {
		return nil, nil
	}
	core := map[int]bool{}
	var cores []string
	for _, c := range a.Cores {
		for _, r := range c {
			core[r] = true
		}
		cores = append(cores, check.RankList(c))
	}
	var lines []string
	var locs []check.Location
	for _, r := range a.Deadlocked {
		rk := a.Ranks[r]
		l := pass.At(rk.Proc, rk.Call)
		l.Note = "waits on the core"
		if core[r] {
			l.Note = "in the core of the deadlock"
		}
		locs = append(locs, l)
		// what it caught or said about a signal before it hung there
		said, saidAt := failure.Hung(pass, rk.Proc)
		locs = append(locs, saidAt...)
		lines = append(lines, fmt.Sprintf("rank %d: %s at %s%s", r, check.Describe(rk.Proc, rk.Call), l.Where(), said))
		sl, sa := sleepers(pass, rk.Proc)
		lines, locs = append(lines, sl...), append(locs, sa...)
		if in.Stalled && unseen(rk.Proc) {
			lines = append(lines, fmt.Sprintf("rank %d: its threads outside MPI were not seen (its host's /proc cannot be read from here): the verdict rests on its threads that called MPI", r))
		}
	}
	explained := map[int]bool{}
	why := finalized(a, explained)
	for _, c := range a.Cores {
		for _, r := range c {
			rk := a.Ranks[r]
			if rk == nil || rk.State != waitfor.Finished || explained[r] {
				continue
			}
			lines = append(lines, fmt.Sprintf("rank %d: %s, so it will never do what the others wait for", r, ended(rk)))
		}
	}
	msg := fmt.Sprintf("%d %s (%s) can never return from %s MPI %s", len(a.Deadlocked), check.Plural(len(a.Deadlocked), "rank", "ranks"),
		check.RankList(a.Deadlocked), check.Plural(len(a.Deadlocked), "its", "their"), check.Plural(len(a.Deadlocked), "call", "calls"))
	if len(why) > 0 {
		msg = strings.Join(why, "; ") + ": " + msg
	}
	if len(cores) > 0 {
		msg += fmt.Sprintf("; the core of the deadlock (waiting for each other, or for a rank that finished): %s", strings.Join(cores, "; "))
	}
	if len(a.Waiting) > 0 {
		msg += fmt.Sprintf("; %s %s only %s on it", check.Plural(len(a.Waiting), "rank", "ranks"), check.RankList(a.Waiting), check.Plural(len(a.Waiting), "waits", "wait"))
	}
	msg += ":\n" + strings.Join(lines, "\n")
	var graph *check.Graph
	if in.Run.Dir != "" {
		// the report's DOT printer leaves it in the run directory
		graph = &check.Graph{Dir: in.Run.Dir, Name: "deadlock", DOT: a.Graph.DOT()}
		msg += "\nwait-for graph: " + graph.Path()
	}
	kind := "deadlock"
	// A collective some members never call (they finalize instead) is
	// collective-missing's, not buffering's: no MPI makes that right.
	if a.NeedsBuffering() && !(rootedCollective(a) && finalizingInCore(a)) {
		kind = "unsafe-buffering"
		if rootedCollective(a) {
			msg = "deadlock that exists only because a rooted collective synchronised, as the MPI standard allows any collective to (the root of an MPI_Bcast or MPI_Scatter may wait for every member, every member of an MPI_Reduce or MPI_Gather for the root): the program relies on it returning early, or on buffered standard-mode sends; " + msg
		} else {
			msg = "deadlock that exists only because the MPI did not buffer standard-mode sends: the program relies on buffering the MPI standard does not guarantee (use MPI_Sendrecv, nonblocking receives posted first, or reorder the calls); " + msg
		}
	}
	pass.Report(check.Finding{Kind: kind, Ranks: a.Deadlocked, Message: msg, Locations: locs, Graph: graph})
	return nil, nil
}

// rootedCollective reports whether a deadlocked rank is blocked in a
// rooted collective (whose synchronising the buffered view leaves out).
func rootedCollective(a *waitstate.Analysis) bool {
	for _, r := range a.Deadlocked {
		if rk := a.Ranks[r]; rk != nil && rk.Call != nil && rk.Call.Def.Has("coll") && rk.Call.HasField("root") {
			return true
		}
	}
	return false
}

// finalizingInCore reports whether a rank of a deadlock's core is in (or
// past) MPI_Finalize.
func finalizingInCore(a *waitstate.Analysis) bool {
	for _, c := range a.Cores {
		for _, r := range c {
			if rk := a.Ranks[r]; rk != nil && rk.Finalizing {
				return true
			}
		}
	}
	return false
}

// ended says how a finished rank ended.
func ended(rk *waitstate.Rank) string {
	x := rk.Proc.Exit
	switch {
	case x != nil && x.Signal != 0:
		return fmt.Sprintf("died (signal %d)", x.Signal)
	case x != nil && !rk.Proc.Finalized():
		return fmt.Sprintf("exited (status %d)", x.Code)
	case x != nil:
		return "has called MPI_Finalize and exited"
	}
	return "has finished"
}

// finalized explains the deadlocked ranks that send to, or wait for a
// message from, a rank that has called MPI_Finalize or ended: no receive
// or send of that rank will ever come (a program that hangs so is no
// buffering problem). It marks the ranks it explained.
func finalized(a *waitstate.Analysis, explained map[int]bool) []string {
	var why []string
	seen := map[string]bool{}
	say := func(r int, verb string, peers []int) {
		for _, d := range peers {
			o, key := a.Ranks[d], fmt.Sprint(r, verb, d)
			if o == nil || !o.Finalizing || seen[key] {
				continue
			}
			seen[key] = true
			how := "which has called MPI_Finalize"
			if o.State == waitfor.Finished && (o.Proc.Exit == nil || !o.Proc.Finalized()) {
				how = "which " + ended(o)
			}
			why = append(why, fmt.Sprintf("rank %d %s rank %d, %s", r, verb, d, how))
			explained[d] = true
		}
	}
	for _, r := range a.Deadlocked {
		rk := a.Ranks[r]
		say(r, "sends to", rk.SendsTo)
		say(r, "waits for a message from", rk.RecvsFrom)
	}
	return why
}

// onlyAfterFailure reports whether every core of the deadlock is a rank
// that failed (crashed, aborted, exited wrongly): the others hang because of
// that failure, which program-failure reports.
func onlyAfterFailure(a *waitstate.Analysis) bool {
	for _, c := range a.Cores {
		for _, r := range c {
			if rk := a.Ranks[r]; rk == nil || !rk.Failed() {
				return false
			}
		}
	}
	return len(a.Cores) > 0
}

// sleepers names the threads of a deadlocked rank that wait outside MPI
// where only the process's own threads can wake them (trace.Asleep, seen
// by the stall watch), and where each waits.
func sleepers(pass *check.Pass, p *trace.Process) ([]string, []check.Location) {
	if p.Asleep == nil || !p.Asleep.All {
		return nil, nil
	}
	var lines []string
	var locs []check.Location
	for _, t := range p.Asleep.Threads {
		who := fmt.Sprintf("a thread that never called MPI (kernel thread %d)", t.TID)
		for i, s := range p.ThreadSlots {
			if s == t.Slot {
				who = fmt.Sprintf("thread %d", i+1)
			}
		}
		stack := t.Stack
		if len(stack) > 0 && inOpenMP(p, stack[0]) {
			// a barrier's or the region's end: the program's frames on the
			// stack are those of the region's function, returned already
			stack = stack[:1]
		}
		l := pass.AtStack(p, stack)
		l.Note = who + " waits here, outside MPI"
		locs = append(locs, l)
		where := l.Where()
		if len(stack) == 1 && inOpenMP(p, stack[0]) {
			where += " (the OpenMP runtime: a barrier, the end of a parallel region, a lock or a critical section)"
		}
		lines = append(lines, fmt.Sprintf("rank %d, %s: waits outside MPI (%s, without a timeout, which only the rank's own threads can end) at %s",
			p.Rank, who, t.Wait, where))
	}
	return lines, locs
}

// unseen reports whether p, a live rank whose thread level allows other
// threads (MPI_THREAD_FUNNELED or above), had its threads outside MPI
// unseen by the stall watch (trace.Process.Asleep nil: another host, srun).
func unseen(p *trace.Process) bool {
	return p.Asleep == nil && p.Exit == nil && p.Level > 0
}

// inOpenMP reports whether pc is in the OpenMP runtime's code.
func inOpenMP(p *trace.Process, pc uint64) bool {
	for _, m := range p.Maps {
		if pc >= m.Start && pc < m.End {
			return strings.HasPrefix(filepath.Base(m.Path), "libgomp")
		}
	}
	return false
}
