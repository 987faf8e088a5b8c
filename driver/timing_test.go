package driver

import (
	"testing"
	"time"
)

// TestProcessStart checks that the process's start, which MPIVET_TIMING's
// first line gives, is before now and not before the test's binary could
// have started.
func TestProcessStart(t *testing.T) {
	now := time.Now()
	got := time.Unix(0, processStart())
	if got.After(now) || got.Before(now.Add(-time.Hour)) {
		t.Errorf("process start %v, now %v", got, now)
	}
	// 10 ms ticks, and the boot time read from two clocks: within 50 ms of
	// when the test binary's package variables were set.
	if d := got.Sub(testStart); d > 50*time.Millisecond || d < -time.Hour {
		t.Errorf("process start %v, the test binary's start %v", got, testStart)
	}
}

var testStart = time.Now()
