package corpus

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"mpivet/trace"
)

// TestRecordsFlatInIterations: a rank folds the records of a loop of
// deterministic calls (layer/src/record/fold.c), so twice the iterations
// of bench/programs/longrun.c (exchanges with a ring neighbour, an
// Allreduce every 100 iterations) add almost nothing to its records,
// while the calls read back from them are twice as many, and the very
// calls a run with --records=full records (mpivet dump, but for handle
// and address values, which differ from run to run).
func TestRecordsFlatInIterations(t *testing.T) {
	parallel(t)
	const n = 1000
	underEachMPISource(t, filepath.Join("..", "bench", "programs", "longrun.c"), func(t *testing.T, bin, dir string) {
		run := func(name string, iters int, flags ...string) *trace.Run {
			d := filepath.Join(dir, name)
			args := append([]string{"run", "-n", "2", "--dir", d, "--no-color"}, flags...)
			out, err := exec.Command(mpivetBin, append(args, bin, fmt.Sprint(iters))...).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "verdict: ok") {
				t.Fatalf("%s: %v\n%s", name, err, out)
			}
			r, err := trace.ReadRun(d)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		once, twice, full := run("fold1", n), run("fold2", 2*n), run("full", n, "--records=full")
		for i, p := range once.Procs {
			q, f := twice.Procs[i], full.Procs[i]
			if q.NumCalls < 2*p.NumCalls-20 || p.NumCalls != f.NumCalls {
				t.Errorf("rank %d: %d calls at %d iterations, %d at %d, %d with --records=full", p.Rank, p.NumCalls, n, q.NumCalls, 2*n, f.NumCalls)
			}
			// Doubling the iterations adds almost nothing, far from the
			// tenfold of --records=full. A few iterations may differ:
			// under Open MPI an MPI_Isend whose message cannot be sent at
			// once (its receiver descheduled, on a loaded machine)
			// returns a request of its own instead of the one it shares
			// among those it sent at once, so that iteration's records
			// differ and the folded loop breaks there; the layer folds
			// again after two periods of the outer loop (the Allreduce's:
			// about 13 KB a break here; 65 KB seen once in many runs).
			// The bound allows a few breaks.
			if q.End > p.End+(f.End-p.End)/4 || f.End < 10*p.End {
				t.Errorf("rank %d: %d bytes of records at %d iterations, %d at %d, %d with --records=full", p.Rank, p.End, n, q.End, 2*n, f.End)
			}
			t.Logf("rank %d: %d calls: %d bytes of records (%d with --records=full); %d calls: %d bytes", p.Rank, p.NumCalls, p.End, f.End, q.NumCalls, q.End)
		}
		dump := func(name string) string {
			out, err := exec.Command(mpivetBin, "dump", filepath.Join(dir, name)).CombinedOutput()
			if err != nil {
				t.Fatalf("dump %s: %v\n%s", name, err, out)
			}
			return regexp.MustCompile(`0x[0-9a-f]+|pid \d+`).ReplaceAllString(string(out), "")
		}
		if a, b := dump("fold1"), dump("full"); a != b {
			t.Errorf("the calls read from folded records differ from those of --records=full:\n%s", firstDiff(a, b))
		}
	})
}

// nestedLoops has loops in a loop, a branch taken every third iteration,
// and ends in the middle of an iteration: repeats nest, and closing one
// commits again an unfinished repetition that holds an inner loop.
const nestedLoops = `#include <mpi.h>

int main(int argc, char **argv)
{
	int x = 1, y = 0;
	MPI_Init(&argc, &argv);
	for (int k = 0; k < 40; k++) {
		for (int i = 0; i < 7; i++)
			MPI_Barrier(MPI_COMM_WORLD);
		MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
		for (int j = 0; j < 5; j++)
			MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
		if (k % 3 == 2)
			MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	}
	for (int i = 0; i < 7; i++)
		MPI_Barrier(MPI_COMM_WORLD);
	MPI_Bcast(&x, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
`

// TestNestedLoopsFold: the calls read from the folded records of
// nestedLoops are those of --records=full.
func TestNestedLoopsFold(t *testing.T) {
	parallel(t)
	src := filepath.Join(t.TempDir(), "nested.c")
	if err := os.WriteFile(src, []byte(nestedLoops), 0o644); err != nil {
		t.Fatal(err)
	}
	underEachMPISource(t, src, func(t *testing.T, bin, dir string) {
		dumps := map[string]string{}
		for _, how := range []string{"fold", "full"} {
			d := filepath.Join(dir, how)
			out, err := exec.Command(mpivetBin, "run", "-n", "2", "--records="+how, "--dir", d, "--no-color", bin).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "verdict: ok") {
				t.Fatalf("--records=%s: %v\n%s", how, err, out)
			}
			out, err = exec.Command(mpivetBin, "dump", d).CombinedOutput()
			if err != nil {
				t.Fatalf("dump: %v\n%s", err, out)
			}
			dumps[how] = regexp.MustCompile(`0x[0-9a-f]+|pid \d+`).ReplaceAllString(string(out), "")
		}
		if dumps["fold"] != dumps["full"] {
			t.Errorf("the calls read from folded records differ from those of --records=full:\n%s", firstDiff(dumps["fold"], dumps["full"]))
		}
	})
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n  %s\n  %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines and %d", len(al), len(bl))
}
