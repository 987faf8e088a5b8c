package driver

import (
	"runtime"
	"testing"
)

// --wait=auto sleeps when the ranks of the runs at once outnumber the
// cores, and only on this host; spin and sleep are taken as given.
func TestWaitMode(t *testing.T) {
	cores := runtime.NumCPU()
	for _, c := range []struct {
		wait     string
		np, runs int
		launcher string
		want     string
	}{
		{"spin", 4 * cores, 4, "", "spin"},
		{"sleep", 1, 1, "", "sleep"},
		{"auto", cores, 1, "", "spin"},
		{"", cores, 1, "", "spin"},
		{"auto", cores + 1, 1, "", "sleep"},
		{"auto", max(1, cores/2), 3, "", "sleep"},
		{"auto", cores, 2, "", "sleep"},
		{"auto", 4 * cores, 1, "srun --mpi=pmix", "spin"}, // the ranks are elsewhere
	} {
		o := Defaults()
		o.Wait, o.NP, o.Launcher = c.wait, c.np, c.launcher
		if got := waitMode(o, nil, c.runs); got != c.want {
			t.Errorf("--wait=%q, %d ranks, %d runs at once on %d cores, launcher %q: %s, want %s", c.wait, c.np, c.runs, cores, c.launcher, got, c.want)
		}
	}
}
