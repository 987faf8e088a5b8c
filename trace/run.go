package trace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
)

// Run is everything recorded in one run directory.
type Run struct {
	Dir   string
	Procs []*Process  // sorted by rank (processes without a rank last)
	stop  func() bool // StopWhen
}

// Rank returns the process of a world rank, or nil.
func (r *Run) Rank(rank int) *Process {
	for _, p := range r.Procs {
		if p.Rank == rank {
			return p
		}
	}
	return nil
}

// ReadRun reads all logs and exit records of a run directory.
func ReadRun(dir string) (*Run, error) { return ReadRunUntil(dir, nil) }

// ReadRunUntil is ReadRun whose reading of the logs ends where it is once
// stop returns true (asked every MiB of log): for a run stopped by an
// interrupt or its time limit, whose records may be huge. A log cut so
// reads as one that reached its size bound (Process.Cut, Overflow).
func ReadRunUntil(dir string, stop func() bool) (*Run, error) {
	// The exit records first: a rank that had ended before its log is read
	// has its log whole, which its exit record checks (checkLog); one that
	// ends while the logs are read is read as still running.
	exits, ended, err := readExits(dir)
	if err != nil {
		return nil, err
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "p.*.log"))
	r := &Run{Dir: dir}
	byName := map[string]*Process{}
	// The logs are decoded in parallel, as many at a time as there are
	// processors: after a run, the user waits for this.
	procs, errs := make([]*Process, len(logs)), make([]error, len(logs))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, l := range logs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			p, err := readLog(l, stop)
			if errors.Is(err, ErrNotLog) {
				// Killed while its layer was starting: a process with no records.
				p, err = Decode(l, []byte("MPIVET01"))
				p.notLog = true
			}
			procs[i], errs[i] = p, err
		}()
	}
	wg.Wait()
	for i, l := range logs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		r.Procs = append(r.Procs, procs[i])
		byName[strings.TrimSuffix(filepath.Base(l), ".log")] = procs[i]
	}
	for _, p := range r.Procs {
		base := strings.TrimSuffix(p.File, ".log")
		p.readState(base + ".state")
		if b, err := os.ReadFile(base + ".err"); err == nil {
			p.Stderr = string(b)
		}
	}
	for i, e := range exits {
		x := ended[i]
		name := strings.TrimSuffix(filepath.Base(e), ".exit")
		if p := byName[name]; p != nil {
			p.Exit = x
			if err := p.checkLog(); err != nil {
				return nil, err
			}
		} else if x.LogEnd != nil {
			return nil, &DamageError{strings.TrimSuffix(e, ".exit") + ".log", fmt.Sprintf("it is missing, but the rank's exit record says it held %d bytes of records", *x.LogEnd)}
		} else {
			// The process left no log: it never got the layer loaded
			// (exec failed, or not a dynamically linked program).
			r.Procs = append(r.Procs, &Process{File: e, Host: x.Host, Pid: x.Pid, Rank: -1, Size: -1, Level: -1, Exit: x})
		}
	}
	sort.SliceStable(r.Procs, func(i, j int) bool {
		a, b := r.Procs[i], r.Procs[j]
		if (a.Rank < 0) != (b.Rank < 0) {
			return a.Rank >= 0
		}
		if a.Rank != b.Rank {
			return a.Rank < b.Rank
		}
		return a.Pid < b.Pid
	})
	return r, nil
}

// readExits reads the exit records of a run directory: their paths and
// what they say.
func readExits(dir string) ([]string, []*Exit, error) {
	exits, _ := filepath.Glob(filepath.Join(dir, "p.*.exit"))
	ended := make([]*Exit, len(exits))
	for i, e := range exits {
		x, err := ReadExit(e)
		if err != nil {
			return nil, nil, err
		}
		ended[i] = x
	}
	return exits, ended, nil
}
