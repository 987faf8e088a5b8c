package zerobuf

import (
	"testing"

	"mpivet/check"
	"mpivet/trace"
	"mpivet/trace/tracetest"
)

// fig1a writes seed 001's Fig. 1(a) with blocking calls: rank 0 sends to
// rank 1 (with call first) then to rank 2; rank 1 sends to rank 2 (with
// call second) then receives from rank 0; rank 2 receives from anyone (rank 1, in the
// run), then from rank 0. between, if set, is called on rank 1 between its
// send and its receive, and on rank 0 between its sends.
func fig1a(first, second string, between func(r int, l *tracetest.Log)) *trace.Run {
	anySrc := int(int64(tracetest.Consts["MPI_ANY_SOURCE"]))
	return prog(3, func(r int, l *tracetest.Log) {
		switch r {
		case 0:
			send(l, first, 1, 0)
			if between != nil {
				between(r, l)
			}
			send(l, "MPI_Send", 2, 0)
		case 1:
			send(l, second, 2, 0)
			if between != nil {
				between(r, l)
			}
			recv(l, 0, 0)
		case 2:
			l.Call("MPI_Recv", 11, map[string]any{"source": anySrc, "tag": 0, "comm": worldComm}, map[string]any{"status": [2]int64{1, 0}})
			if between != nil {
				between(r, l)
			}
			recv(l, 0, 0)
		}
	})
}

// wildcard is the entry record of rank 2's wildcard receive.
func wildcard(run *trace.Run) uint64 { return run.Procs[2].CallList()[1].Offset }

func TestSlackFig1a(t *testing.T) {
	run := fig1a("MPI_Send", "MPI_Send", nil)
	sl := NewSlack(check.NewUnit(&check.Input{Run: run}), nil, false)
	if sl == nil {
		t.Fatal("no model")
	}
	// Rank 0's second send can match only if its first is buffered (it
	// waits for rank 1's receive, which comes after rank 1's send, which
	// waits for the wildcard receive).
	n := sl.Need(2, wildcard(run), 0)
	if !n.Known || !n.Possible || len(n.Buffer) != 1 || n.Buffer[0].Rank != 0 || n.Buffer[0].Ordinal != 0 || n.Buffer[0].Dest != 1 {
		t.Fatalf("Need = %+v, want rank 0's send 0 (to rank 1) buffered", n)
	}
	if n.Send == nil || n.Send.Rank != 0 || n.Send.Ordinal != 1 {
		t.Errorf("the send that matches: %+v, want rank 0's send 1", n.Send)
	}
	// What the run's own match needed: nothing.
	if m := sl.Matched(2, wildcard(run)); !m.Known || !m.Possible || len(m.Buffer) != 0 {
		t.Errorf("Matched = %+v, want possible without buffering", m)
	}
	// With that send buffered in the run, nothing more is needed.
	sl = NewSlack(check.NewUnit(&check.Input{Run: run}), map[int]map[uint64]bool{0: {0: true}}, false)
	if n := sl.Need(2, wildcard(run), 0); !n.Possible || len(n.Buffer) != 0 {
		t.Errorf("with the send buffered: Need = %+v, want possible as it is", n)
	}
}

// A synchronous send is never buffered: with rank 0's first send
// synchronous, buffering rank 1's send (the one the wildcard receive
// matched) lets rank 1 receive it; with both synchronous the match cannot
// happen, and no replay is spent on it.
func TestSlackSsend(t *testing.T) {
	run := fig1a("MPI_Ssend", "MPI_Send", nil)
	n := NewSlack(check.NewUnit(&check.Input{Run: run}), nil, false).Need(2, wildcard(run), 0)
	if !n.Possible || len(n.Buffer) != 1 || n.Buffer[0].Rank != 1 || n.Buffer[0].Ordinal != 0 {
		t.Errorf("Need = %+v, want rank 1's send buffered", n)
	}
	run = fig1a("MPI_Ssend", "MPI_Ssend", nil)
	n = NewSlack(check.NewUnit(&check.Input{Run: run}), nil, false).Need(2, wildcard(run), 0)
	if !n.Known || n.Possible {
		t.Errorf("Need = %+v, want impossible", n)
	}
}

// A path that no buffering breaks (seed 001 Fig. 5(b)): rank 0 receives a
// message from rank 2 before its second send, which rank 2 sends only after
// its wildcard receive.
func TestSlackUnbreakablePath(t *testing.T) {
	run := fig1a("MPI_Send", "MPI_Send", func(r int, l *tracetest.Log) {
		switch r {
		case 0:
			recv(l, 2, 3)
		case 2:
			send(l, "MPI_Send", 0, 3)
		}
	})
	n := NewSlack(check.NewUnit(&check.Input{Run: run}), nil, false).Need(2, wildcard(run), 0)
	if !n.Known || n.Possible {
		t.Fatalf("Need = %+v, want impossible: the path goes through a receive", n)
	}
}

// A barrier that the wildcard receive's rank reaches only once the receive
// matched is a path buffering does not break.
func TestSlackBarrierBetween(t *testing.T) {
	run := fig1a("MPI_Send", "MPI_Send", func(r int, l *tracetest.Log) {
		l.Call("MPI_Barrier", 20, map[string]any{"comm": worldComm}, done)
	})
	n := NewSlack(check.NewUnit(&check.Input{Run: run}), nil, false).Need(2, wildcard(run), 0)
	if !n.Known || n.Possible {
		t.Fatalf("Need = %+v, want impossible: rank 2 reaches the barrier only once its receive matched", n)
	}
}

// A persistent standard send on the path may be buffered by the MPI but
// not by mpivet: the model does not rule the match out (the clocks' word
// stands).
func TestSlackPersistentUnknown(t *testing.T) {
	// rank 0's first send made persistent (Send_init, Start, Wait), rank
	// 1's synchronous
	anySrc := int(int64(tracetest.Consts["MPI_ANY_SOURCE"]))
	run := prog(3, func(r int, l *tracetest.Log) {
		switch r {
		case 0:
			l.Call("MPI_Send_init", 15, map[string]any{"dest": 1, "tag": 0, "comm": worldComm, "count": 1, "request_at": uint64(0x100 + 0x7000)},
				map[string]any{"request": uint64(0x7000)})
			l.Call("MPI_Start", 16, map[string]any{"request": uint64(0x7000), "request_at": uint64(0x100 + 0x7000)},
				map[string]any{"request_out": uint64(0x7000)})
			wait(l, 0x7000, [2]int64{0, 0})
			send(l, "MPI_Send", 2, 0)
		case 1:
			send(l, "MPI_Ssend", 2, 0)
			recv(l, 0, 0)
		case 2:
			l.Call("MPI_Recv", 11, map[string]any{"source": anySrc, "tag": 0, "comm": worldComm}, map[string]any{"status": [2]int64{1, 0}})
			recv(l, 0, 0)
		}
	})
	n := NewSlack(check.NewUnit(&check.Input{Run: run}), nil, false).Need(2, wildcard(run), 0)
	t.Logf("Need = %+v", n)
	if n.Known && !n.Possible {
		t.Fatalf("Need = %+v: ruled out past a persistent send", n)
	}
}
