package waitstate

import (
	"testing"

	"mpivet/trace"
	"mpivet/trace/tracetest"
)

// Handles differ between ranks (Open MPI's are addresses): ranks in the
// same barrier on the world have arrived, whatever their handle values.
func TestCollectiveAcrossRanks(t *testing.T) {
	var procs []*trace.Process
	for r := 0; r < 3; r++ {
		world := uint64(0x1000 + 0x100*r)
		tracetest.Consts["MPI_COMM_WORLD"] = world
		l := tracetest.New(r, 3)
		l.Call("MPI_Init", 1, nil, map[string]any{})
		if r != 1 {
			l.Call("MPI_Barrier", 2, map[string]any{"comm": world}, nil) // blocked
		}
		procs = append(procs, l.Process())
	}
	tracetest.Consts["MPI_COMM_WORLD"] = 0x1000
	a := Analyze(&trace.Run{Procs: procs})
	if len(a.Deadlocked) != 0 {
		t.Fatalf("rank 1 is computing: no deadlock, got %v", a.Deadlocked)
	}
	// Now rank 1 has finished instead: the two in the barrier wait forever.
	procs[1].Exit = &trace.Exit{Exited: true}
	if a := Analyze(&trace.Run{Procs: procs}); len(a.Deadlocked) != 2 {
		t.Fatalf("deadlocked %v, want ranks 0 and 2", a.Deadlocked)
	}
}
