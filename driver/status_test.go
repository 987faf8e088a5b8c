package driver

import (
	"testing"

	"mpivet/launch"
	"mpivet/trace"
)

// The status a run would have given natively: the launcher's when it
// ended on its own, else the first failing rank's.
func TestNativeStatus(t *testing.T) {
	ranks := func(exits ...*trace.Exit) *trace.Run {
		r := &trace.Run{}
		for i, x := range exits {
			r.Procs = append(r.Procs, &trace.Process{Rank: i, Exit: x})
		}
		return r
	}
	ok := &trace.Exit{Exited: true}
	for name, c := range map[string]struct {
		res  launch.Result
		want int
	}{
		"clean":            {launch.Result{LauncherExit: 0, Run: ranks(ok, ok)}, 0},
		"launcher's":       {launch.Result{LauncherExit: 3, Run: ranks(ok, &trace.Exit{Exited: true, Code: 3})}, 3},
		"ended by mpivet":  {launch.Result{LauncherExit: -1, Failed: true, Run: ranks(ok, &trace.Exit{Exited: true, Code: 7})}, 7},
		"a signal":         {launch.Result{LauncherExit: -1, Failed: true, Run: ranks(nil, &trace.Exit{Signal: 11})}, 139},
		"deadlock":         {launch.Result{LauncherExit: -1, Deadlocked: true, Run: ranks(nil, nil)}, 1},
		"timeout, no rank": {launch.Result{LauncherExit: 0, TimedOut: true}, 1},
		"interrupted":      {launch.Result{LauncherExit: -1, Interrupted: true, Run: ranks(ok)}, 130},
	} {
		if got := NativeStatus(&c.res); got != c.want {
			t.Errorf("%s: %d, want %d", name, got, c.want)
		}
	}
}
