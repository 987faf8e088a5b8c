package launch

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"mpivet/mpi"
)

// Open MPI keeps files of its own for every job: a session directory per
// mpirun (/tmp/ompi.HOST.UID/pid.N, with PMIx's 8 MB shared-memory store;
// Open MPI 5's launcher, PRRTE, makes /tmp/ompi.PID, with PMIx's stores and
// hwloc's topology) and the segments of its shared-memory transports
// (/dev/shm/vader_segment.*, Open MPI 5's sm_segment.*, and the osc
// components' for windows). It removes them only when the job
// ends normally. mpivet ends a deadlocked replay with SIGKILL, so an
// exploration of a program that can deadlock would leave a session
// directory and a segment per rank for each such replay (a day of test
// runs: 7.5 GB in /tmp and 290 MB of memory in /dev/shm). Each run of Open MPI therefore gets
// a directory of its own for all of them, removed when the run has ended,
// whichever way it ended (a second Ctrl-C included, see KillAll).

// scratchVars are Open MPI's parameters for where it keeps a job's files.
// (PRRTE reads its own, PRTE_MCA_ ones, and ignores orte_tmpdir_base;
// btl_vader_backing_directory is the sm BTL's too, a synonym.)
var scratchVars = []string{
	"OMPI_MCA_orte_tmpdir_base",
	"PRTE_MCA_prte_tmpdir_base",
	"OMPI_MCA_btl_vader_backing_directory",
	"OMPI_MCA_osc_sm_backing_directory",
	"OMPI_MCA_osc_rdma_backing_directory",
}

// scratch makes the directory for a run's Open MPI files and returns it
// with the environment that points Open MPI to it; "" and nil when the run
// needs none: another MPI, a job step of Slurm (its ranks' files are on
// the allocation's nodes, which clean up after a step), or a user who
// chose where these files go. The directory is on /dev/shm where it can
// be, since the segments are memory that should stay memory.
func (s *Session) scratch(env []string) (string, []string) {
	if s.MPI.Impl != mpi.OpenMPI || (s.Opts.Launcher == "" && SlurmStep(s.MPI.Impl) != "") {
		return "", nil
	}
	for _, kv := range env {
		for _, v := range scratchVars {
			if strings.HasPrefix(kv, v+"=") {
				return "", nil
			}
		}
	}
	removeStaleScratch.Do(func() {
		for _, d := range scratchParents() {
			RemoveStaleScratch(d)
		}
	})
	prefix := scratchPrefix(os.Getpid(), processStart(os.Getpid()))
	dir, err := os.MkdirTemp("/dev/shm", prefix)
	if err != nil {
		if dir, err = os.MkdirTemp("", prefix); err != nil {
			return "", nil // Open MPI's defaults then
		}
	}
	vars := make([]string, len(scratchVars))
	for i, v := range scratchVars {
		vars[i] = v + "=" + dir
	}
	return dir, vars
}

// A run's directory is named after the mpivet process that made it, its
// pid and start time (mpivet-ompi-PID-START-RANDOM): mpivet removes it when
// the run ends, but mpivet itself can be killed (kill -9, the machine's
// out-of-memory killer), and the directory, 8 MB of memory on /dev/shm,
// would stay. So each mpivet that starts a run of Open MPI first removes
// the directories of mpivet processes that no longer exist: its user's
// only, and those of a live mpivet never (the start time tells a reused
// pid from the process that made the directory).

// removeStaleScratch makes the removal once per mpivet process.
var removeStaleScratch sync.Once

// scratchParents are the directories runs' directories are made in.
func scratchParents() []string { return []string{"/dev/shm", os.TempDir()} }

func scratchPrefix(pid int, start uint64) string {
	return fmt.Sprintf("mpivet-ompi-%d-%d-", pid, start)
}

// RemoveStaleScratch removes from parent the run directories of mpivet
// processes that have ended, among those owned by the effective user, and
// returns their paths. A directory whose name does not say its process
// (an older mpivet's) is left alone.
func RemoveStaleScratch(parent string) []string {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		pid, start, ok := parseScratchName(e.Name())
		if !ok || !e.IsDir() || e.Type()&os.ModeSymlink != 0 {
			continue
		}
		p := filepath.Join(parent, e.Name())
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Uid != uint32(os.Geteuid()) {
			continue // another user's
		}
		if processStart(pid) == start {
			continue // its mpivet is running
		}
		if os.RemoveAll(p) == nil {
			removed = append(removed, p)
		}
	}
	return removed
}

// parseScratchName reads the pid and start time of the process that made
// a run directory from its name.
func parseScratchName(name string) (pid int, start uint64, ok bool) {
	f := strings.Split(strings.TrimPrefix(name, "mpivet-ompi-"), "-")
	if len(f) != 3 || !strings.HasPrefix(name, "mpivet-ompi-") {
		return 0, 0, false
	}
	pid, err1 := strconv.Atoi(f[0])
	start, err2 := strconv.ParseUint(f[1], 10, 64)
	return pid, start, err1 == nil && err2 == nil && pid > 0
}

// processStart returns when process pid started, in clock ticks since
// boot (/proc/PID/stat's starttime), 0 if there is no such process.
func processStart(pid int) uint64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the name may hold anything
	if i < 0 {
		return 0
	}
	// After the name: state is field 3, starttime field 22.
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0
	}
	v, _ := strconv.ParseUint(f[19], 10, 64)
	return v
}
