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

// A rank with a thread outside MPI can still act, even if its main thread
// waits: no deadlock with a peer that waits for that rank.
func TestThreadOutsideMPI(t *testing.T) {
	l0 := tracetest.New(0, 2)
	l0.Call("MPI_Init_thread", 1, nil, map[string]any{"provided": 3})
	l0.Call("MPI_Wait", 2, map[string]any{"request": uint64(0x2000)}, nil)
	p0 := l0.Process()
	p0.Threads = []*trace.Call{p0.Calls[1], {Def: p0.Calls[0].Def, Returned: true}}
	p0.Current = p0.Threads[0]
	l1 := tracetest.New(1, 2)
	l1.Call("MPI_Init", 1, nil, map[string]any{})
	l1.Call("MPI_Recv", 2, map[string]any{"source": 0, "comm": uint64(0x1000)}, nil)
	a := Analyze(&trace.Run{Procs: []*trace.Process{p0, l1.Process()}})
	if len(a.Deadlocked) != 0 {
		t.Fatalf("deadlocked %v; rank 0 has a thread outside MPI", a.Deadlocked)
	}
}

// A wildcard receive (MPICH's MPI_ANY_SOURCE is -2) waits for any member:
// with a sender still computing, no deadlock.
func TestWildcardReceive(t *testing.T) {
	l0 := tracetest.New(0, 2)
	l0.Call("MPI_Init", 1, nil, map[string]any{})
	l0.Call("MPI_Recv", 2, map[string]any{"source": -2, "comm": uint64(0x1000)}, nil)
	l1 := tracetest.New(1, 2)
	l1.Call("MPI_Init", 1, nil, map[string]any{})
	if a := Analyze(&trace.Run{Procs: []*trace.Process{l0.Process(), l1.Process()}}); len(a.Deadlocked) != 0 {
		t.Fatalf("deadlocked %v", a.Deadlocked)
	}
}
