package launch

import (
	"fmt"
	"strings"
	"time"

	"mpivet/trace"
)

// The stall decision. A run in which no MPI call completes for a while is
// read and asked whether it can ever resume; a deadlock verdict ends it.
// That verdict must rest on what cannot change:
//   - the snapshot is consistent: no call completed between the progress
//     read before it and the one after the analysis;
//   - a rank counts as waiting only if its process showed it while the run
//     stalled: not stopped, and either sleeping in the kernel or having had
//     a CPU since the stall began (MPIs that wait poll, and use CPU time).
//     Other ranks are marked Suspended and count as able to act;
//   - the same verdict is reached on a second snapshot confirmAfter later,
//     with still no call completed (and, with ranks on other hosts, their
//     pages written back again in between).
//
// A run judged able to resume is asked again only after progress, when
// the set of suspended ranks changes (a stopped rank continued, say), or
// when a rank entered MPI or ended (entering a blocking call completes none:
// a rank that computed and then called MPI_Finalize, or a Sendrecv that can
// never return, changed nothing else), so a long stall costs a /proc read
// per rank and tick, not a read of the logs.

const (
	abortGrace   = 5 * time.Second        // a rank in MPI_Abort this long: the MPI failed to end the job
	confirmAfter = 400 * time.Millisecond // between the two snapshots of a deadlock verdict
)

// stallOutcome is what a tick of the watch decided.
type stallOutcome int

const (
	stallNone       stallOutcome = iota
	stallDeadlocked              // the run can never resume
	stallAbortStuck              // a rank is in MPI_Abort and the MPI has not ended the job
)

// stallWatch follows a live run's progress (stalled, after and notify are
// Options.Stalled, StallAfter and Notify).
type stallWatch struct {
	dir     string
	after   time.Duration
	stalled func(*trace.Run) bool
	notify  func(string)

	last        trace.Progress
	lastChange  time.Time
	aborting    bool                   // a rank is in MPI_Abort, and nothing moved since
	synced      map[string]uint64      // remote ranks' write-back counts when the stall was noticed
	before      map[string]trace.Sched // the ranks' processes when the stall was noticed
	asked       uint64                 // progress count when the run was last judged able to resume
	askedHeld   string                 // the suspended processes then
	askedIn     [2]int                 // the processes inside MPI and outside it then
	first       *verdict               // a deadlock seen once, to be confirmed
	threads     threadWatch            // the threads of ranks in MPI, during a stall
	askedAsleep string                 // their sleepers when the run was last judged able to resume
}

// verdict is a deadlock seen on one snapshot.
type verdict struct {
	calls uint64
	at    time.Time
	syncs map[string]uint64
}

func newStallWatch(dir string, o Options) *stallWatch {
	after := o.StallAfter
	if after <= 0 {
		after = time.Second
	}
	return &stallWatch{dir: dir, after: after, stalled: o.Stalled, notify: o.Notify, lastChange: time.Now(), asked: 1 << 63}
}

// tick looks at the run once; with a deadlock verdict it returns the run
// as read for it.
func (w *stallWatch) tick() (stallOutcome, *trace.Run) {
	if w.stalled == nil {
		return stallNone, nil
	}
	pr := trace.ReadProgress(w.dir)
	if pr.Calls != w.last.Calls {
		w.last, w.lastChange, w.aborting, w.synced, w.before, w.first = pr, time.Now(), false, nil, nil, nil
		return stallNone, nil
	}
	if w.before == nil || len(w.before) < pr.InMPI+pr.Outside {
		// At most one tick into the stall, or into a process's life: the
		// reference for "has had a CPU since".
		for k, s := range trace.ReadSched(w.dir) {
			if w.before == nil {
				w.before = map[string]trace.Sched{}
			}
			if _, ok := w.before[k]; !ok {
				w.before[k] = s
			}
		}
	}
	if w.aborting && time.Since(w.lastChange) >= abortGrace {
		// The MPI should have ended the job by now (Open MPI's launcher
		// can hang here when its help messages collide).
		w.say(fmt.Sprintf("a rank called MPI_Abort %v ago and the MPI has not ended the job; mpivet ends it", abortGrace))
		return stallAbortStuck, nil
	}
	if pr.InMPI == 0 {
		return stallNone, nil
	}
	asleep, sleepers := w.threads.look(w.dir, w.after, time.Now())
	if time.Since(w.lastChange) < w.after {
		return stallNone, nil
	}
	if !w.written(pr) {
		return stallNone, nil
	}
	if w.first != nil && (time.Since(w.first.at) < confirmAfter || len(pr.Syncs) > 0 && !pr.SyncedSince(w.first.syncs, 1)) {
		return stallNone, nil
	}
	now := trace.ReadSched(w.dir)
	held := strings.Join(trace.Held(w.before, now), " ")
	in := [2]int{pr.InMPI, pr.Outside}
	if w.asked == pr.Calls && w.askedHeld == held && w.askedIn == in && w.askedAsleep == sleepers {
		return stallNone, nil
	}
	run, err := trace.ReadRun(w.dir)
	if err != nil {
		return stallNone, nil
	}
	run.MarkSuspended(w.before, now)
	annotate(run, asleep)
	for _, p := range run.Procs {
		if c := p.Last(); c != nil && c.Def.Has("abort") && !c.Returned {
			w.aborting = true
		}
	}
	dead := w.stalled(run)
	if trace.ReadProgress(w.dir).Calls != pr.Calls {
		return stallNone, nil // a call completed meanwhile: the snapshot is stale
	}
	if !dead {
		w.asked, w.askedHeld, w.askedIn, w.askedAsleep, w.first = pr.Calls, held, in, sleepers, nil
		w.waiting(run, now)
		return stallNone, nil
	}
	if w.first == nil || w.first.calls != pr.Calls {
		w.first = &verdict{calls: pr.Calls, at: time.Now(), syncs: pr.Syncs}
		return stallNone, nil
	}
	return stallDeadlocked, run
}

// written reports whether the pages of the ranks on other hosts, which
// reach this one through the shared file system, were written back twice
// since the stall was noticed (supervise.c): only then is there a verdict.
func (w *stallWatch) written(pr trace.Progress) bool {
	if len(pr.Syncs) == 0 {
		return true
	}
	if w.synced == nil {
		w.synced = pr.Syncs
		return false
	}
	return pr.SyncedSince(w.synced, 2)
}

// mark marks the suspended ranks of a run read at its end (time limit,
// interrupt), so that the checks do not take a stopped rank for a waiting
// one. With no stall under way, only stopped ranks are.
func (w *stallWatch) mark(run *trace.Run) {
	now := trace.ReadSched(w.dir)
	if w.before != nil {
		run.MarkSuspended(w.before, now)
		return
	}
	for _, p := range run.Procs {
		if s, ok := now[strings.TrimSuffix(p.File, ".log")]; ok && s.Stopped() {
			p.Suspended = true
		}
	}
}

// waiting says that the run, stalled, can still go on, only when the user
// can act on it: a rank stopped (a debugger, ^Z) holds the run up. A rank
// computing, waiting for one that computes, or not scheduled on a loaded
// machine is what runs do; the time limit bounds it, and a notice would
// only fill the terminal.
func (w *stallWatch) waiting(run *trace.Run, now map[string]trace.Sched) {
	if s := suspended(run); s != "" && anyStopped(now) {
		w.say(fmt.Sprintf("no MPI call completed for %v, but %s; waiting", w.after, s))
	}
}

// anyStopped reports whether a process of the run is stopped (by a signal
// or a debugger).
func anyStopped(now map[string]trace.Sched) bool {
	for _, s := range now {
		if s.Stopped() {
			return true
		}
	}
	return false
}

// suspended says which ranks inside MPI were suspended, if any.
func suspended(run *trace.Run) string {
	var ranks []string
	for _, p := range run.Procs {
		if c := p.Last(); p.Suspended && p.Rank >= 0 && c != nil && !c.Returned {
			ranks = append(ranks, fmt.Sprint(p.Rank))
		}
	}
	if len(ranks) == 0 {
		return ""
	}
	return fmt.Sprintf("%s %s %s not shown to wait (stopped, or not scheduled), so %s %s as able to act",
		plural(len(ranks), "rank", "ranks"), strings.Join(ranks, ", "), plural(len(ranks), "was", "were"),
		plural(len(ranks), "it", "they"), plural(len(ranks), "counts", "count"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (w *stallWatch) say(msg string) {
	if w.notify != nil {
		w.notify(msg)
	}
}
