package trace

import (
	"bytes"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Sched is what the operating system says about a live rank's process. A
// rank's state page says which call it is in, not whether it could run: a
// rank stopped (SIGSTOP, a debugger) or left without a CPU on a loaded host
// inside MPI_Send looks exactly like one blocked there for good. A verdict
// that ranks wait forever must rest on ranks shown to be running and still
// in their calls.
type Sched struct {
	// State as in /proc/PID/stat: 'R' running or runnable, 'S' sleeping,
	// 'D' in uninterruptible sleep, 'T' stopped, 't' stopped by a tracer,
	// 'Z' exited and not yet reaped.
	State byte
	// Ran grows whenever the process has had a CPU: the run time of its
	// main thread in nanoseconds (/proc/PID/schedstat) plus the user and
	// system time of all its threads (/proc/PID/stat) converted to
	// nanoseconds. Only its increase means anything.
	Ran uint64
}

// Stopped reports whether the process is stopped by a signal or a tracer.
func (s Sched) Stopped() bool { return s.State == 'T' || s.State == 't' }

// ReadSched reads the scheduling state of every process of a run directory
// that has not ended, keyed by its records' path without extension
// (RUNDIR/p.HOST.PID). Processes on this host are read from /proc; those on
// other hosts (or all, under TestRemote) from the sample their supervisor
// writes with each write-back (p.HOST.PID.sync: count, state, Ran; see
// layer/src/supervisor/supervise.c). A process that cannot be read is absent.
func ReadSched(dir string) map[string]Sched {
	out := map[string]Sched{}
	states, _ := filepath.Glob(filepath.Join(dir, "p.*.state"))
	host, _ := os.Hostname()
	for _, s := range states {
		base := strings.TrimSuffix(s, ".state")
		if _, err := os.Stat(base + ".exit"); err == nil {
			continue // ended
		}
		if !strings.HasPrefix(filepath.Base(s), "p."+host+".") || TestRemote() {
			if b, err := os.ReadFile(base + ".sync"); err == nil && len(b) >= 24 && le.Uint64(b[8:]) != 0 {
				out[base] = Sched{State: byte(le.Uint64(b[8:])), Ran: le.Uint64(b[16:])}
			}
			continue
		}
		pid, err := strconv.Atoi(base[strings.LastIndex(base, ".")+1:])
		if err != nil {
			continue
		}
		if sc, ok := ProcSched(pid); ok {
			out[base] = sc
		}
	}
	return out
}

// ProcSched reads one process of this host from /proc.
func ProcSched(pid int) (Sched, bool) { return readSched("/proc/" + strconv.Itoa(pid)) }

// readSched reads the state and run time of a process or thread from its
// /proc directory (/proc/PID, /proc/PID/task/TID).
func readSched(dir string) (Sched, bool) {
	b, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return Sched{}, false
	}
	// The command name may hold spaces and parentheses: the fields start
	// after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return Sched{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 || len(f[0]) != 1 {
		return Sched{}, false
	}
	utime, _ := strconv.ParseUint(f[11], 10, 64)
	stime, _ := strconv.ParseUint(f[12], 10, 64)
	// USER_HZ is 100 on every Linux architecture that exports it.
	sc := Sched{State: f[0][0], Ran: (utime + stime) * 10_000_000}
	if b, err := os.ReadFile(dir + "/schedstat"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			ns, _ := strconv.ParseUint(f[0], 10, 64)
			sc.Ran += ns
		}
	}
	return sc, true
}

// Held returns the processes of now (keys of ReadSched) that give no
// evidence of waiting in MPI since the sample before was taken: stopped,
// or neither sleeping in the kernel nor having had a CPU in between
// (descheduled on a loaded host), or exited and not yet accounted for. MPI
// libraries that wait for a message either poll (and use CPU time) or
// sleep (state S); a process that did neither may have been about to
// return. Sorted.
func Held(before, now map[string]Sched) []string {
	var held []string
	for k, n := range now {
		b, ok := before[k]
		switch {
		case n.Stopped(), n.State == 'Z', n.State == 'X':
		case n.State == 'S', n.State == 'D':
			continue
		case ok && n.Ran > b.Ran:
			continue
		}
		held = append(held, k)
	}
	sort.Strings(held)
	return held
}

// MarkSuspended sets Process.Suspended on every rank of the run that has not
// ended and whose process is held (Held) or could not be read in now.
func (r *Run) MarkSuspended(before, now map[string]Sched) {
	held := map[string]bool{}
	for _, k := range Held(before, now) {
		held[k] = true
	}
	for _, p := range r.Procs {
		if p.Exit != nil || !strings.HasSuffix(p.File, ".log") {
			continue
		}
		k := strings.TrimSuffix(p.File, ".log")
		_, known := now[k]
		p.Suspended = held[k] || !known
	}
}
