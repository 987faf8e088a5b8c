package zerobuf

import (
	"testing"

	"mpivet/check"
	"mpivet/trace"
	"mpivet/trace/tracetest"
)

func isend(l *tracetest.Log, dest, tag int, req uint64) {
	l.Call("MPI_Isend", 14, map[string]any{"dest": dest, "tag": tag, "comm": worldComm, "count": 1, "request_at": 0x100 + req},
		map[string]any{"request": req})
}

// BlockedSends names, read from the streamed calls, the standard send a
// rank is blocked in and the pending MPI_Isend a rank blocked in a
// completion waits for (not the one completed before), with their numbers
// among the rank's standard sends and their destinations.
func TestBlockedSends(t *testing.T) {
	run := &trace.Run{}
	for r := 0; r < 2; r++ {
		l := tracetest.New(r, 2)
		l.Call("MPI_Init", 1, nil, done)
		if r == 0 {
			isend(l, 1, 0, 0x7000) // 0, completed below
			send(l, "MPI_Send", 1, 0)
			isend(l, 1, 0, 0x7001) // 2, pending
			wait(l, 0x7000, [2]int64{0, 0})
			l.Call("MPI_Wait", 13, map[string]any{"request": uint64(0x7001), "request_at": uint64(0x100 + 0x7001)}, nil)
		} else {
			send(l, "MPI_Ssend", 0, 0) // not standard: not numbered
			l.Call("MPI_Send", 10, map[string]any{"dest": 0, "tag": 0, "comm": worldComm, "count": 1}, nil)
		}
		run.Procs = append(run.Procs, l.Process())
	}
	got := BlockedSends(check.NewUnit(&check.Input{Run: run}))
	if len(got) != 2 {
		t.Fatalf("BlockedSends = %+v, want 2", got)
	}
	if s := got[0]; s.Rank != 0 || s.Ordinal != 2 || s.Dest != 1 || s.PC != 14 {
		t.Errorf("rank 0: %+v, want its send 2 (the pending MPI_Isend) to 1", s)
	}
	if s := got[1]; s.Rank != 1 || s.Ordinal != 0 || s.Dest != 0 || s.PC != 10 {
		t.Errorf("rank 1: %+v, want its send 0 (MPI_Send) to 0", s)
	}
}
