package driver

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"mpivet/launch"
	"mpivet/mpi"
)

// hostLimits is how many processes can exist on this host at once: the
// least of the kernel's bounds (and the user's, for a user that is not
// root), and which bound that is. 0: none known.
type hostLimits struct {
	procs int64
	what  string
}

// readHostLimits reads the bounds on the processes of this host.
func readHostLimits() hostLimits {
	var l hostLimits
	lower := func(v int64, what string) {
		if v > 0 && (l.procs == 0 || v < l.procs) {
			l.procs, l.what = v, what
		}
	}
	for _, k := range []string{"pid_max", "threads-max"} {
		if b, err := os.ReadFile("/proc/sys/kernel/" + k); err == nil {
			v, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			lower(v, "kernel."+k)
		}
	}
	var r unix.Rlimit
	if os.Geteuid() != 0 && unix.Getrlimit(unix.RLIMIT_NPROC, &r) == nil && r.Cur != unix.RLIM_INFINITY && r.Cur < 1<<62 {
		lower(int64(r.Cur), "ulimit -u")
	}
	return l
}

// ranksFit checks that the ranks can be started on this host when they
// all run on it: each rank is two processes (mpivet's supervisor and the
// program), and --jobs runs that many replays at once. Without the check
// a launcher asked for more processes than the host can have forks until
// it fails, or until the time limit, and reports nothing useful. Ranks
// that may run elsewhere (--launcher, a Slurm allocation, a host file
// given to the MPI's launcher) are the launcher's to count.
func ranksFit(o *Options, l hostLimits) error {
	if l.procs == 0 || o.Launcher != "" || launch.SlurmStep(mpi.OpenMPI) != "" ||
		os.Getenv("OMPI_MCA_orte_default_hostfile") != "" || os.Getenv("HYDRA_HOST_FILE") != "" {
		return nil
	}
	if int64(o.NP) > l.procs/2 {
		return fmt.Errorf("-n %d: too many ranks for this host: each rank is two processes (mpivet's supervisor and the program), "+
			"and at most %d processes can exist here (%s), so at most %d ranks", o.NP, l.procs, l.what, l.procs/2)
	}
	if jobs := int64(o.Jobs); jobs > 1 && int64(o.NP) > l.procs/2/jobs {
		return fmt.Errorf("--jobs %d with -n %d: %d replays at once are %d processes (two per rank), and at most %d processes can exist here (%s): "+
			"use --jobs %d or less", jobs, o.NP, jobs, 2*jobs*int64(o.NP), l.procs, l.what, max(1, l.procs/2/int64(o.NP)))
	}
	return nil
}
