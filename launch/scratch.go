package launch

import (
	"os"
	"strings"

	"mpivet/mpi"
)

// Open MPI keeps files of its own for every job: a session directory per
// mpirun (/tmp/ompi.HOST.UID/pid.N, with PMIx's 8 MB shared-memory store)
// and the segments of its shared-memory transports (/dev/shm/vader_segment.*,
// and the osc components' for windows). It removes them only when the job
// ends normally. mpivet ends a deadlocked replay with SIGKILL, so an
// exploration of a program that can deadlock would leave a session
// directory and a segment per rank for each such replay (a day of test
// runs: 7.5 GB in /tmp and 290 MB of memory in /dev/shm). Each run of Open MPI therefore gets
// a directory of its own for all of them, removed when the run has ended,
// whichever way it ended (a second Ctrl-C included, see KillAll).

// scratchVars are Open MPI's parameters for where it keeps a job's files.
var scratchVars = []string{
	"OMPI_MCA_orte_tmpdir_base",
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
	dir, err := os.MkdirTemp("/dev/shm", "mpivet-ompi-")
	if err != nil {
		if dir, err = os.MkdirTemp("", "mpivet-ompi-"); err != nil {
			return "", nil // Open MPI's defaults then
		}
	}
	vars := make([]string, len(scratchVars))
	for i, v := range scratchVars {
		vars[i] = v + "=" + dir
	}
	return dir, vars
}
