package corpus

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestSlackExhaustive compares the buffering-aware exploration (seed 001's
// minimal slack: each match that needs buffering replayed with the fewest
// sends buffered) with the exhaustive one: an exploration without it
// (--slack=off) under every subset of the program's standard-mode sends
// buffered (--buffer-sends). Both must find the same errors; the first in
// fewer runs, none of them a forced match its buffering made impossible.
// Open MPI only: the 1 MiB messages are a rendezvous in both MPIs, and the
// corpus runs these programs under both.
func TestSlackExhaustive(t *testing.T) {
	parallel(t)
	avail := available(t)
	if avail[0].name != "openmpi" {
		t.Skip("Open MPI not installed")
	}
	for _, c := range []struct {
		name  string
		sends []string // the standard sends, RANK:N
	}{
		{"slack_sendbuff", []string{"0:0", "0:1", "1:0", "2:0"}},
		{"slack_sendbuff_deadlock", []string{"0:0", "0:1", "1:0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := filepath.Join("..", "testdata", "programs", c.name+".c")
			p, err := Parse(src)
			if err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(t.TempDir(), c.name)
			compile(t, avail[0], src, bin)
			fingerprints := func(r *Report) map[string]string {
				fs := map[string]string{}
				for _, f := range r.Findings {
					fs[f.Fingerprint] = f.Kind
				}
				return fs
			}
			mse, _, _ := RunMpivet(t, p, bin, "--buffering-check=off")
			if mse.Coverage.Infeasible > 0 {
				t.Errorf("%d forced matches could not happen with the buffering their replays had", mse.Coverage.Infeasible)
			}
			want := fingerprints(mse)
			all := map[string]string{}
			runs := 0
			for _, run := range subsetRuns(t, p, bin, c.sends) {
				r, _, _ := run.report(t, bin)
				runs += r.Interleavings
				for k, v := range fingerprints(r) {
					all[k] = v
				}
			}
			if fmt.Sprint(all) != fmt.Sprint(want) {
				t.Errorf("findings %v, every subset buffered finds %v", want, all)
			}
			if mse.Interleavings >= runs {
				t.Errorf("%d interleavings, every subset buffered %d: not fewer", mse.Interleavings, runs)
			}
			t.Logf("%d interleavings (%d findings); every subset of %d sends buffered: %d", mse.Interleavings, len(want), len(c.sends), runs)
		})
	}
}

// subsetRuns runs mpivet on bin without the buffering-aware exploration
// under every subset of sends buffered, two runs at a time: a run mostly
// waits (for its launcher, for a stalled interleaving to be judged), about
// half a core for 5 s, its four ranks polling; more at a time would take
// the cores from the test beside it. The runs come back in the order of
// the subsets.
func subsetRuns(t *testing.T, p *Program, bin string, sends []string) []mpivetRun {
	runs := make([]mpivetRun, 1<<len(sends))
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for set := range runs {
		var buf []string
		for i, s := range sends {
			if set&(1<<i) != 0 {
				buf = append(buf, s)
			}
		}
		dir := t.TempDir()
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			runs[set] = execMpivet(dir, p, bin, "--buffering-check=off", "--slack=off", "--buffer-sends="+strings.Join(buf, ","))
		})
	}
	wg.Wait()
	return runs
}
