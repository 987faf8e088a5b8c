package zerobuf

import (
	"strings"
	"testing"

	"mpivet/trace"
	"mpivet/trace/tracetest"
)

const worldComm = uint64(0x1000)

var done = map[string]any{}

// prog writes the records of a run of n ranks, each rank's calls by body.
func prog(n int, body func(r int, l *tracetest.Log)) *trace.Run {
	run := &trace.Run{}
	for r := 0; r < n; r++ {
		l := tracetest.New(r, n)
		l.Call("MPI_Init", 1, nil, done)
		body(r, l)
		l.Call("MPI_Finalize", 99, nil, done)
		run.Procs = append(run.Procs, l.Process())
	}
	return run
}

func send(l *tracetest.Log, name string, dest, tag int) {
	l.Call(name, 10, map[string]any{"dest": dest, "tag": tag, "comm": worldComm, "count": 1}, done)
}

func recv(l *tracetest.Log, source, tag int) {
	l.Call("MPI_Recv", 11, map[string]any{"source": source, "tag": tag, "comm": worldComm, "count": 1},
		map[string]any{"status": [2]int64{int64(source), int64(tag)}})
}

func irecv(l *tracetest.Log, source, tag int, req uint64) {
	l.Call("MPI_Irecv", 12, map[string]any{"source": source, "tag": tag, "comm": worldComm, "request_at": 0x100 + req},
		map[string]any{"request": req})
}

func wait(l *tracetest.Log, req uint64, status [2]int64) {
	l.Call("MPI_Wait", 13, map[string]any{"request": req, "request_at": 0x100 + req},
		map[string]any{"request_out": uint64(0x2000), "status": status})
}

func mustSimulate(t *testing.T, run *trace.Run) *Result {
	t.Helper()
	res := Simulate(run)
	if !res.Checked {
		t.Fatalf("not simulated: %s", res.Why)
	}
	return res
}

// Rank 0's main thread receives what rank 1 sends once it has the
// message another thread of rank 0 sends, later: replayed in the order
// the calls were logged, both ranks would wait forever. Once the state
// page says the rank called MPI from several threads (ended now), the
// rank is not replayed (ops.Usable).
func TestThreadsEnded(t *testing.T) {
	body := func(r int, l *tracetest.Log) {
		recv(l, 1-r, 1-r)
		send(l, "MPI_Send", 1-r, r)
	}
	run := prog(2, body)
	if res := mustSimulate(t, run); len(res.Stuck) != 2 {
		t.Fatalf("stuck %v, want ranks 0 and 1", res.Stuck)
	}
	run.Procs[0].Slots = 2
	if res := Simulate(run); res.Checked {
		t.Fatalf("simulated %v; rank 0's calls came from two threads", res.Stuck)
	}
}

// Both ranks send first: with buffering they pass, without it each waits
// for the other's receive forever.
func TestHeadToHeadSends(t *testing.T) {
	for _, c := range []struct {
		send  string
		stuck int
	}{{"MPI_Send", 2}, {"MPI_Ssend", 2}, {"MPI_Bsend", 0}} {
		run := prog(2, func(r int, l *tracetest.Log) {
			send(l, c.send, 1-r, 7)
			recv(l, 1-r, 7)
		})
		res := mustSimulate(t, run)
		if len(res.Stuck) != c.stuck || res.Matches != 2 {
			t.Errorf("%s: stuck %v (%d matches), want %d ranks", c.send, res.Stuck, res.Matches, c.stuck)
		}
		if c.stuck > 0 && res.Stuck[0].Call.Name() != c.send {
			t.Errorf("%s: rank 0 waits in %s", c.send, res.Stuck[0].Call.Name())
		}
	}
}

// The common exchange (receive posted first) and an ordered pair are safe.
func TestSafeExchanges(t *testing.T) {
	run := prog(2, func(r int, l *tracetest.Log) {
		irecv(l, 1-r, 1, 0x7000)
		send(l, "MPI_Send", 1-r, 1)
		wait(l, 0x7000, [2]int64{int64(1 - r), 1})
		if r == 0 {
			send(l, "MPI_Send", 1, 2)
			recv(l, 1, 3)
		} else {
			recv(l, 0, 2)
			send(l, "MPI_Send", 0, 3)
		}
	})
	if res := mustSimulate(t, run); len(res.Stuck) != 0 || res.Matches != 4 {
		t.Fatalf("stuck %v, %d matches; want none stuck, 4 matches", res.Stuck, res.Matches)
	}
}

// Tags decide the match: rank 1 receives tag 2 before tag 1, so rank 0's
// first send (tag 1) waits for the second receive, which comes after the
// receive that waits for the second send.
func TestTagsOrder(t *testing.T) {
	run := prog(2, func(r int, l *tracetest.Log) {
		if r == 0 {
			send(l, "MPI_Send", 1, 1)
			send(l, "MPI_Send", 1, 2)
		} else {
			recv(l, 0, 2)
			recv(l, 0, 1)
		}
	})
	res := mustSimulate(t, run)
	if len(res.Stuck) != 2 {
		t.Fatalf("stuck %v, want both ranks", res.Stuck)
	}
	// MPI_ANY_TAG takes the first message whatever its tag: safe.
	anyTag := int(tracetest.Consts["MPI_ANY_TAG"])
	run = prog(2, func(r int, l *tracetest.Log) {
		if r == 0 {
			send(l, "MPI_Send", 1, 1)
			send(l, "MPI_Send", 1, 2)
		} else {
			recv(l, 0, anyTag)
			recv(l, 0, anyTag)
		}
	})
	if res := mustSimulate(t, run); len(res.Stuck) != 0 {
		t.Fatalf("stuck %v with MPI_ANY_TAG", res.Stuck)
	}
}

// A ring where every rank sends before it receives needs buffering.
func TestRing(t *testing.T) {
	run := prog(4, func(r int, l *tracetest.Log) {
		send(l, "MPI_Send", (r+1)%4, 0)
		recv(l, (r+3)%4, 0)
	})
	if res := mustSimulate(t, run); len(res.Stuck) != 4 {
		t.Fatalf("stuck %v, want all 4", res.Stuck)
	}
	// Even ranks send first, odd ones receive first: safe.
	run = prog(4, func(r int, l *tracetest.Log) {
		if r%2 == 0 {
			send(l, "MPI_Send", (r+1)%4, 0)
			recv(l, (r+3)%4, 0)
		} else {
			recv(l, (r+3)%4, 0)
			send(l, "MPI_Send", (r+1)%4, 0)
		}
	})
	if res := mustSimulate(t, run); len(res.Stuck) != 0 {
		t.Fatalf("stuck %v in the ordered ring", res.Stuck)
	}
}

// A collective may synchronise: a send whose receive comes after the
// receiver's barrier waits for a rank that waits in the barrier.
func TestCollectiveSynchronises(t *testing.T) {
	run := prog(2, func(r int, l *tracetest.Log) {
		if r == 0 {
			send(l, "MPI_Send", 1, 0)
			l.Call("MPI_Barrier", 20, map[string]any{"comm": worldComm}, done)
		} else {
			l.Call("MPI_Barrier", 20, map[string]any{"comm": worldComm}, done)
			recv(l, 0, 0)
		}
	})
	if res := mustSimulate(t, run); len(res.Stuck) != 2 {
		t.Fatalf("stuck %v, want both", res.Stuck)
	}
}

// A wildcard receive takes the source the run recorded; with none (no
// clocks, statuses ignored by MPI_Waitall), the run cannot be simulated.
func TestWildcardSource(t *testing.T) {
	anySrc := int(int64(tracetest.Consts["MPI_ANY_SOURCE"]))
	// Rank 0 receives from any source twice, got rank 2 first, then rank
	// 1; rank 1 sends before it receives from rank 2, and rank 2 sends to
	// rank 0 only after rank 1's message arrived.
	run := prog(3, func(r int, l *tracetest.Log) {
		switch r {
		case 0:
			l.Call("MPI_Recv", 11, map[string]any{"source": anySrc, "tag": 0, "comm": worldComm}, map[string]any{"status": [2]int64{2, 0}})
			l.Call("MPI_Recv", 11, map[string]any{"source": anySrc, "tag": 0, "comm": worldComm}, map[string]any{"status": [2]int64{1, 0}})
		case 1:
			send(l, "MPI_Send", 0, 0)
			send(l, "MPI_Send", 2, 5)
		case 2:
			recv(l, 1, 5)
			send(l, "MPI_Send", 0, 0)
		}
	})
	if res := mustSimulate(t, run); len(res.Stuck) != 3 {
		t.Fatalf("stuck %v, want all three (rank 1's send waits for rank 0's second receive)", res.Stuck)
	}
	run = prog(2, func(r int, l *tracetest.Log) {
		if r == 0 {
			irecv(l, anySrc, 0, 0x7000)
			l.Call("MPI_Waitall", 14, map[string]any{"count": 1, "array_of_requests": []uint64{0x7000}, "array_of_requests_at": uint64(0x7100),
				"array_of_requests_stride": 8}, map[string]any{"array_of_requests_out": []uint64{0x2000}})
		} else {
			send(l, "MPI_Send", 0, 0)
		}
	})
	if res := Simulate(run); res.Checked {
		t.Fatalf("simulated a wildcard receive with no recorded source: %+v", res)
	}
}

// Messages no receive took complete at once: their check reports them.
func TestUnreceivedMessage(t *testing.T) {
	run := prog(2, func(r int, l *tracetest.Log) {
		if r == 0 {
			send(l, "MPI_Send", 1, 0)
		}
	})
	if res := mustSimulate(t, run); len(res.Stuck) != 0 {
		t.Fatalf("stuck %v", res.Stuck)
	}
}

// A receive from MPI_ANY_SOURCE with no wildcard record (clocks off) takes
// the source its MPI_Wait's status gives: matched when that completion is
// read, after the receives read since.
func TestSourceFromStatus(t *testing.T) {
	anySrc := int(int64(tracetest.Consts["MPI_ANY_SOURCE"]))
	run := prog(3, func(r int, l *tracetest.Log) {
		switch r {
		case 0:
			irecv(l, anySrc, 0, 0x7000)
			recv(l, 1, 1)
			wait(l, 0x7000, [2]int64{2, 0})
		case 1:
			send(l, "MPI_Send", 0, 1)
		case 2:
			send(l, "MPI_Send", 0, 0)
		}
	})
	res := mustSimulate(t, run)
	if len(res.Stuck) != 0 || res.Matches != 2 {
		t.Fatalf("stuck %v, %d matches; want none stuck, 2 matches", res.Stuck, res.Matches)
	}
	// The same source sends twice: the receive from MPI_ANY_SOURCE,
	// posted first, takes the first message though its source is known
	// only at its MPI_Wait.
	run = prog(2, func(r int, l *tracetest.Log) {
		if r == 0 {
			irecv(l, anySrc, 0, 0x7000)
			wait(l, 0x7000, [2]int64{1, 0})
			recv(l, 1, 0)
		} else {
			send(l, "MPI_Send", 0, 0)
			send(l, "MPI_Send", 0, 0)
		}
	})
	if res := mustSimulate(t, run); len(res.Stuck) != 0 || res.Matches != 2 {
		t.Fatalf("stuck %v, %d matches; want none stuck, 2 matches", res.Stuck, res.Matches)
	}
}

// A long exchange, with collectives, is simulated as it is read, to its
// end.
func TestLongExchange(t *testing.T) {
	const iters = 20000
	run := prog(2, func(r int, l *tracetest.Log) {
		for i := 0; i < iters; i++ {
			irecv(l, 1-r, 0, 0x7000)
			send(l, "MPI_Send", 1-r, 0)
			wait(l, 0x7000, [2]int64{int64(1 - r), 0})
			if i%100 == 0 {
				l.Call("MPI_Barrier", 20, map[string]any{"comm": worldComm}, done)
			}
		}
	})
	if res := mustSimulate(t, run); len(res.Stuck) != 0 || res.Matches != 2*iters {
		t.Fatalf("stuck %v, %d matches; want none stuck, %d matches", res.Stuck, res.Matches, 2*iters)
	}
}

// A send read after its receiver ended, on a channel where a receive still
// waits for another message, is taken by no receive: it completes at once.
func TestSendAfterReceiverEnded(t *testing.T) {
	run := prog(2, func(r int, l *tracetest.Log) {
		if r == 0 {
			send(l, "MPI_Send", 1, 1) // never received
			send(l, "MPI_Send", 1, 3) // never received, read after rank 1 ended
			send(l, "MPI_Send", 1, 9)
		} else {
			recv(l, 0, 9)
		}
	})
	if res := mustSimulate(t, run); len(res.Stuck) != 0 || res.Matches != 1 {
		t.Fatalf("stuck %v, %d matches; want none stuck, 1 match", res.Stuck, res.Matches)
	}
}

// Messages pairs what a deadlocked run left: rank 2's message to rank 0,
// taken by rank 0's wildcard receive, and not the receives ranks 0 and 1
// are still blocked in.
func TestMessagesOfADeadlock(t *testing.T) {
	run := &trace.Run{}
	for r := 0; r < 3; r++ {
		l := tracetest.New(r, 3)
		l.Call("MPI_Init", 1, nil, done)
		switch r {
		case 0:
			anySrc := int(int64(tracetest.Consts["MPI_ANY_SOURCE"]))
			l.Call("MPI_Recv", 11, map[string]any{"source": anySrc, "tag": 0, "comm": worldComm, "count": 1},
				map[string]any{"status": [2]int64{2, 0}})
			l.Call("MPI_Recv", 12, map[string]any{"source": 1, "tag": 0, "comm": worldComm, "count": 1}, nil)
		case 1:
			l.Call("MPI_Recv", 12, map[string]any{"source": 0, "tag": 0, "comm": worldComm, "count": 1}, nil)
		case 2:
			send(l, "MPI_Send", 0, 0)
			l.Call("MPI_Finalize", 99, nil, done)
		}
		run.Procs = append(run.Procs, l.Process())
	}
	ps, why := Messages(run)
	if why != "" {
		t.Fatal(why)
	}
	if len(ps) != 1 || ps[0].From != 2 || ps[0].To != 0 || ps[0].Send.PC != 10 || ps[0].Recv.PC != 11 {
		t.Errorf("pairs %+v", ps)
	}
}

// A rank whose threads called MPI is refused, though its threads ended
// before the run did (the state page lists none of them among the live
// threads, only among the slots taken): their calls, read as one sequence,
// would make a false deadlock of a head-to-head exchange each thread makes
// in its own order.
func TestEndedThreadsRefused(t *testing.T) {
	run := prog(2, func(r int, l *tracetest.Log) {
		send(l, "MPI_Send", 1-r, 7)
		recv(l, 1-r, 7)
	})
	for _, p := range run.Procs {
		p.Slots = 2
	}
	res := Simulate(run)
	if res.Checked || !strings.Contains(res.Why, "several threads") {
		t.Errorf("simulated (checked %v, why %q, stuck %v), want refused", res.Checked, res.Why, res.Stuck)
	}
	for _, p := range run.Procs {
		p.Slots = 1
	}
	if res := Simulate(run); !res.Checked || len(res.Stuck) != 2 {
		t.Errorf("one thread: checked %v (%s), stuck %v, want both ranks stuck", res.Checked, res.Why, res.Stuck)
	}
}
