package driver

import (
	"strings"
	"testing"

	"mpivet/trace"
)

// The note of a deterministic run sums what the ranks decided, gives the
// seed that reproduces the run, and says when determinism was relaxed or
// calls were left to the MPI; without the ranks' statistics it says so.
func TestDeterminismNote(t *testing.T) {
	d := func(w, p, r, u uint64) *trace.Process {
		return &trace.Process{Determinism: &trace.Determinism{Seed: 4, K: 3, Wildcards: w, Polls: p, Relaxed: r, Control: 5, Uncovered: u}}
	}
	run := &trace.Run{Procs: []*trace.Process{d(2, 10, 0, 0), d(1, 0, 0, 0)}}
	note := determinismNote(run, 4)
	for _, want := range []string{"seed 4 (mpivet run --deterministic --seed 4 reproduces it)", "K=3",
		"3 wildcard receives or probes and 10 completions or polls", "10 control messages"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	if strings.Contains(note, "relaxed") || strings.Contains(note, "left to the MPI") {
		t.Errorf("note %q speaks of relaxations or calls left to the MPI, which there were none of", note)
	}
	run.Procs = append(run.Procs, d(0, 0, 2, 1))
	note = determinismNote(run, 4)
	if !strings.Contains(note, "determinism relaxed 2 times") || !strings.Contains(note, "1 call left to the MPI") {
		t.Errorf("note %q does not report the relaxations and the call left to the MPI", note)
	}
	if note := determinismNote(&trace.Run{Procs: []*trace.Process{{}}}, 0); !strings.Contains(note, "no rank reached MPI_Finalize") {
		t.Errorf("note without statistics: %q", note)
	}
}
