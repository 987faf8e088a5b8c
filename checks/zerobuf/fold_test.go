package zerobuf

import (
	"testing"

	"mpivet/trace"
	"mpivet/trace/tracetest"
)

// ring is an iteration of a ring exchange on 4 ranks, safe without
// buffering (even ranks send first, odd ones receive first), but for the
// iterations bad says, in which every rank sends first.
func ring(r int, bad func(i int) bool) func(l *tracetest.Log, i int) {
	return func(l *tracetest.Log, i int) {
		if r%2 == 0 || bad(i) {
			send(l, "MPI_Send", (r+1)%4, 0)
			recv(l, (r+3)%4, 0)
		} else {
			recv(l, (r+3)%4, 0)
			send(l, "MPI_Send", (r+1)%4, 0)
		}
	}
}

// foldedRing is a run of the ring, each rank's iterations folded with its
// period (all the same length of loop: iterations) and bad's iterations
// written out between folded loops.
func foldedRing(n int, periods []int, bad func(i int) bool) *trace.Run {
	return prog(4, func(r int, l *tracetest.Log) {
		body := ring(r, bad)
		from := 0
		for i := 0; i <= n; i++ {
			if i == n || bad(i) {
				l.Loop(i-from, periods[r], func(l *tracetest.Log, j int) { body(l, from+j) })
				if i < n {
					body(l, i)
				}
				from = i + 1
			}
		}
	})
}

func records(run *trace.Run) (n uint64) {
	for _, p := range run.Procs {
		n += p.RecordsRead()
	}
	return n
}

// The ranks of a safe folded exchange leave their loops' repetitions out
// together: the replay reads as many records for 10 times the iterations,
// and says what it says when it reads everything.
func TestFoldedLoopsLeftOut(t *testing.T) {
	never := func(int) bool { return false }
	var read [2]uint64
	for k, n := range []int{1000, 10000} {
		run := foldedRing(n, []int{1, 1, 1, 1}, never)
		res := mustSimulate(t, run)
		read[k] = records(run)
		whole := replay(foldedRing(n, []int{1, 1, 1, 1}, never), false)
		if len(res.Stuck) != 0 || res.Matches != 4*n || whole.Matches != res.Matches {
			t.Fatalf("%d iterations: stuck %v, %d matches (read through: %d)", n, res.Stuck, res.Matches, whole.Matches)
		}
		if res.Folded < n-20 {
			t.Errorf("%d iterations: %d repetitions left out", n, res.Folded)
		}
	}
	if read[1] > read[0]+read[0]/10 {
		t.Errorf("10 times the iterations: %d records read, was %d", read[1], read[0])
	}
}

// A deadlock in a late iteration (the records break the fold there) is
// found at that iteration's call, and one in every iteration at the
// first; loops folded with other periods on each rank give what reading
// everything gives.
func TestFoldedLoopsDeadlocks(t *testing.T) {
	const n = 2000
	for _, c := range []struct {
		name    string
		periods []int
		bad     func(i int) bool
		seq     int // of the send rank 0 waits in (0: none stuck)
		folded  bool
	}{
		{"late", []int{1, 1, 1, 1}, func(i int) bool { return i == 1500 }, 1 + 2*1500, true},
		{"every", []int{1, 1, 1, 1}, func(int) bool { return true }, 1, false},
		{"periods", []int{1, 2, 3, 1}, func(i int) bool { return i == 1500 }, 1 + 2*1500, false},
		{"clean periods", []int{2, 2, 3, 2}, func(int) bool { return false }, 0, false},
	} {
		res := mustSimulate(t, foldedRing(n, c.periods, c.bad))
		whole := replay(foldedRing(n, c.periods, c.bad), false)
		if c.seq == 0 {
			if len(res.Stuck) != 0 || len(whole.Stuck) != 0 || res.Matches != whole.Matches {
				t.Errorf("%s: stuck %v, %d matches; read through: stuck %v, %d matches", c.name, res.Stuck, res.Matches, whole.Stuck, whole.Matches)
			}
			continue
		}
		if len(res.Stuck) != 4 || res.Stuck[0].Call.Seq != c.seq || res.Stuck[0].Call.Name() != "MPI_Send" {
			t.Errorf("%s: stuck %v, want all 4 ranks, rank 0 in call %d", c.name, res.Stuck, c.seq)
			continue
		}
		for i, b := range res.Stuck {
			if w := whole.Stuck[i]; w.Rank != b.Rank || w.Call.Seq != b.Call.Seq || w.Call.Offset != b.Call.Offset {
				t.Errorf("%s: rank %d stuck in call %d at %d; read through: %d at %d", c.name, b.Rank, b.Call.Seq, b.Call.Offset, w.Call.Seq, w.Call.Offset)
			}
		}
		if c.folded && res.Folded < 1000 {
			t.Errorf("%s: %d repetitions left out", c.name, res.Folded)
		}
	}
}

// A rank whose loop is folded in two parts (its records break the fold at
// one iteration) cannot leave out what the others did: the replay reads
// everything again, and says what reading everything says.
func TestFoldedLoopsUneven(t *testing.T) {
	const n = 2000
	never := func(int) bool { return false }
	mk := func() *trace.Run {
		return prog(4, func(r int, l *tracetest.Log) {
			body := ring(r, never)
			if r != 3 {
				l.Loop(n, 1, body)
				return
			}
			l.Loop(1200, 1, body)
			l.Loop(n-1200, 1, func(l *tracetest.Log, j int) { body(l, 1200+j) })
		})
	}
	res, whole := mustSimulate(t, mk()), replay(mk(), false)
	if len(res.Stuck) != 0 || res.Matches != 4*n || whole.Matches != res.Matches || len(whole.Stuck) != 0 {
		t.Fatalf("stuck %v, %d matches; read through: stuck %v, %d matches", res.Stuck, res.Matches, whole.Stuck, whole.Matches)
	}
	if replay(mk(), true) != nil {
		t.Errorf("the ranks left out different repetitions, and the replay went on")
	}
}

// An exchange of requests with a barrier every 10 iterations, folded 10
// iterations a repetition: left out together when safe; when both ranks
// send before they post their receive in iteration 2,500 (the records
// break the fold there), both are found in that iteration's send.
func TestFoldedExchangeWithRequests(t *testing.T) {
	const n = 3000
	mk := func(bad int) *trace.Run {
		return prog(2, func(r int, l *tracetest.Log) {
			body := func(l *tracetest.Log, i int) {
				if i == bad {
					send(l, "MPI_Send", 1-r, 0)
					irecv(l, 1-r, 0, 0x7000)
				} else {
					irecv(l, 1-r, 0, 0x7000)
					send(l, "MPI_Send", 1-r, 0)
				}
				wait(l, 0x7000, [2]int64{int64(1 - r), 0})
				if i%10 == 0 {
					l.Call("MPI_Barrier", 20, map[string]any{"comm": worldComm}, done)
				}
			}
			if bad < 0 {
				l.Loop(n, 10, body)
				return
			}
			l.Loop(bad, 10, body)
			body(l, bad)
			l.Loop(n-bad-1, 10, func(l *tracetest.Log, j int) { body(l, bad+1+j) })
		})
	}
	res := mustSimulate(t, mk(-1))
	if len(res.Stuck) != 0 || res.Matches != 2*n || res.Folded < n/10-20 {
		t.Fatalf("stuck %v, %d matches, %d repetitions left out", res.Stuck, res.Matches, res.Folded)
	}
	res, whole := mustSimulate(t, mk(2500)), replay(mk(2500), false)
	if len(res.Stuck) != 2 || res.Folded < 200 || res.Stuck[0].Call.Name() != "MPI_Send" {
		t.Fatalf("stuck %v, %d repetitions left out; want both ranks in a send", res.Stuck, res.Folded)
	}
	for i, b := range res.Stuck {
		if w := whole.Stuck[i]; w.Call.Seq != b.Call.Seq || w.Call.Offset != b.Call.Offset {
			t.Errorf("rank %d stuck in call %d; read through: %d", b.Rank, b.Call.Seq, w.Call.Seq)
		}
	}
}
