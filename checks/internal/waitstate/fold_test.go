package waitstate

import (
	"testing"

	"mpivet/trace"
	"mpivet/trace/tracetest"
)

// The wait state, which the stall watch computes each time a run stalls,
// reads a folded loop's repetitions as a count: two ranks that each
// receive from the other after 3,000 exchanges folded into one are found
// deadlocked having decoded about as many records as the log holds, and
// its collectives are counted (the blocked ranks' barrier is compared
// with the other's by position).
func TestFoldedLoopRead(t *testing.T) {
	const n = 3000
	world := tracetest.Consts["MPI_COMM_WORLD"]
	var procs []*trace.Process
	for r := 0; r < 2; r++ {
		l := tracetest.New(r, 2)
		l.Call("MPI_Init", 1, nil, map[string]any{})
		from := l.Pos()
		l.Call("MPI_Irecv", 2, map[string]any{"source": 1 - r, "tag": 0, "comm": world}, map[string]any{"request": uint64(0x9000)})
		l.Call("MPI_Send", 3, map[string]any{"dest": 1 - r, "tag": 0, "comm": world}, map[string]any{})
		l.Call("MPI_Wait", 4, map[string]any{"request": uint64(0x9000)}, map[string]any{"request_out": tracetest.Consts["MPI_REQUEST_NULL"], "status": [2]int64{int64(1 - r), 0}})
		l.Call("MPI_Barrier", 5, map[string]any{"comm": world}, map[string]any{})
		l.Repeat(from, n-1, 0)
		l.Call("MPI_Recv", 6, map[string]any{"source": 1 - r, "tag": 1, "comm": world}, nil) // blocked
		p := l.Process()
		p.Exit = nil
		procs = append(procs, p)
	}
	a := Analyze(&trace.Run{Procs: procs})
	if len(a.Deadlocked) != 2 {
		t.Fatalf("deadlocked %v, want ranks 0 and 1", a.Deadlocked)
	}
	for _, p := range procs {
		if r := p.RecordsRead(); r > 200 {
			t.Errorf("rank %d: %d records decoded for %d iterations folded into one", p.Rank, r, n)
		}
	}
}
