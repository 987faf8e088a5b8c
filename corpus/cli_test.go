package corpus

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func mpivet(t *testing.T, args ...string) (string, int) {
	t.Helper()
	out, err := exec.Command(mpivetBin, args...).CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// Bad input gets a clear message and exit status 2, never a panic.
func TestBadInput(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	script := filepath.Join(dir, "script.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho hi\n"), 0o755)
	plain := filepath.Join(dir, "plain")
	src := filepath.Join(dir, "plain.c")
	os.WriteFile(src, []byte("int main(void){return 0;}\n"), 0o644)
	if out, err := exec.Command("cc", "-o", plain, src).CombinedOutput(); err != nil {
		t.Skipf("no C compiler: %v %s", err, out)
	}
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"run", "-n", "2", filepath.Join(dir, "missing")}, "no such file"},
		{[]string{"run", "-n", "2", plain}, "not an MPI program"},
		{[]string{"run", "-n", "2", script}, "not an executable program"},
		{[]string{"run", "-n", "2", "--mpi", "lam", plain}, "must be openmpi or mpich"},
		{[]string{"run", "-n", "2", "/usr/bin/python3", "-c", "pass"}, "--mpi"}, // unless mpi4py is installed: skipped below
		{[]string{"run", "-n", "2", dir}, "not an executable file"},
		{[]string{"run", "-n", "0", plain}, "at least 1"},
		{[]string{"run", plain}, "np"},
		{[]string{"explain", "no-such-check"}, "no kind of finding"},
	} {
		if tc.msg == "--mpi" && exec.Command("/usr/bin/python3", "-c", "import mpi4py").Run() == nil {
			continue // a Python without mpi4py is what this case needs
		}
		out, code := mpivet(t, tc.args...)
		if code != 2 || !strings.Contains(out, tc.msg) || strings.Contains(out, "panic") || strings.Contains(out, "goroutine") {
			t.Errorf("mpivet %v: exit %d, output:\n%s", tc.args, code, out)
		}
	}
}

// underEachMPI compiles a corpus program under every MPI installed and
// calls f with the binary and a fresh run directory.
func underEachMPI(t *testing.T, program string, f func(t *testing.T, bin, dir string)) {
	for _, m := range available(t) {
		t.Run(m.name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), strings.TrimSuffix(program, filepath.Ext(program)))
			compile(t, m, filepath.Join("..", "testdata", "programs", program), bin)
			f(t, bin, filepath.Join(t.TempDir(), "run"))
		})
	}
}

// A run stopped at its time limit leaves no process behind.
func TestTimeoutLeavesNoProcess(t *testing.T) {
	parallel(t)
	underEachMPI(t, "spin_timeout.c", func(t *testing.T, bin, dir string) {
		start := time.Now()
		out, code := mpivet(t, "run", "-n", "3", "--timeout", "3s", "--dir", dir, bin)
		if code != 1 || !strings.Contains(out, "did not finish within 3s") {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		t.Logf("a 3s timeout took %v", time.Since(start)) // (no bound: a loaded machine starts ranks slowly)
		abs, _ := filepath.Abs(dir)
		if pids := processesOf(abs); len(pids) > 0 {
			t.Errorf("processes of the run still alive: %v", pids)
		}
	})
}

// processesOf lists live processes whose environment names the run directory.
func processesOf(dir string) []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && strings.Contains(string(env), "MPIVET_DIR="+dir+"\x00") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// --launcher replaces the MPI's own launcher; mpivet appends -n N.
func TestLauncherOption(t *testing.T) {
	parallel(t)
	impls := available(t)
	var m mpiImpl
	for _, x := range impls {
		if x.name == "openmpi" {
			m = x
		}
	}
	if m.name == "" {
		t.Skip("needs Open MPI")
	}
	bin := filepath.Join(t.TempDir(), "ring")
	compile(t, m, filepath.Join("..", "testdata", "programs", "ring_sendrecv.c"), bin)
	out, code := mpivet(t, "run", "-n", "3", "--launcher", "mpirun.openmpi --oversubscribe", "--dir", filepath.Join(t.TempDir(), "run"), bin)
	if code != 0 || !strings.Contains(out, "3 ranks") || !strings.Contains(out, "verdict: ok") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	out, code = mpivet(t, "run", "-n", "2", "--launcher", "no-such-launcher-xyz", bin)
	if code != 2 || !strings.Contains(out, "no-such-launcher-xyz") {
		t.Fatalf("missing launcher: exit %d:\n%s", code, out)
	}
}

// A program whose MPI library is not installed gets a message naming it.
func TestMPINotInstalled(t *testing.T) {
	parallel(t)
	dir := t.TempDir()
	lib := filepath.Join(dir, "libmpich.so.99")
	libsrc := filepath.Join(dir, "fake.c")
	os.WriteFile(libsrc, []byte("int MPI_Init(int *c, char ***v) { return 0; }\n"), 0o644)
	if out, err := exec.Command("cc", "-shared", "-fPIC", "-Wl,-soname,libmpich.so.99", "-o", lib, libsrc).CombinedOutput(); err != nil {
		t.Skipf("no C compiler: %v %s", err, out)
	}
	src := filepath.Join(dir, "app.c")
	os.WriteFile(src, []byte("int MPI_Init(int *, char ***);\nint main(int c, char **v) { return MPI_Init(&c, &v); }\n"), 0o644)
	app := filepath.Join(dir, "app")
	if out, err := exec.Command("cc", "-o", app, src, lib).CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	os.Remove(lib) // as if MPICH had been uninstalled
	out, code := mpivet(t, "run", "-n", "2", app)
	if code != 2 || !strings.Contains(out, "libmpich.so.99") || !strings.Contains(out, "not installed") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

// Interrupted mid-exploration, mpivet stops the ranks and still writes the
// text and JSON reports of what it covered, with the incomplete verdict and
// its own exit status; while it explores without a terminal, it prints
// plain progress lines. A second interrupt quits at once. Neither leaves a
// process behind.
func TestInterruptReports(t *testing.T) {
	parallel(t)
	underEachMPI(t, "wildcard_master_worker.c", func(t *testing.T, bin, dir string) {
		for _, jobs := range []string{"1", "2"} {
			interrupt(t, bin, dir+"-jobs"+jobs, jobs)
		}
	})
}

// interrupt checks TestInterruptReports with replays jobs at once.
func interrupt(t *testing.T, bin, dir, jobs string) {
	js := filepath.Join(t.TempDir(), "r.json")
	cmd := exec.Command(mpivetBin, "run", "-n", "3", "--jobs", jobs, "--no-color", "--json", js, "--dir", dir, bin, "7")
	var out strings.Builder
	errs := &lineWatch{want: "mpivet: exploring: ", seen: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &out, errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-errs.seen:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("no progress line on stderr:\n%s", errs.String())
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	if code != 3 {
		t.Fatalf("--jobs %s: exit %d (%v), want 3:\n%s\n%s", jobs, code, err, out.String(), errs.String())
	}
	data, _ := os.ReadFile(js)
	var r struct {
		Verdict  string
		Complete bool
		Stopped  string
		Coverage struct{ Done, Queued int }
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("JSON report: %v: %s", err, data)
	}
	if r.Verdict != "incomplete" || r.Complete || r.Stopped != "interrupted (SIGINT)" || r.Coverage.Done < 1 || r.Coverage.Queued < 1 {
		t.Errorf("--jobs %s: report: %+v", jobs, r)
	}
	if !strings.Contains(out.String(), "verdict: incomplete") || !strings.Contains(out.String(), "more known but not run") {
		t.Errorf("text report:\n%s", out.String())
	}
	abs, _ := filepath.Abs(dir)
	if pids := processesOf(abs); len(pids) > 0 {
		t.Errorf("processes of the run still alive: %v", pids)
	}
	if ahead, _ := filepath.Glob(filepath.Join(dir, "ahead-*")); len(ahead) > 0 {
		t.Errorf("--jobs %s: replays run ahead left behind: %v", jobs, ahead)
	}

	// Twice: at once, no report.
	dir2 := filepath.Join(t.TempDir(), "run2")
	cmd = exec.Command(mpivetBin, "run", "-n", "3", "--jobs", jobs, "--no-color", "--dir", dir2, bin, "7")
	errs = &lineWatch{want: "mpivet: exploring: ", seen: make(chan struct{})}
	out.Reset()
	cmd.Stdout, cmd.Stderr = &out, errs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-errs.seen:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("no progress line on stderr:\n%s", errs.String())
	}
	// Two different signals (two of one kind may merge into one), sent
	// while mpivet is stopped so that they arrive together: sent one
	// after the other to a running mpivet on a loaded machine, the
	// test may be descheduled between them for longer than mpivet
	// takes to stop the ranks and print the report the first asks for.
	cmd.Process.Signal(syscall.SIGSTOP)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Process.Signal(syscall.SIGCONT)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 || strings.Contains(out.String(), "verdict") {
		t.Errorf("second interrupt: exit %d, want 130 and no report:\n%s", code, out.String())
	}
	abs, _ = filepath.Abs(dir2)
	time.Sleep(500 * time.Millisecond) // pdeathsig reaches the ranks
	if pids := processesOf(abs); len(pids) > 0 {
		t.Errorf("processes of the run still alive after the second interrupt: %v", pids)
	}
}

// lineWatch collects what a process writes and signals when a line
// containing want appears.
type lineWatch struct {
	mu   sync.Mutex
	buf  strings.Builder
	want string
	seen chan struct{}
	done bool
}

func (w *lineWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if !w.done && strings.Contains(w.buf.String(), w.want) {
		w.done = true
		close(w.seen)
	}
	return len(p), nil
}

func (w *lineWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
