package corpus

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// Open MPI 5 is what clusters run beside Debian's 4.1 and MPICH 4.0. The
// project carries a prebuilt Open MPI 5.0.9 (third_party/openmpi5), which
// scripts/ompi5 unpacks into the user's cache and selects with OPAL_PREFIX,
// PATH and LD_LIBRARY_PATH: no root, no network. The corpus runs a part of
// its programs under it (TestCorpus/NAME/openmpi5), chosen to cover every
// check once, C and Fortran (mpif.h: the tree has no `use mpi` module),
// exploration with replays, deterministic mode, the buffering-aware
// exploration, the buffer checker's peer copies, clean twins, and Python
// (Debian's mpi4py, built on Open MPI 4.1, runs on Open MPI 5's
// libmpi.so.40, found through LD_LIBRARY_PATH).
var openMPI5Programs = []string{
	"args_freed_handles",           // invalid-argument, mpi-error, program-failure
	"fig2_8_leak",                  // request-lifecycle, resource-leak
	"fig2_10_type_mismatch",        // type-mismatch
	"collective_data_mismatch",     // collective-mismatch
	"rma_epoch_open",               // rma-epoch, deadlock in an epoch
	"rma_race_wildcard",            // rma-race, found in a replay
	"unreceived_messages",          // unreceived-message
	"spin_timeout",                 // timeout
	"slack_fig1b",                  // buffering-aware exploration, unsafe-buffering
	"fig2_7_wildcard_deadlock_f77", // Fortran, deadlock found by exploration
	"fig2_9_buffer_reuse_f77",      // Fortran, buffer-reuse
	"wildcard_master_worker_f77",   // Fortran, clean, 8 interleavings
	"clean_deterministic_irecv",    // --deterministic, clean
	"buffer_large_shared",          // buffer-reuse beside pages a peer's kernel copies
	"buffer_small_shared_page",     // and beside a small send, which no peer copies (smsc)
	"clean_buffers",                // their clean twins
	"clean_buffers_large",          // rows above and below the eager limit
	"clean_buffers_polled",         // polls with the pages closed: sm's copies through smsc/cma seen
	"py_isend_write",               // Python, buffer-reuse
}

// openMPI5 is the corpus's third MPI; its setup unpacks the tree once per
// test process, or skips the test saying why it cannot.
var openMPI5 = mpiImpl{name: "openmpi5", family: "openmpi", setup: setupOpenMPI5, only: map[string]bool{}}

func init() {
	for _, p := range openMPI5Programs {
		openMPI5.only[p] = true
	}
}

var (
	ompi5Once sync.Once
	ompi5     mpiImpl
	ompi5Err  string
)

// setupOpenMPI5 runs scripts/ompi5 into the user's cache (or the temporary
// directory without one), where it stays for the next test runs, and
// returns the MPI with its tools and environment.
func setupOpenMPI5(t *testing.T) mpiImpl {
	t.Helper()
	m, err := unpackOpenMPI5()
	if err != "" {
		t.Skipf("Open MPI 5 cannot be set up here (scripts/ompi5): %s", err)
	}
	return m
}

// unpackOpenMPI5 sets up Open MPI 5 once per test process and returns it,
// or why it cannot be set up.
func unpackOpenMPI5() (mpiImpl, string) {
	ompi5Once.Do(func() {
		dir, err := ompi5Dir()
		if err != nil {
			ompi5Err = err.Error()
			return
		}
		out, err := exec.Command(filepath.Join("..", "scripts", "ompi5"), dir).CombinedOutput()
		if err != nil {
			ompi5Err = strings.TrimSpace(string(out))
			return
		}
		bin := filepath.Join(dir, "bin")
		ompi5 = mpiImpl{name: "openmpi5", family: "openmpi", env: ompi5Env(dir),
			cc: filepath.Join(bin, "mpicc"), cxx: filepath.Join(bin, "mpicxx"), fc: filepath.Join(bin, "mpifort")}
	})
	return ompi5, ompi5Err
}

// ompi5Dir is where the tests keep the unpacked tree.
func ompi5Dir() (string, error) {
	if runtime.GOARCH != "amd64" || runtime.GOOS != "linux" {
		return "", errors.New("the prebuilt Open MPI 5 in third_party/openmpi5 is for Linux x86-64")
	}
	if base, err := os.UserCacheDir(); err == nil {
		return filepath.Join(base, "mpivet-test", "openmpi-5.0.9"), nil
	}
	return filepath.Join(os.TempDir(), fmt.Sprintf("mpivet-test-%d", os.Geteuid()), "openmpi-5.0.9"), nil
}

// ompi5Env is the environment that selects the tree in dir (what
// scripts/ompi5 prints).
func ompi5Env(dir string) []string {
	lib := filepath.Join(dir, "lib")
	if old := os.Getenv("LD_LIBRARY_PATH"); old != "" {
		lib += ":" + old
	}
	return []string{"OPAL_PREFIX=" + dir, "PATH=" + filepath.Join(dir, "bin") + ":" + os.Getenv("PATH"), "LD_LIBRARY_PATH=" + lib}
}

// Under Open MPI 5, a run leaves nothing in the temporary directory or in
// /dev/shm, whichever way it ends: normally, killed when deadlocked, at
// its time limit, or stopped with Ctrl-C. PRRTE, its launcher, makes its
// session directory (ompi.PID, with PMIx's stores) under its own
// prte_tmpdir_base, not Open MPI 4's orte_tmpdir_base
// (launch/scratch.go). mpivet and the program get a temporary directory of
// the test's own, which must be empty after the run; /dev/shm must hold
// nothing new of Open MPI's or of this mpivet's.
func TestOpenMPI5NothingLeft(t *testing.T) {
	parallel(t)
	m := setupOpenMPI5(t)
	dir := t.TempDir()
	build := func(name, code string) string {
		src := filepath.Join(dir, name+".c")
		os.WriteFile(src, []byte(code), 0o644)
		bin := filepath.Join(dir, name)
		compile(t, m, src, bin)
		return bin
	}
	hello, deadlock, sleep := build("hello", cacheHello), build("deadlock", scratchProgram), build("sleeper", sleeper)
	for _, c := range []struct {
		name   string
		bin    string
		flags  []string
		code   int
		interr bool // stopped with SIGINT once the program is ready
	}{
		{"ok", hello, nil, 0, false},
		{"deadlock", deadlock, nil, 1, false},
		{"timeout", sleep, []string{"--timeout", "3s"}, 1, false},
		{"interrupt", sleep, nil, 3, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			parallel(t)
			tmp := t.TempDir()
			shm := shmEntries()
			out := filepath.Join(t.TempDir(), "out.txt")
			f, _ := os.Create(out)
			defer f.Close()
			args := append([]string{"run", "-n", "2", "--no-color", "--dir", filepath.Join(t.TempDir(), "run")}, c.flags...)
			cmd := exec.Command(mpivetBin, append(args, c.bin)...)
			cmd.Env = append(append(os.Environ(), m.env...), "TMPDIR="+tmp)
			cmd.Stdout, cmd.Stderr = f, f
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if c.interr {
				waitFor(out, "ready", 30*time.Second)
				cmd.Process.Signal(os.Interrupt)
			}
			cmd.Wait()
			data, _ := os.ReadFile(out)
			if code := cmd.ProcessState.ExitCode(); code != c.code {
				t.Errorf("exit %d, want %d:\n%s", code, c.code, data)
			}
			if left, _ := os.ReadDir(tmp); len(left) > 0 {
				var names []string
				for _, e := range left {
					names = append(names, e.Name())
				}
				t.Errorf("the run left %v in its temporary directory %s:\n%s", names, tmp, data)
			}
			ours := fmt.Sprintf("mpivet-ompi-%d-", cmd.Process.Pid)
			for name := range shmEntries() {
				if !shm[name] && (strings.HasPrefix(name, ours) || strings.HasPrefix(name, "sm_segment") ||
					strings.HasPrefix(name, "pmix") || strings.HasPrefix(name, "osc_")) {
					t.Errorf("the run left /dev/shm/%s", name)
				}
			}
		})
	}
}

// shmEntries lists /dev/shm.
func shmEntries() map[string]bool {
	names := map[string]bool{}
	entries, _ := os.ReadDir("/dev/shm")
	for _, e := range entries {
		names[e.Name()] = true
	}
	return names
}

// waitFor waits until the file holds text, or for at most d.
func waitFor(file, text string, d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if data, _ := os.ReadFile(file); strings.Contains(string(data), text) {
			return
		}
	}
}
