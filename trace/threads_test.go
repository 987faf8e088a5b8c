package trace_test

import (
	"testing"

	"mpivet/api"
	"mpivet/trace/tracetest"
)

// Records carry the number of the thread that wrote them, and a call's
// exit record where it is: the calls of two threads interleave in the log.
func TestThreadsOfCalls(t *testing.T) {
	l := tracetest.New(0, 1)
	l.Call("MPI_Init_thread", 1, map[string]any{"required": 3}, map[string]any{"provided": 3})
	l.Thread = 1
	w := l.Call("MPI_Wait", 2, map[string]any{"request": uint64(0x77)}, nil)
	l.Thread = 2
	l.Call("MPI_Comm_free", 3, map[string]any{"comm": uint64(0x1010)}, map[string]any{})
	l.Thread = 1
	l.Exit("MPI_Wait", w, map[string]any{"request_out": uint64(0x2000)})
	var got []uint8
	var wait, free uint64
	for c := range l.Process().Calls() {
		got = append(got, c.Thread)
		switch c.Name() {
		case "MPI_Wait":
			wait = c.ExitAt
		case "MPI_Comm_free":
			free = c.Offset
		}
	}
	if len(got) != 3 || got[0] != 0 || got[1] != 1 || got[2] != 2 {
		t.Fatalf("threads %v, want [0 1 2]", got)
	}
	if wait <= free {
		t.Fatalf("the wait's exit record at %d, not after the free's entry at %d", wait, free)
	}
}

// A buffer access names the thread that made it (three words after the
// call stack); a record of an older layer, without them, names none.
func TestBufferAccessThread(t *testing.T) {
	l := tracetest.New(0, 1)
	op := l.Call("MPI_Isend", 1, nil, map[string]any{"request": uint64(0x77)})
	l.Meta(api.MetaBuffer, api.AccessWriteSend, 0x5000, op, uint64(api.MPI.ByName["MPI_Isend"].ID), 0x77, 0, ^uint64(0), 1, 0x400, 4242, 0, 1)
	l.Buffer(api.AccessWriteSend, 0x5000, op, "MPI_Isend", 0x77, 0, 0x400)
	p := l.Process()
	if len(p.Buffers) != 2 {
		t.Fatalf("%d accesses, want 2", len(p.Buffers))
	}
	if th := p.Buffers[0].Thread; th.Tid != 4242 || th.Initial || th.OMP != 1 || th.String() != "OpenMP thread 1 (thread id 4242)" {
		t.Errorf("thread %+v (%s)", th, th)
	}
	if th := p.Buffers[1].Thread; th.Tid != 0 || len(p.Buffers[1].PCs) != 1 {
		t.Errorf("older record: thread %+v, pcs %v", th, p.Buffers[1].PCs)
	}
}
