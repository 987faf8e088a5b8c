package corpus

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"mpivet/suite"
)

// Inside a Slurm allocation, replays are job steps (srun --exact, by
// default there), several at once (--jobs, by default the allocation's
// tasks divided by the ranks), spread over the allocation's nodes:
// the exploration covers the interleavings a local one does, with the same
// findings. The test starts a Slurm cluster of three virtual nodes on this
// machine (scripts/start-slurm) and explores through salloc. Open MPI's
// ranks take Slurm's PMIx, MPICH's PMI-2 (with another, every rank starts
// as a rank 0 of its own). A suite's srun under mpivet exec is verified
// the same way.
func TestSlurmSteps(t *testing.T) {
	parallel(t)
	if _, err := exec.LookPath("slurmctld"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("Slurm not installed (scripts/setup installs slurm-wlm)")
		}
		t.Skip("Slurm not installed (scripts/setup installs slurm-wlm)")
	}
	out, err := exec.Command("../scripts/start-slurm", "3", "2").CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	cluster := lines[len(lines)-1]
	t.Cleanup(func() {
		pids, _ := os.ReadFile(filepath.Join(cluster, "pids"))
		for _, f := range strings.Fields(string(pids)) {
			if pid, err := strconv.Atoi(f); err == nil {
				syscall.Kill(pid, syscall.SIGTERM)
			}
		}
	})
	if err != nil {
		t.Fatalf("start-slurm: %v\n%s", err, out)
	}
	env := []string{"SLURM_CONF=" + filepath.Join(cluster, "slurm.conf")}
	prog := "wildcard_master_worker.c"
	p, err := Parse(filepath.Join("..", "testdata", "programs", prog))
	if err != nil {
		t.Fatal(err)
	}
	underEachMPI(t, prog, func(t *testing.T, bin, dir string) {
		local := exploreWith(t, p, bin, dir+"-local", 1)
		before := steps(cluster)
		wrap := []string{"salloc", "-n", strconv.Itoa(2 * p.NP), "--quiet"}
		// the launcher (srun --exact --mpi=PMI) and --jobs (the
		// allocation's tasks / the ranks: 2) are mpivet's defaults inside
		// an allocation
		slurm := exploreUnder(t, p, bin, dir+"-slurm", 0, wrap, env)
		// every run a step: the interleavings, and the zero-buffering run if any
		if n, want := steps(cluster)-before, int(slurm.report["interleavings"].(float64)); n < want {
			t.Errorf("%d job steps launched for %d interleavings", n, want)
		}
		if a, b := local.outcomes(), slurm.outcomes(); !reflect.DeepEqual(a, b) {
			t.Errorf("through Slurm, other interleavings than locally:\n%v\nlocally:\n%v", b, a)
		}
		if a, b := local.summary(), slurm.summary(); a != b {
			t.Errorf("through Slurm: %s\nlocally: %s", b, a)
		}
		// A suite's srun inside the allocation is mpivet exec's shim: the
		// launch is verified, its runs job steps.
		sdir, before := dir+"-suite", steps(cluster)
		cmd := exec.Command("salloc", append([]string{"-n", strconv.Itoa(p.NP), "--quiet", mpivetBin, "exec", "--max-interleavings", "1",
			"--suite", sdir, "--", "srun", "-n", strconv.Itoa(p.NP), bin}, p.Args...)...)
		cmd.Env = append(os.Environ(), env...)
		out, _ := cmd.CombinedOutput()
		ls, err := suite.Load(sdir)
		if err != nil || len(ls) != 1 || !ls[0].Verified || ls[0].Status != 0 || ls[0].Verdict == "error" || steps(cluster) == before {
			t.Errorf("mpivet exec -- srun: launches %+v (%v), %d steps\n%s", ls, err, steps(cluster)-before, out)
		}
	})
}

// steps counts the job steps the cluster's nodes launched (a step of
// ranks on several nodes once).
func steps(cluster string) int {
	ids := map[string]bool{}
	logs, _ := filepath.Glob(filepath.Join(cluster, "log", "slurmd.*.log"))
	for _, l := range logs {
		b, _ := os.ReadFile(l)
		for _, m := range stepID.FindAllString(string(b), -1) {
			ids[m] = true
		}
	}
	return len(ids)
}

var stepID = regexp.MustCompile(`launch task StepId=[0-9]+\.[0-9]+`)
