package driver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"mpivet/explore"
	"mpivet/launch"
	"mpivet/mpi"
)

// Replays in parallel (--jobs). The search stays the sequential one
// (explore.Parallel): it numbers and checks each replay in depth-first
// order, so the report is the one a sequential search gives. Only the
// programs of the replays it has planned run ahead, each in a directory of
// its own (aheadDir) renamed interleaving-N when the search reaches it and
// gives it its number; their ranks see no MPIVET_INTERLEAVING, since that
// number is not known when they start.

// maxAutoJobs caps the default of --jobs: more replays at once than this
// rarely pays on one machine, whatever its cores.
const maxAutoJobs = 8

// jobs is the number of replays to run at once: --jobs, or by default as
// many as the cores give each replay's ranks one core each (at least one),
// times ranksPerCore; inside a Slurm allocation whose job steps run the
// replays, as many as its tasks give (SLURM_NTASKS).
func jobs(o Options, sess *launch.Session) int {
	if o.Jobs > 0 {
		return o.Jobs
	}
	if o.ReplayHook != "" {
		return 1
	}
	if o.Launcher == "" && launch.SlurmStep(sess.MPI.Impl) != "" {
		if tasks, err := strconv.Atoi(os.Getenv("SLURM_NTASKS")); err == nil {
			return min(maxSlurmJobs, max(1, tasks/max(1, o.NP)))
		}
	}
	return min(maxAutoJobs, max(1, ranksPerCore(sess)*runtime.NumCPU()/max(1, o.NP)))
}

// ranksPerCore is how many ranks of replays at once the default of --jobs
// gives each core. A replay's ranks mostly wait, for the launcher and in
// MPI_Init and MPI_Finalize: under Open MPI they wait asleep (it yields
// when oversubscribed): a replay of 4 ranks kept about half a core busy
// here, and two at once on 2 cores explored 1.2 to 1.5 times as fast as
// one (docs/performance.md, "Replays in parallel"), so Open MPI's replays get 4 ranks
// a core. MPICH's ranks poll while they wait, using their core: one.
func ranksPerCore(sess *launch.Session) int {
	if sess.MPI != nil && sess.MPI.Impl == mpi.OpenMPI {
		return 4
	}
	return 1
}

// maxSlurmJobs caps the default of --jobs in an allocation: the search
// checks replays one at a time, and keeps 2 x jobs runs in memory.
const maxSlurmJobs = 64

// ahead is a replay run ahead of its turn: where, and how it ended.
type ahead struct {
	dir     string
	res     *launch.Result
	timeout time.Duration
	err     error
}

// aheadDir names the directory of the k-th replay run ahead.
func aheadDir(dir string, k int64) string {
	return filepath.Join(dir, fmt.Sprintf("ahead-%d", k))
}

// parallel returns how the search runs replays ahead, nil for one at a
// time.
func (x *exploration) parallel() *explore.Parallel {
	n := x.jobs()
	if n <= 1 {
		return nil
	}
	var seq atomic.Int64
	return &explore.Parallel{Jobs: n, Context: x.ctx,
		Launch: func(ctx context.Context, ds []explore.Decision, b *explore.Branch) any {
			d := aheadDir(x.dir, seq.Add(1))
			res, timeout, err := x.launch(ctx, -1, d, ds, b)
			return &ahead{dir: d, res: res, timeout: timeout, err: err}
		},
		Finish: x.finishAhead,
		Discard: func(launched any) {
			os.RemoveAll(launched.(*ahead).dir)
		},
	}
}

// finishAhead numbers a replay run ahead n, now that the search reaches
// it: its directory becomes interleaving-n, and it is checked as once
// checks a replay.
func (x *exploration) finishAhead(n int, ds []explore.Decision, b *explore.Branch, launched any) (*explore.Interleaving, error) {
	a := launched.(*ahead)
	if why := x.why(); why != "" {
		os.RemoveAll(a.dir)
		return &explore.Interleaving{N: n, Decisions: ds, Branch: b, Stopped: why}, nil
	}
	if a.err != nil {
		return nil, a.err
	}
	d := interleavingDir(x.dir, n)
	os.RemoveAll(d) // of an earlier verification in the same --dir
	if err := os.Rename(a.dir, d); err != nil {
		return nil, fmt.Errorf("cannot rename %s: %v", a.dir, err)
	}
	relocate(a.res, a.dir, d)
	// layer.conf names the files of the directory: rewritten with their
	// new paths, so that what the directory says of the replay is true.
	abs, err := filepath.Abs(d)
	if err != nil {
		return nil, err
	}
	var files RunFiles
	if ds != nil {
		files.Decisions = filepath.Join(abs, decisionsFile)
	}
	if b != nil {
		files.Expect = filepath.Join(abs, expectFile)
	}
	sess := *x.sess
	sess.Opts.Timeout = a.timeout
	if err := WriteLayerConf(abs, &sess, x.layerOptions(n), files); err != nil {
		return nil, err
	}
	return x.finish(n, d, ds, b, a.res, a.timeout)
}

// relocate makes a run read from directory from say where its records are
// now, in to.
func relocate(res *launch.Result, from, to string) {
	fromAbs, _ := filepath.Abs(from)
	toAbs, _ := filepath.Abs(to)
	move := func(p string) string {
		switch {
		case p == from || p == fromAbs:
			return toAbs
		case strings.HasPrefix(p, fromAbs+"/"):
			return toAbs + p[len(fromAbs):]
		case strings.HasPrefix(p, from+"/"):
			return to + p[len(from):]
		}
		return p
	}
	res.Dir = move(res.Dir)
	if res.Run == nil {
		return
	}
	res.Run.Dir = move(res.Run.Dir)
	for _, p := range res.Run.Procs {
		p.File = move(p.File)
	}
}
