package corpus

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"mpivet/check"
	"mpivet/checks/all"
	"mpivet/checks/zerobuf"
	"mpivet/trace"
)

// TestAnalysisFlatInIterations: the checks read a folded loop's
// repetitions only until one changes nothing they keep (trace.CallsFolded),
// so twice the iterations of a deterministic program (the halo exchange
// of bench/programs/halo.c on a small grid, an Allreduce every 10
// iterations) leave the analysis's work, the records it decodes, and its
// peak heap nearly as they were; so does the offline zero-buffering
// replay, which leaves out the ranks' repetitions together (the records it
// decodes are counted apart). The records are read and checked here, in
// the test's process, as mpivet reads and checks them after a run.
func TestAnalysisFlatInIterations(t *testing.T) {
	parallel(t)
	const n = 2000
	underEachMPISource(t, filepath.Join("..", "bench", "programs", "halo.c"), func(t *testing.T, bin, dir string) {
		analyse := func(iters int) (records, replayed, peak uint64) {
			d := filepath.Join(dir, fmt.Sprint(iters))
			out, err := exec.Command(mpivetBin, "run", "-n", "2", "--buffers=off", "--dir", d, "--no-color", bin, "16", fmt.Sprint(iters)).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "verdict: ok") {
				t.Fatalf("%d iterations: %v\n%s", iters, err, out)
			}
			run, err := trace.ReadRun(d)
			if err != nil {
				t.Fatal(err)
			}
			peak = heapPeak(func() {
				if _, err := check.Run(all.Checks, &check.Input{Run: run, NP: 2}); err != nil {
					t.Fatal(err)
				}
			})
			for _, p := range run.Procs {
				records += p.RecordsRead()
			}
			if sim := zerobuf.Simulate(run); !sim.Checked || len(sim.Stuck) > 0 {
				t.Fatalf("%d iterations: the zero-buffering replay: %s, stuck: %s", iters, sim.Why, sim)
			}
			for _, p := range run.Procs {
				replayed += p.RecordsRead()
			}
			return records, replayed - records, peak
		}
		r1, z1, h1 := analyse(n)
		r2, z2, h2 := analyse(2 * n)
		t.Logf("%d iterations: %d records decoded (%d by the zero-buffering replay), peak heap %d KiB; %d iterations: %d records (%d), %d KiB",
			n, r1, z1, h1>>10, 2*n, r2, z2, h2>>10)
		if z2 > z1+z1/10 {
			t.Errorf("twice the iterations: the zero-buffering replay decoded %d records, was %d", z2, z1)
		}
		if r2 > r1+r1/10 {
			t.Errorf("twice the iterations: %d records decoded, was %d", r2, r1)
		}
		if h2 > h1+h1/4+1<<20 {
			t.Errorf("twice the iterations: peak heap %d KiB, was %d KiB", h2>>10, h1>>10)
		}
	})
}

// heapPeak runs f and returns the peak of the heap's objects while it
// ran, sampled every millisecond, the garbage collector made eager (its
// peak is then what f keeps, not when the collector happened to run).
var heapMu sync.Mutex

func heapPeak(f func()) uint64 {
	heapMu.Lock() // one measure at a time: the heap is the process's
	defer heapMu.Unlock()
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	runtime.GC()
	metrics.Read(s)
	base := s[0].Value.Uint64()
	var peak uint64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > base && v-base > peak {
				peak = v - base
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	<-stopped
	return peak
}
