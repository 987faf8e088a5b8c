package collective

import (
	"strings"
	"testing"

	"mpivet/check"
	"mpivet/checks/internal/comms"
	"mpivet/trace"
	"mpivet/trace/tracetest"
)

func allreduce(l *tracetest.Log, _ int) {
	world := tracetest.Consts["MPI_COMM_WORLD"]
	l.CollCall("MPI_Allreduce", 0x400300, map[string]any{"count": 1, "datatype": tracetest.Consts["MPI_INT"], "op": tracetest.Consts["MPI_SUM"],
		"comm": world}, map[string]any{}, 3, 11, 1, 11, 1)
	l.CollCall("MPI_Barrier", 0x400310, map[string]any{"comm": world}, map[string]any{})
}

func bcast(l *tracetest.Log) {
	l.CollCall("MPI_Bcast", 0x400320, map[string]any{"count": 1, "datatype": tracetest.Consts["MPI_INT"], "root": 0,
		"comm": tracetest.Consts["MPI_COMM_WORLD"]}, map[string]any{}, 3, 11, 1, 11, 1)
}

// rank makes a rank's log: MPI_Init, what body appends, MPI_Finalize.
func rank(r int, body func(l *tracetest.Log)) *trace.Process {
	l := tracetest.New(r, 2)
	l.Call("MPI_Init", 0x400000, nil, map[string]any{})
	body(l)
	l.Call("MPI_Finalize", 0x400400, nil, map[string]any{})
	return l.Process()
}

func findings(t *testing.T, procs ...*trace.Process) []check.Finding {
	t.Helper()
	fs, err := check.Run([]*check.Check{Check, comms.Analyzer}, &check.Input{Run: &trace.Run{Procs: procs}, NP: len(procs)})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// Folded loops are compared a run at a time: the same 2,000 collectives
// folded with other periods on each rank compare clean; a collective
// that differs, or is missing, deep in a folded loop is found at its
// number.
func TestFoldedLoops(t *testing.T) {
	const n = 1000
	clean := findings(t,
		rank(0, func(l *tracetest.Log) { l.Loop(n, 1, allreduce) }),
		rank(1, func(l *tracetest.Log) { l.Loop(n, 3, allreduce) }))
	if len(clean) != 0 {
		t.Errorf("the same collectives folded otherwise: %v", clean)
	}
	differ := findings(t,
		rank(0, func(l *tracetest.Log) { l.Loop(n, 1, allreduce) }),
		rank(1, func(l *tracetest.Log) {
			l.Loop(700, 2, allreduce)
			bcast(l)
			l.Loop(n-700, 1, allreduce)
		}))
	if len(differ) != 1 || !strings.Contains(differ[0].Message, "collective number 1401 ") {
		t.Errorf("a Bcast for the 1401st collective: %v", differ)
	}
	missing := findings(t,
		rank(0, func(l *tracetest.Log) { l.Loop(n, 1, allreduce) }),
		rank(1, func(l *tracetest.Log) { l.Loop(n-1, 1, allreduce) }))
	if len(missing) != 1 || missing[0].Kind != "collective-missing" || !strings.Contains(missing[0].Message, "collective number 1999 ") {
		t.Errorf("the last iteration missing on rank 1: %v", missing)
	}
	for _, p := range []*trace.Process{rank(0, func(l *tracetest.Log) { l.Loop(n, 1, allreduce) })} {
		findings(t, p, rank(1, func(l *tracetest.Log) { l.Loop(n, 1, allreduce) }))
		if r := p.RecordsRead(); r > 200 {
			t.Errorf("%d records decoded for a loop folded once", r)
		}
	}
}
