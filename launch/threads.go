package launch

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"mpivet/api"
	"mpivet/trace"
)

// Threads outside MPI in a stall. A rank one of whose threads is blocked
// in MPI while another waits outside it (on a condition variable, a mutex,
// a barrier, a semaphore, OpenMP's barrier) is blocked for good when
// nothing can wake the other: the state page shows only the MPI calls, so
// the launcher looks at the threads themselves in /proc. A thread that is
// not inside MPI (nor in pthread_join, which the state page says), and not
// one of the MPI's own (layer/src/buffers/faults.c notes them in the state
// file's thread table), counts as asleep for good only if it sleeps in a
// futex wait without a timeout on a process-private futex (only the
// process's own threads can wake it: trace.Task.OwnWait) and has had no
// CPU time for the stall's delay. One such thread running, or with CPU
// time during the delay (trace.Asleep.Running), and the rank may still act,
// whether or not that thread ever called MPI: it may be about to, or to
// wake one that will. /proc not readable (another host, srun), and the
// process is not annotated: the checks decide from its MPI threads alone.

// threadWatch follows, during a stall, the CPU time of the threads of the
// processes of this host that have a thread inside MPI.
type threadWatch struct {
	ran map[[2]int]taskRan // by pid and thread id
}

// taskRan is a thread's CPU time and since when it has not grown.
type taskRan struct {
	ran   uint64
	since time.Time
}

// look reads the threads of every process of run directory dir that has a
// thread inside MPI, and returns what it found
// asleep for good, by the process's records' path without extension, and
// a key that changes when that does.
func (t *threadWatch) look(dir string, window time.Duration, now time.Time) (map[string]*trace.Asleep, string) {
	last := t.ran
	t.ran = map[[2]int]taskRan{} // the threads seen now only
	out := map[string]*trace.Asleep{}
	var key []string
	host, _ := os.Hostname()
	states, _ := filepath.Glob(filepath.Join(dir, "p."+host+".*.state"))
	for _, s := range states {
		base := strings.TrimSuffix(s, ".state")
		pid, err := strconv.Atoi(base[strings.LastIndex(base, ".")+1:])
		if err != nil || trace.TestRemote() {
			continue
		}
		if _, err := os.Stat(base + ".exit"); err == nil {
			continue
		}
		tab, ok := trace.ReadThreadTable(s)
		if !ok || !inMPI(tab) {
			continue
		}
		if a := t.process(pid, tab, last, window, now); a != nil {
			out[base] = a
			key = append(key, fmt.Sprintf("%d:%v:%d:%d", pid, a.All, len(a.Threads), len(a.Running)))
		}
	}
	sort.Strings(key)
	return out, strings.Join(key, " ")
}

// inMPI reports whether a thread of a process is inside MPI.
func inMPI(tab trace.ThreadTable) bool {
	for _, st := range tab.SlotStatus {
		if st == 1 || st == api.StatusDeciding {
			return true
		}
	}
	return false
}

// process looks at the threads of process pid; nil if /proc does not show
// them.
func (t *threadWatch) process(pid int, tab trace.ThreadTable, last map[[2]int]taskRan, window time.Duration, now time.Time) *trace.Asleep {
	slotOf := map[int]int{}
	skip := map[int]bool{}
	for s, tid := range tab.SlotTID {
		if tid == 0 {
			continue
		}
		slotOf[tid] = s
		if st := tab.SlotStatus[s]; st != 2 && st != 0 {
			skip[tid] = true // inside MPI, in pthread_join, or ended: the state page says
		}
	}
	tasks, ok := trace.ReadTasks(pid, func(tid int) bool { return skip[tid] || tab.Library[tid] })
	if !ok {
		return nil
	}
	// Threads past the seventh to call MPI share the last slot, whose
	// kernel id is not noted: once it is taken, a thread of no slot that
	// runs may be one of them, polling inside MPI.
	shared := tab.SlotStatus[api.StateSlots-1] != 0
	a := &trace.Asleep{All: true}
	for _, k := range tasks {
		id := [2]int{pid, k.TID}
		r, seen := last[id]
		if !seen || r.ran != k.Ran {
			r = taskRan{ran: k.Ran, since: now}
		}
		t.ran[id] = r
		if k.State == 'R' || now.Sub(r.since) < window {
			a.All = false
			if _, called := slotOf[k.TID]; called || !shared {
				a.Running = append(a.Running, k.TID)
			}
			continue
		}
		wait := k.OwnWait()
		if wait == "" {
			a.All = false
			continue
		}
		slot, called := slotOf[k.TID]
		if !called {
			slot = -1
		}
		a.Threads = append(a.Threads, trace.SleepingThread{TID: k.TID, Slot: slot, Wait: wait, SP: k.SP})
	}
	return a
}

// annotate gives the processes of run what look found, with the stacks of
// their sleeping threads.
func annotate(run *trace.Run, asleep map[string]*trace.Asleep) {
	for _, p := range run.Procs {
		a := asleep[strings.TrimSuffix(p.File, ".log")]
		if a == nil || p.Exit != nil {
			continue
		}
		for i := range a.Threads {
			a.Threads[i].Stack = trace.TaskStack(p.Pid, a.Threads[i].SP, p.Maps, 8)
		}
		p.Asleep = a
	}
}
