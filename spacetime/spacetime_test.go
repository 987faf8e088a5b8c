package spacetime

import (
	"testing"

	"mpivet/symbolize"
	"mpivet/trace"
	"mpivet/trace/tracetest"
)

const world = uint64(0x1000)

// Rank 2's message to rank 0 is an arrow; ranks 0 and 1 stopped in the
// receives they are blocked in; only the last calls of a rank are kept.
func TestBuild(t *testing.T) {
	done := map[string]any{}
	anySrc := int(int64(tracetest.Consts["MPI_ANY_SOURCE"]))
	run := &trace.Run{}
	for r := 0; r < 3; r++ {
		l := tracetest.New(r, 3)
		l.Call("MPI_Init", 1, nil, done)
		switch r {
		case 0:
			l.Call("MPI_Barrier", 5, map[string]any{"comm": world}, done)
			l.Call("MPI_Recv", 11, map[string]any{"source": anySrc, "tag": 0, "comm": world, "count": 1},
				map[string]any{"status": [2]int64{2, 0}})
			l.Call("MPI_Recv", 12, map[string]any{"source": 1, "tag": 0, "comm": world, "count": 1}, nil)
		case 1:
			l.Call("MPI_Recv", 12, map[string]any{"source": 0, "tag": 0, "comm": world, "count": 1}, nil)
		case 2:
			l.Call("MPI_Send", 10, map[string]any{"dest": 0, "tag": 0, "comm": world, "count": 1}, done)
			l.Call("MPI_Finalize", 99, nil, done)
		}
		run.Procs = append(run.Procs, l.Process())
	}
	tr := Build(run, 3, symbolize.New(), 2)
	if tr.Interleaving != 3 || len(tr.Lanes) != 3 {
		t.Fatalf("%+v", tr)
	}
	l0 := tr.Lanes[0]
	if l0.Skipped != 2 || len(l0.Calls) != 2 || l0.Calls[0].Peer != "from any" || !l0.Calls[1].Stopped || l0.Calls[1].Peer != "from 1" ||
		l0.End != "stopped in MPI_Recv" {
		t.Errorf("rank 0: %+v", l0)
	}
	if l2 := tr.Lanes[2]; l2.End != "finalized" || l2.Calls[0].Peer != "to 0" || l2.Calls[1].Stopped {
		t.Errorf("rank 2: %+v", l2)
	}
	if len(tr.Messages) != 1 || tr.Messages[0].From != 2 || tr.Messages[0].To != 0 ||
		tr.Messages[0].ToSeq != l0.Calls[0].Seq || tr.Messages[0].FromSeq != tr.Lanes[2].Calls[0].Seq {
		t.Errorf("messages %+v", tr.Messages)
	}
}
