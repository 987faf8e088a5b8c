package corpus

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mpivet/launch"
)

// PETSc as Debian installs it (petsc-dev, libpetsc3.18-dev-examples: scripts/setup apps).
const (
	petscDir      = "/usr/lib/petscdir/petsc-real"
	petscExamples = "/usr/share/petsc/3.18/share/petsc/examples/src"
)

// TestPETSc runs PETSc's tutorials on 4 ranks, natively and under the
// default `mpivet run` (PETSc's own signal handler on, as users run them):
// no finding, and the same convergence output as natively. PETSc installs
// SIGSEGV, SIGBUS and SIGFPE handlers in PetscInitialize, after MPI_Init,
// and its parallel objects keep nonblocking buffers pending while it
// computes: the buffer checker's faults must stay mpivet's. PETSc's own
// wildcard receives (PetscCommBuildTwoSided) are in an installed library:
// the default run leaves them unexplored, and is complete ("ok") after one
// run (--max-interleavings bounds the test if that changes). Skips unless
// PETSc is installed.
func TestPETSc(t *testing.T) {
	parallel(t)
	if _, err := os.Stat(filepath.Join(petscDir, "include", "petsc.h")); err != nil {
		t.Skip("PETSc is not installed (scripts/setup apps)")
	}
	if _, err := os.Stat(petscExamples); err != nil {
		t.Skip("PETSc's examples are not installed (scripts/setup apps)")
	}
	if _, err := exec.LookPath("mpicc.openmpi"); err != nil {
		t.Fatal("PETSc is installed without Open MPI, the MPI Debian builds it on")
	}
	for _, tc := range []struct {
		name, src string
		args      []string
	}{
		{"snes_ex5", "snes/tutorials/ex5.c", []string{"-snes_monitor", "-ksp_monitor"}},
		{"snes_ex19", "snes/tutorials/ex19.c", []string{"-snes_monitor", "-ksp_monitor"}},
		{"ksp_ex2", "ksp/ksp/tutorials/ex2.c", []string{"-ksp_monitor"}},
		{"ksp_ex23", "ksp/ksp/tutorials/ex23.c", []string{"-ksp_monitor"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, tc.name)
			cc := exec.Command("mpicc.openmpi", "-g", "-I"+filepath.Join(petscDir, "include"), filepath.Join(petscExamples, tc.src),
				"-L"+filepath.Join(petscDir, "lib"), "-lpetsc_real", "-lm", "-o", bin)
			if out, err := cc.CombinedOutput(); err != nil {
				t.Fatalf("building %s: %v\n%s", tc.src, err, out)
			}
			petscRun(t, dir, bin, tc.args)
		})
	}
}

// petscRun runs bin natively and under mpivet, and compares.
func petscRun(t *testing.T, dir, bin string, args []string) {
	t.Helper()
	const np = 4
	sess, err := launch.Prepare(launch.Options{NP: np, Program: bin})
	if err != nil {
		t.Fatal(err)
	}
	run := func(argv ...string) (string, string, error) {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env, cmd.Dir, cmd.Stdout, cmd.Stderr = sess.Env(), dir, &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	nout, nerr, err := run(append(append(sess.Launcher(), bin), args...)...)
	if err != nil {
		t.Fatalf("native run failed: %v\n%s%s", err, nout, nerr)
	}
	js := filepath.Join(dir, "report.json")
	mv := []string{mpivetBin, "run", "-n", "4", "--max-interleavings", "3", "--json", js, "--dir", filepath.Join(dir, "run"), "--no-color", bin}
	vout, verr, _ := run(append(mv, args...)...)
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatalf("no JSON report:\n%s%s", vout, verr)
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("bad JSON report: %v", err)
	}
	if len(r.Findings) > 0 || r.Verdict != "ok" || r.Interleavings != 1 {
		t.Errorf("verdict %s with %d findings in %d interleavings, want ok in 1:\n%s", r.Verdict, len(r.Findings), r.Interleavings, vout)
	}
	if i := strings.Index(vout, "\n== mpivet: "); i >= 0 {
		vout = vout[:i]
	}
	if nout != vout {
		t.Errorf("the convergence output differs:\nnative:\n%s\nunder mpivet:\n%s", nout, vout)
	}
	if strings.Contains(verr, "Caught signal") {
		t.Errorf("PETSc's signal handler ran under mpivet:\n%s", verr)
	}
}
