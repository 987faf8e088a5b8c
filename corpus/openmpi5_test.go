package corpus

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Open MPI 5 is what clusters run beside Debian's 4.1 and MPICH 4.0. The
// project carries a prebuilt Open MPI 5.0.9 (third_party/openmpi5), which
// scripts/ompi5 unpacks into the user's cache and selects with OPAL_PREFIX,
// PATH and LD_LIBRARY_PATH: no root, no network. The corpus runs a part of
// its programs under it (TestCorpus/NAME/openmpi5), chosen to cover every
// check once, C and Fortran (mpif.h: the tree has no `use mpi` module),
// exploration with replays, deterministic mode, the buffering-aware
// exploration, the buffer checker's peer copies, and clean twins. Python
// is left out: Debian's mpi4py is built against Open MPI 4.1.
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
	"clean_buffers_large",          // its clean twin, above and below the eager limit
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
	if ompi5Err != "" {
		t.Skipf("Open MPI 5 cannot be set up here (scripts/ompi5): %s", ompi5Err)
	}
	return ompi5
}

// ompi5Dir is where the tests keep the unpacked tree.
func ompi5Dir() (string, error) {
	if runtime.GOARCH != "amd64" || runtime.GOOS != "linux" {
		return "", errors.New("the prebuilt Open MPI 5 in third_party/openmpi5 is for Linux x86-64")
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "mpivet-test", "openmpi-5.0.9"), nil
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
