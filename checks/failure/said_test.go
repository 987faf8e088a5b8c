package failure

import (
	"strings"
	"testing"

	"mpivet/trace"
)

// The MPI's own report of a crash is left out of the rank's quoted words,
// also where Open MPI pads the pid ([host:04870]).
func TestSaidLeavesOutTheMPIsReport(t *testing.T) {
	p := &trace.Process{Pid: 4870, Stderr: "x.c:12: check: Assertion `v > 0' failed.\n[vm:04870] *** Process received signal ***\n[vm:4870] Signal: Aborted (6)\n"}
	got := said(p)
	if !strings.Contains(got, "Assertion") || strings.Contains(got, "Process received signal") || strings.Contains(got, "Signal: Aborted") {
		t.Errorf("said: %q", got)
	}
}
