// Package launch runs an MPI program under mpivet, once: it finds the
// program's MPI, builds the layer for it, starts the program with that
// MPI's launcher (or the user's) with every rank under a supervisor and the
// settings the caller wrote in the run directory (package driver's
// layer.conf), stops it at its time limit or when it stalls for good, makes
// sure no process of the run survives, and reads the records. What to run
// and how often is package driver's.
//
// The files: launch.go prepares a Session (the MPI, the layer, the
// launcher's command and environment) and runs it (Result); stall.go
// decides when a run that stopped making progress can never resume;
// startup.go the start-up settings of mpivet's own runs that skip work the
// MPI repeats identically in every replay; scratch.go gives each run of
// Open MPI a directory of its own for that MPI's job files, removed
// whichever way the run ended.
package launch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"mpivet/layer"
	"mpivet/mpi"
	"mpivet/rundir"
	"mpivet/trace"
)

// Options say what to run and how.
type Options struct {
	// Context, when done, stops what Prepare does (the layer's build).
	Context  context.Context
	NP       int
	Program  string
	Args     []string
	Launcher string        // a launcher command line replacing the MPI's own, e.g. "srun --mpi=pmix"
	Timeout  time.Duration // 0: no limit
	Stdin    io.Reader     // program input, forwarded by the launcher to rank 0 (default: none)
	// Stalled is asked, when no rank has completed an MPI call for
	// StallAfter (default 1s), whether the run can ever resume; if it says
	// no, the run is stopped as deadlocked. Asked again only after progress.
	Env []string // more environment for the program's ranks (NAME=value)
	// LogMax bounds the log of each rank, in bytes (0: the layer's own
	// bound): a rank that reaches it records no more, and its log says so
	// (trace.Process.Overflow).
	LogMax     uint64
	MPI        string // "openmpi" or "mpich": the MPI a program loads at run time, when it cannot be told ("": from the program)
	Stalled    func(*trace.Run) bool
	StallAfter time.Duration
	Notify     func(string) // progress messages for the user (default: none)
	Stdout     io.Writer    // program output (default os.Stdout)
	Stderr     io.Writer    // program errors (default os.Stderr)
}

// Session is a program ready to run: its MPI found and the layer built.
type Session struct {
	Opts    Options
	Program string // absolute path
	MPI     *mpi.Install
	Layer   *layer.Built
	// Startup is the environment that makes the MPI's start-up cheaper
	// in runs on this host without changing what it does (startup.go).
	Startup []string
}

// Prepare checks the program and builds the layer.
func Prepare(o Options) (*Session, error) {
	if o.NP < 1 {
		return nil, &mpi.Error{Msg: fmt.Sprintf("-n %d: the number of ranks must be at least 1", o.NP)}
	}
	prog := o.Program
	if !strings.Contains(prog, "/") {
		if p, err := exec.LookPath(prog); err == nil {
			prog = p
		}
	}
	abs, err := filepath.Abs(prog)
	if err != nil {
		return nil, err
	}
	inst, err := mpi.Find(abs, o.MPI)
	if err != nil {
		return nil, err
	}
	ctx := o.Context
	if ctx == nil {
		ctx = context.Background()
	}
	b, err := layer.BuildContext(ctx, inst.CC, inst.Lib+"\n"+inst.Version+"\n"+inst.Show, o.Notify)
	if err != nil {
		return nil, err
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	sess := &Session{Opts: o, Program: abs, MPI: inst, Layer: b}
	if o.Launcher == "" && SlurmStep(inst.Impl) == "" {
		sess.Startup = startupEnv(inst)
	}
	return sess, nil
}

// Result is one finished run.
type Result struct {
	Dir          string
	Run          *trace.Run
	TimedOut     bool
	Deadlocked   bool // stopped because Stalled said the run cannot resume
	AbortStuck   bool // stopped because a rank's MPI_Abort did not end the job
	Failed       bool // stopped soon after a rank crashed or exited non-zero, without waiting for the launcher's teardown
	Interrupted  bool
	LauncherExit int // the launcher's exit status (-1: killed)
	// OOMKills: how many processes the kernel's OOM killer ended on this
	// host during the run (0 also when the kernel does not say).
	OOMKills int64
	Output   string // the last part of what the launcher printed on stderr
	Elapsed  time.Duration
	// When the launcher was started, when it was seen to exit (or the run
	// was stopped), and when the records had been read: for measuring
	// where a run's time goes (driver's MPIVET_TIMING).
	Started, Exited, Read time.Time
}

// Launcher returns the launcher and its arguments, up to the program:
// the user's, or inside a Slurm allocation a job step (SlurmStep), or the
// MPI's own.
func (s *Session) Launcher() []string {
	if s.Opts.Launcher != "" {
		return append(strings.Fields(s.Opts.Launcher), "-n", strconv.Itoa(s.Opts.NP))
	}
	if step := SlurmStep(s.MPI.Impl); step != "" {
		return append(strings.Fields(step), "-n", strconv.Itoa(s.Opts.NP))
	}
	cmd := []string{s.MPI.Launcher, "-n", strconv.Itoa(s.Opts.NP)}
	if s.MPI.Impl == mpi.OpenMPI {
		cmd = append(cmd, "--oversubscribe")
	}
	return cmd
}

// SlurmStep is the launcher of a job step inside the Slurm allocation
// mpivet runs in (SLURM_JOB_ID set, srun on PATH), "" outside one: srun
// --exact, so that steps run side by side on the allocation's free cores,
// with the PMI the MPI's ranks need (Open MPI 4: PMIx; MPICH 4: PMI-2,
// since with another every rank starts as a rank 0 of its own).
func SlurmStep(impl mpi.Impl) string {
	if os.Getenv("SLURM_JOB_ID") == "" {
		return ""
	}
	if _, err := exec.LookPath("srun"); err != nil {
		return ""
	}
	pmi := "pmix"
	if impl == mpi.MPICH {
		pmi = "pmi2"
	}
	return "srun --exact --mpi=" + pmi
}

// Env returns the launcher's environment.
func (s *Session) Env() []string {
	env := os.Environ()
	if os.Geteuid() == 0 && s.MPI.Impl == mpi.OpenMPI {
		env = append(env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	}
	env = append(env, s.Startup...)
	if s.Opts.LogMax > 0 {
		env = append(env, "MPIVET_LOG_MAX="+strconv.FormatUint(s.Opts.LogMax, 10))
	}
	return append(env, s.Opts.Env...)
}

// Command returns the command line that runs the program under mpivet with
// its records in dir: every rank starts as a supervisor of the program.
func (s *Session) Command(dir string) []string {
	cmd := append(s.Launcher(), s.Layer.Supervisor, dir, s.Layer.Library, s.Program)
	return append(cmd, s.Opts.Args...)
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// Run runs the program once with its records in dir (created if needed),
// with the ranks' settings the caller wrote in dir/layer.conf
// (driver.WriteLayerConf; none: the layer's defaults). Cancelling ctx
// stops the run like a timeout, but marks it interrupted.
func (s *Session) Run(ctx context.Context, dir string) (*Result, error) {
	if err := rundir.Mkdir(dir); err != nil {
		return nil, fmt.Errorf("cannot create the run directory: %v", err)
	}
	dir, _ = filepath.Abs(dir)
	// Records of an earlier run in the same directory would be read as
	// this run's ranks.
	RemoveRecords(dir)
	args := s.Command(dir)
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = s.Env()
	scratch, vars := s.scratch(cmd.Env)
	cmd.Env = append(cmd.Env, vars...)
	// Every process the launcher starts inherits it: the ranks, and those
	// the MPI starts for MPI_Comm_spawn, which run without the layer and
	// which no record names (killStrays).
	cmd.Env = append(cmd.Env, launchedVar+"="+dir)
	if scratch != "" {
		defer os.RemoveAll(scratch)
	}
	// The launcher gets its own process group, so the whole run can be
	// stopped at once, and dies if mpivet dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Stdin = s.Opts.Stdin
	outs, err := s.outputs(cmd, dir)
	if err != nil {
		return nil, err
	}
	defer outs.file.Close()

	start, ooms := time.Now(), oomKills()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start the launcher %s: %v", args[0], err)
	}
	active.Store(cmd.Process.Pid, [2]string{dir, scratch})
	defer active.Delete(cmd.Process.Pid)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()

	res := &Result{Dir: dir, Started: start}
	watch := newStallWatch(dir, s.Opts)
	waitErr := s.wait(ctx, dir, res, watch, done)
	waitErr = end(cmd.Process.Pid, dir, res, watch, done, waitErr)
	res.Exited = time.Now()
	res.Elapsed = res.Exited.Sub(start)
	res.LauncherExit = exitCode(waitErr)
	if after := oomKills(); ooms >= 0 && after > ooms {
		res.OOMKills = after - ooms
	}
	killStrays(dir)
	stopped := res.TimedOut || res.Interrupted || res.Deadlocked || res.AbortStuck || res.Failed
	if !stopped {
		waitForExits(dir, 2*time.Second)
	}
	res.Output = outs.tail.String()
	// A record the layer or a supervisor could not write, or the
	// launcher's output: the run is not the program's to answer for.
	if err := outs.err(); err != nil {
		return res, err
	}
	run, err := readRun(dir, res, stopped)
	if err != nil {
		return nil, err
	}
	if we := logWriteError(dir, run); we != nil {
		return res, we
	}
	// A run mpivet stopped keeps its snapshot, exit records included: the
	// ranks it killed did not end by themselves.
	trimLogs(res.Run)
	if len(run.Procs) == 0 && !res.TimedOut && !res.Interrupted {
		return res, &mpi.Error{Msg: fmt.Sprintf("the launcher (%s) started no rank (exit status %d):\n%s",
			strings.Join(args[:min(len(args), 4)], " "), res.LauncherExit, lastLines(res.Output, 20))}
	}
	return res, nil
}

// readRun reads the records of the run in dir. A run mpivet stopped keeps
// its snapshot (end), read within a bound: reading it again whole could
// take minutes.
func readRun(dir string, res *Result, stopped bool) (*trace.Run, error) {
	if res.Run == nil {
		var until time.Time
		if stopped {
			until = time.Now().Add(readBound(res.Interrupted))
		}
		run, err := trace.ReadRunUntil(dir, func() bool { return !until.IsZero() && time.Now().After(until) })
		if err != nil {
			return nil, err
		}
		res.Run = run
	}
	res.Read = time.Now()
	return res.Run, nil
}

// wait waits until the launcher exits (its status is returned), or the
// run must be stopped: a rank failed, the time limit, ctx cancelled, or a
// stall that cannot resume. It says which in res.
func (s *Session) wait(ctx context.Context, dir string, res *Result, watch *stallWatch, done <-chan error) error {
	var timer <-chan time.Time
	if s.Opts.Timeout > 0 {
		t := time.NewTimer(s.Opts.Timeout)
		defer t.Stop()
		timer = t.C
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	// A rank that crashed or exited non-zero ends the job, but launchers
	// take their time to tear it down (Open MPI's mpirun a second or more).
	// Its supervisor wrote how it ended at once: the run is over then, and
	// mpivet ends it after failureGrace, which lets the MPI's own words
	// about it arrive.
	exitTick := time.NewTicker(failurePoll)
	defer exitTick.Stop()
	var failedAt time.Time
	for {
		select {
		case err := <-done:
			return err
		case <-exitTick.C:
			if failedAt.IsZero() {
				if rankFailed(dir) {
					failedAt = time.Now()
				}
			} else if time.Since(failedAt) >= failureGrace {
				res.Failed = true
				return nil
			}
		case <-timer:
			res.TimedOut = true
			return nil
		case <-ctx.Done():
			res.Interrupted = true
			return nil
		case <-tick.C:
			switch outcome, run := watch.tick(); outcome {
			case stallDeadlocked:
				res.Deadlocked, res.Run = true, run
				return nil
			case stallAbortStuck:
				res.AbortStuck = true
				return nil
			}
		}
	}
}

// end ends a run that wait stopped (res says why) and returns the
// launcher's exit status: at once when nothing of it can be saved; a
// timed-out or interrupted run only after reading what every rank is
// doing. A run whose launcher exited keeps waitErr.
func end(pid int, dir string, res *Result, watch *stallWatch, done <-chan error, waitErr error) error {
	if res.Failed {
		// The ranks too: launchers whose daemons live in sessions of their
		// own (Hydra's proxies) hold the output pipes until they notice.
		syscall.Kill(-pid, syscall.SIGKILL)
		killStrays(dir)
	}
	if res.Deadlocked || res.AbortStuck || res.Failed {
		// Nothing of a deadlocked run can be saved: end it at once.
		waitErr = kill(pid, done)
	}
	if res.TimedOut || res.Interrupted {
		// Read what every rank is doing before stopping anything, within
		// a bound: the records of a long run can take minutes to read
		// (readBound).
		until := time.Now().Add(readBound(res.Interrupted))
		if run, err := trace.ReadRunUntil(dir, func() bool { return time.Now().After(until) }); err == nil {
			watch.mark(run)
			res.Run = run
		}
		if res.Interrupted {
			// A user waits for the report: the whole run ends at once,
			// without the launcher's own teardown (stop's grace period).
			syscall.Kill(-pid, syscall.SIGKILL)
			killStrays(dir)
			return kill(pid, done)
		}
		waitErr = stop(pid, done)
	}
	return waitErr
}

// readBound is how long reading the records of a run that was interrupted
// (a user waits for the report: half a second, counted from the moment
// the interrupt reached mpivet) or reached its time limit (5 s) may take;
// what is past it is not read (Process.Cut).
func readBound(interrupted bool) time.Duration {
	if interrupted {
		return 500 * time.Millisecond
	}
	return 5 * time.Second
}

// recordFiles are the patterns of the files of a run's ranks.
var recordFiles = []string{"p.*.log", "p.*.state", "p.*.err", "p.*.exit", "p.*.sync", "p.*.inbox", "p.*.time"}

// RemoveRecords deletes the records of the ranks of a run in dir (not
// what the driver wrote there: its settings and decisions).
func RemoveRecords(dir string) {
	for _, pat := range recordFiles {
		old, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, f := range old {
			os.Remove(f)
		}
	}
}

// active holds the runs in progress, launcher pid -> run directory and
// scratch directory (scratch.go), for KillAll.
var active sync.Map

// KillAll ends every run in progress at once, launcher, supervisors and
// ranks, for a user who wants mpivet to quit now (a second Ctrl-C): no
// grace period, no records read.
func KillAll() {
	active.Range(func(k, v any) bool {
		syscall.Kill(-k.(int), syscall.SIGKILL)
		run := v.([2]string)
		killStrays(run[0])
		if run[1] != "" {
			os.RemoveAll(run[1])
		}
		return true
	})
}

// stop ends the launcher's process group: TERM first (launchers then stop
// their ranks), KILL after a grace period.
func stop(pid int, done <-chan error) error {
	syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case err := <-done:
		syscall.Kill(-pid, syscall.SIGKILL)
		return err
	case <-time.After(3 * time.Second):
	}
	return kill(pid, done)
}

// kill ends the launcher's process group at once.
func kill(pid int, done <-chan error) error {
	syscall.Kill(-pid, syscall.SIGKILL)
	select {
	case err := <-done:
		return err
	case <-time.After(5 * time.Second):
		return errors.New("launcher did not exit")
	}
}

// launchedVar marks the environment of every process of a run, with its
// run directory.
const launchedVar = "MPIVET_LAUNCHED"

// killStrays kills any process of this run that is still alive on this
// host, other than mpivet: ranks whose launcher lost track of them
// (MPIVET_DIR in their environment), and every process the launcher
// started, the ones the MPI spawned for the program (MPI_Comm_spawn)
// included, which have no record and live in process groups of the MPI's
// own (launchedVar). Processes are recognised by their environment, so a
// recycled pid is never hit; those of other users cannot be read, and are
// not of the run.
func killStrays(dir string) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	marks := [][]byte{[]byte(launchedVar + "=" + dir + "\x00"), []byte("MPIVET_DIR=" + dir + "\x00")}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			continue
		}
		for _, m := range marks {
			if bytes.HasPrefix(env, m) || bytes.Contains(env, append([]byte{0}, m...)) {
				syscall.Kill(pid, syscall.SIGKILL)
				break
			}
		}
	}
}

const (
	failurePoll  = 50 * time.Millisecond
	failureGrace = 250 * time.Millisecond
)

// rankFailed reports whether a supervisor recorded that its rank was killed
// by a signal other than the ones launchers end jobs with, or exited with a
// non-zero status.
func rankFailed(dir string) bool {
	exits, _ := filepath.Glob(filepath.Join(dir, "p.*.exit"))
	for _, f := range exits {
		x, err := trace.ReadExit(f)
		if err != nil {
			continue
		}
		switch {
		case x.ExecError != "" || (x.Exited && x.Code != 0):
			return true
		case x.Signal != 0 && x.Signal != x.Forwarded:
			switch syscall.Signal(x.Signal) {
			case syscall.SIGTERM, syscall.SIGKILL, syscall.SIGINT, syscall.SIGHUP, syscall.SIGPIPE:
			default:
				return true
			}
		}
	}
	return false
}

// alive reports whether process pid exists and has not ended: a zombie has
// (an orphan whose new parent does not reap it stays one).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the name may hold anything
	return i < 0 || i+2 >= len(s) || (s[i+2] != 'Z' && s[i+2] != 'X')
}

// waitForExits gives supervisors a moment to write the exit records of
// ranks that ended as the launcher went away. A rank of this host whose
// process has ended is not waited for: its supervisor wrote its record right
// after reaping it, or was killed with it and never will.
func waitForExits(dir string, max time.Duration) {
	host, _ := os.Hostname()
	deadline := time.Now().Add(max)
	for {
		logs, _ := filepath.Glob(filepath.Join(dir, "p.*.log"))
		pending, gone := 0, 0
		for _, l := range logs {
			base := strings.TrimSuffix(l, ".log")
			if _, err := os.Stat(base + ".exit"); err == nil {
				continue
			}
			if name := filepath.Base(base); strings.HasPrefix(name, "p."+host+".") {
				if pid, err := strconv.Atoi(name[strings.LastIndex(name, ".")+1:]); err == nil && !alive(pid) {
					gone++
					continue
				}
			}
			pending++
		}
		if pending == 0 || !time.Now().Before(deadline) {
			if gone > 0 {
				time.Sleep(20 * time.Millisecond) // a supervisor that reaped one may be writing
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// trimLogs cuts the sparse log files down to their records. A log whose
// reading was cut (Process.Cut) is kept whole: its records go on past
// where the reading stopped, and cutting a GiB off a file takes seconds.
func trimLogs(run *trace.Run) {
	for _, p := range run.Procs {
		if p.End > 0 && !p.Cut && strings.HasSuffix(p.File, ".log") {
			os.Truncate(p.File, p.End)
		}
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
