package waitstate

import (
	"fmt"
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
	p0.Threads = []*trace.Call{p0.CallList()[1], {Def: p0.CallList()[0].Def, Returned: true}}
	p0.Current = p0.Threads[0]
	l1 := tracetest.New(1, 2)
	l1.Call("MPI_Init", 1, nil, map[string]any{})
	l1.Call("MPI_Recv", 2, map[string]any{"source": 0, "comm": uint64(0x1000)}, nil)
	run := &trace.Run{Procs: []*trace.Process{p0, l1.Process()}}
	if a := Analyze(run); len(a.Deadlocked) != 0 {
		t.Fatalf("deadlocked %v; rank 0 has a thread outside MPI", a.Deadlocked)
	}
	// The stall watch saw that thread asleep where only the rank's own
	// threads can wake it, and every other thread outside MPI so too: the
	// rank, whose other thread receives from rank 1, is blocked.
	l0 = tracetest.New(0, 2)
	l0.Call("MPI_Init_thread", 1, nil, map[string]any{"provided": 3})
	l0.Call("MPI_Recv", 2, map[string]any{"source": 1, "comm": uint64(0x1000)}, nil)
	p0 = l0.Process()
	p0.Threads = []*trace.Call{p0.CallList()[1], {Def: p0.CallList()[0].Def, Returned: true}}
	p0.Current = p0.Threads[0]
	run.Procs[0] = p0
	if a := Analyze(run); len(a.Deadlocked) != 0 {
		t.Fatalf("deadlocked %v; rank 0 has a thread outside MPI", a.Deadlocked)
	}
	p0.ThreadSlots = []int{0, 1}
	sleeping := trace.SleepingThread{TID: 11, Slot: 1, Wait: "futex FUTEX_WAIT"}
	p0.Asleep = &trace.Asleep{All: true, Threads: []trace.SleepingThread{sleeping}}
	if a := Analyze(run); len(a.Deadlocked) != 2 {
		t.Fatalf("deadlocked %v; rank 0's thread outside MPI sleeps for good", a.Deadlocked)
	}
	// Not if another thread outside MPI may still wake it, nor if the
	// sleeping thread is another than the one outside MPI.
	p0.Asleep.All = false
	if a := Analyze(run); len(a.Deadlocked) != 0 {
		t.Fatalf("deadlocked %v; another thread of rank 0 may wake its sleeper", a.Deadlocked)
	}
	p0.Asleep.All, p0.Asleep.Threads[0].Slot = true, -1
	if a := Analyze(run); len(a.Deadlocked) != 0 {
		t.Fatalf("deadlocked %v; rank 0's thread outside MPI was not seen asleep", a.Deadlocked)
	}
}

// A thread outside MPI that ran during the stall's delay may still act,
// whether or not it ever called MPI: its rank, whose MPI threads are all
// blocked, is not; a thread in MPI_Finalize keeps the rank blocked, and the
// same thread seen asleep or ended no longer counts.
func TestThreadRunningOutsideMPI(t *testing.T) {
	recv := func(rank, peer int) *trace.Process {
		l := tracetest.New(rank, 2)
		l.Call("MPI_Init_thread", 1, nil, map[string]any{"provided": 3})
		l.Call("MPI_Recv", 2, map[string]any{"source": peer, "comm": worldComm}, nil)
		return l.Process()
	}
	p0, p1 := recv(0, 1), recv(1, 0)
	run := &trace.Run{Procs: []*trace.Process{p0, p1}}
	if a := Analyze(run); len(a.Deadlocked) != 2 {
		t.Fatalf("deadlocked %v, want 0, 1", a.Deadlocked)
	}
	// one thread called MPI, another that never did computes
	p0.Asleep = &trace.Asleep{Running: []int{12}}
	if a := Analyze(run); len(a.Deadlocked) != 0 {
		t.Fatalf("deadlocked %v; a thread of rank 0 computes", a.Deadlocked)
	}
	// several threads called MPI, all blocked in it
	p0.Threads = []*trace.Call{p0.CallList()[1], p0.CallList()[1]}
	p0.ThreadSlots = []int{0, 1}
	p0.Current = p0.Threads[0]
	if a := Analyze(run); len(a.Deadlocked) != 0 {
		t.Fatalf("deadlocked %v; a thread of rank 0 computes (two in MPI)", a.Deadlocked)
	}
	p0.Asleep = &trace.Asleep{All: true, Threads: []trace.SleepingThread{{TID: 12, Slot: -1, Wait: "futex FUTEX_WAIT"}}}
	if a := Analyze(run); len(a.Deadlocked) != 2 {
		t.Fatalf("deadlocked %v; rank 0's other thread sleeps for good", a.Deadlocked)
	}
	p0.Asleep = &trace.Asleep{All: true} // it ended
	if a := Analyze(run); len(a.Deadlocked) != 2 {
		t.Fatalf("deadlocked %v; rank 0's other thread ended", a.Deadlocked)
	}
	l := tracetest.New(0, 2)
	l.Call("MPI_Init_thread", 1, nil, map[string]any{"provided": 3})
	l.Call("MPI_Finalize", 2, map[string]any{}, nil)
	run.Procs[0] = l.Process()
	run.Procs[0].Asleep = &trace.Asleep{Running: []int{12}}
	if a := Analyze(run); len(a.Deadlocked) != 2 {
		t.Fatalf("deadlocked %v; rank 1 waits for rank 0, in MPI_Finalize", a.Deadlocked)
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

const worldComm = uint64(0x1000)

// exchange is a rank that posted an MPI_Irecv from peer (tag rtag, on
// comm) and is now in call, which has not returned.
func exchange(rank, peer int, rtag int, comm uint64, call string, in map[string]any) *tracetest.Log {
	l := tracetest.New(rank, 2)
	l.Call("MPI_Init", 1, nil, map[string]any{})
	l.Call("MPI_Irecv", 2, map[string]any{"source": peer, "tag": rtag, "comm": comm, "request_at": uint64(0x100)},
		map[string]any{"request": uint64(0x7000 + rank)})
	l.Call(call, 3, in, nil)
	return l
}

func procs(ls ...*tracetest.Log) *trace.Run {
	var ps []*trace.Process
	for _, l := range ls {
		ps = append(ps, l.Process())
	}
	return &trace.Run{Procs: ps}
}

// A rank inside a call that never blocks is running, whatever keeps it
// there: ranks each polling for the other's message are no deadlock, while
// the same ranks in MPI_Wait are.
func TestPollingCallsNeverBlock(t *testing.T) {
	for _, tc := range []struct {
		call string
		in   func(rank int) map[string]any
		dead bool
	}{
		{"MPI_Testany", func(r int) map[string]any {
			return map[string]any{"count": 1, "array_of_requests": []uint64{uint64(0x7000 + r)}}
		}, false},
		{"MPI_Test", func(r int) map[string]any { return map[string]any{"request": uint64(0x7000 + r)} }, false},
		{"MPI_Testall", func(r int) map[string]any {
			return map[string]any{"count": 1, "array_of_requests": []uint64{uint64(0x7000 + r)}}
		}, false},
		{"MPI_Iprobe", func(r int) map[string]any { return map[string]any{"source": 1 - r, "tag": 5, "comm": worldComm} }, false},
		{"MPI_Isend", func(r int) map[string]any { return map[string]any{"dest": 1 - r, "tag": 5, "comm": worldComm} }, false},
		{"MPI_Wait", func(r int) map[string]any { return map[string]any{"request": uint64(0x7000 + r)} }, true},
		{"MPI_Probe", func(r int) map[string]any { return map[string]any{"source": 1 - r, "tag": 5, "comm": worldComm} }, true},
	} {
		a := Analyze(procs(exchange(0, 1, 0, worldComm, tc.call, tc.in(0)), exchange(1, 0, 0, worldComm, tc.call, tc.in(1))))
		if dead := len(a.Deadlocked) > 0; dead != tc.dead {
			t.Errorf("both ranks in %s: deadlocked %v, want %v", tc.call, a.Deadlocked, tc.dead)
		}
	}
}

// Irecv posted, then MPI_Send to each other: the most common exchange. Each
// send's receive is posted, so neither waits for the other's current call;
// a receive posted with another tag, on another communicator or from
// another rank does not release the send.
func TestPostedReceiveReleasesSend(t *testing.T) {
	dup := uint64(0x5000)
	for _, tc := range []struct {
		name       string
		rtag, stag int
		rcomm      uint64
		dead       bool
	}{
		{"matching", 0, 0, worldComm, false},
		{"any tag", -1, 7, worldComm, false}, // tracetest's MPI_ANY_TAG is -1
		{"other tag", 1, 0, worldComm, true},
		{"other communicator", 0, 0, dup, true},
	} {
		var ls []*tracetest.Log
		for r := 0; r < 2; r++ {
			l := tracetest.New(r, 2)
			l.Call("MPI_Init", 1, nil, map[string]any{})
			l.Call("MPI_Comm_dup", 2, map[string]any{"comm": worldComm}, map[string]any{"newcomm": dup})
			l.NewComm(dup, 0, 1)
			l.Call("MPI_Irecv", 3, map[string]any{"source": 1 - r, "tag": tc.rtag, "comm": tc.rcomm, "request_at": uint64(0x100)},
				map[string]any{"request": uint64(0x7000)})
			l.Call("MPI_Send", 4, map[string]any{"dest": 1 - r, "tag": tc.stag, "comm": worldComm}, nil)
			ls = append(ls, l)
		}
		run := procs(ls...)
		a := Analyze(run)
		if dead := len(a.Deadlocked) > 0; dead != tc.dead {
			t.Errorf("%s: deadlocked %v, want %v", tc.name, a.Deadlocked, tc.dead)
		}
	}
}

// A receive whose source is in the middle of sending it a matching message
// (here inside MPI_Sendrecv) waits for no one: no deadlock, although each
// rank's call names the other as its source.
func TestReceiveFromSendingRank(t *testing.T) {
	l0 := tracetest.New(0, 2)
	l0.Call("MPI_Init", 1, nil, map[string]any{})
	l0.Call("MPI_Recv", 2, map[string]any{"source": 1, "tag": 0, "comm": worldComm}, nil)
	l1 := tracetest.New(1, 2)
	l1.Call("MPI_Init", 1, nil, map[string]any{})
	l1.Call("MPI_Sendrecv", 2, map[string]any{"dest": 0, "sendtag": 0, "source": 0, "recvtag": 0, "comm": worldComm}, nil)
	if a := Analyze(procs(l0, l1)); len(a.Deadlocked) != 0 {
		t.Fatalf("deadlocked %v", a.Deadlocked)
	}
	// Without the send half, the two receives wait for each other.
	l1 = tracetest.New(1, 2)
	l1.Call("MPI_Init", 1, nil, map[string]any{})
	l1.Call("MPI_Recv", 2, map[string]any{"source": 0, "tag": 0, "comm": worldComm}, nil)
	if a := Analyze(procs(l0, l1)); len(a.Deadlocked) != 2 {
		t.Fatalf("deadlocked %v, want both", a.Deadlocked)
	}
}

// A rank the run driver found stopped or unscheduled counts as running.
func TestSuspendedRankCanAct(t *testing.T) {
	var ls []*tracetest.Log
	for r := 0; r < 2; r++ {
		l := tracetest.New(r, 2)
		l.Call("MPI_Init", 1, nil, map[string]any{})
		l.Call("MPI_Recv", 2, map[string]any{"source": 1 - r, "tag": 0, "comm": worldComm}, nil)
		ls = append(ls, l)
	}
	run := procs(ls...)
	if a := Analyze(run); len(a.Deadlocked) != 2 {
		t.Fatalf("deadlocked %v, want both", a.Deadlocked)
	}
	run.Procs[1].Suspended = true
	if a := Analyze(run); len(a.Deadlocked) != 0 {
		t.Fatalf("deadlocked %v with rank 1 stopped", a.Deadlocked)
	}
}

// A send to a rank in MPI_Finalize waits forever whatever the buffering:
// the deadlock is not one that buffering would remove (unlike head-to-head
// sends), and the rank sending to it is recorded for the report.
func TestSendToFinalizingRank(t *testing.T) {
	l0 := tracetest.New(0, 2)
	l0.Call("MPI_Init", 1, nil, map[string]any{})
	l0.Call("MPI_Finalize", 2, nil, nil)
	l1 := tracetest.New(1, 2)
	l1.Call("MPI_Init", 1, nil, map[string]any{})
	l1.Call("MPI_Send", 2, map[string]any{"dest": 0, "tag": 0, "comm": worldComm}, nil)
	run := procs(l0, l1)
	a := Analyze(run)
	if len(a.Deadlocked) != 2 || a.NeedsBuffering() {
		t.Fatalf("deadlocked %v, needs buffering %v; want both, no", a.Deadlocked, a.NeedsBuffering())
	}
	if r := a.Ranks[1]; len(r.SendsTo) != 1 || r.SendsTo[0] != 0 || !a.Ranks[0].Finalizing {
		t.Fatalf("rank 1 sends to %v; rank 0 finalizing %v", r.SendsTo, a.Ranks[0].Finalizing)
	}
	// Head-to-head sends deadlock only without buffering.
	var ls []*tracetest.Log
	for r := 0; r < 2; r++ {
		l := tracetest.New(r, 2)
		l.Call("MPI_Init", 1, nil, map[string]any{})
		l.Call("MPI_Send", 2, map[string]any{"dest": 1 - r, "tag": 0, "comm": worldComm}, nil)
		ls = append(ls, l)
	}
	run = procs(ls...)
	if a := Analyze(run); len(a.Deadlocked) != 2 || !a.NeedsBuffering() {
		t.Fatalf("head to head: deadlocked %v, needs buffering %v", a.Deadlocked, a.NeedsBuffering())
	}
}

// The wait-for graph, and so the order of the cores and the DOT file, is
// the same in every analysis of one run.
func TestDeterministicGraph(t *testing.T) {
	var ps []*trace.Process
	for r := 0; r < 6; r++ {
		l := tracetest.New(r, 6)
		l.Call("MPI_Init", 1, nil, map[string]any{})
		l.Call("MPI_Recv", 2, map[string]any{"source": r ^ 1, "tag": 0, "comm": worldComm}, nil)
		ps = append(ps, l.Process())
	}
	run := &trace.Run{Procs: ps}
	first := Analyze(run)
	if len(first.Cores) != 3 {
		t.Fatalf("cores %v, want three pairs", first.Cores)
	}
	for i := 0; i < 20; i++ {
		a := Analyze(run)
		if fmt.Sprint(a.Cores) != fmt.Sprint(first.Cores) || a.Graph.DOT() != first.Graph.DOT() {
			t.Fatalf("analysis %d: cores %v, first %v; or another graph", i, a.Cores, first.Cores)
		}
	}
}

// sendrecvRun is three ranks: rank 0 made only the call zero (nil: only
// MPI_Init, it is computing), ranks 1 and 2 are in the calls of one and two.
func sendrecvRun(zero, one, two func(l *tracetest.Log)) *trace.Run {
	var ls []*tracetest.Log
	for r, f := range []func(*tracetest.Log){zero, one, two} {
		l := tracetest.New(r, 3)
		l.Call("MPI_Init", 1, nil, map[string]any{})
		if f != nil {
			f(l)
		}
		ls = append(ls, l)
	}
	return procs(ls...)
}

func sendrecv(dest, stag, source, rtag int) func(*tracetest.Log) {
	return func(l *tracetest.Log) {
		l.Call("MPI_Sendrecv", 2, map[string]any{"dest": dest, "sendtag": stag, "source": source, "recvtag": rtag, "comm": worldComm}, nil)
	}
}

func call(name string, in map[string]any) func(*tracetest.Log) {
	return func(l *tracetest.Log) { l.Call(name, 2, in, nil) }
}

// The send half of a blocked MPI_Sendrecv may have completed (an eager
// message not yet received): it counts only where the records show that
// it is what keeps the call. Two ranks that sent each other a message in
// their Sendrecv, each receiving from a rank still computing, are no
// deadlock (testdata/programs/clean_sendrecv_stall.c); once that rank has
// sent (and is in MPI_Finalize), their sends are what keeps them, and
// buffering would have released them (deadlock_sendrecv_stall.c).
func TestSendrecvHalves(t *testing.T) {
	const procNull, anySource = -1, -2 // tracetest's (MPICH's) values
	finalize := call("MPI_Finalize", nil)
	for _, tc := range []struct {
		name           string
		run            *trace.Run
		dead           []int
		needsBuffering bool
	}{
		{"sends to each other, receive from a computing rank",
			sendrecvRun(nil, sendrecv(2, 1, 0, 0), sendrecv(1, 1, 0, 0)), nil, false},
		{"... from a rank in MPI_Finalize",
			sendrecvRun(finalize, sendrecv(2, 1, 0, 0), sendrecv(1, 1, 0, 0)), []int{0, 1, 2}, true},
		// clean_wildcards.c, rank 0 slow: rank 1's Sendrecv took rank 2's
		// message and rank 1 went on to a collective.
		{"wildcard receive, destination past the exchange",
			sendrecvRun(nil, call("MPI_Barrier", map[string]any{"comm": worldComm}), sendrecv(1, 14, anySource, 14)), nil, false},
		{"... from a rank in MPI_Finalize, destination receiving the send: the message never came",
			sendrecvRun(finalize, sendrecv(2, 1, 0, 0), call("MPI_Recv", map[string]any{"source": 1, "tag": 1, "comm": worldComm})),
			[]int{0, 1}, false},
		{"receive from MPI_PROC_NULL: the send keeps it",
			sendrecvRun(nil, sendrecv(2, 1, procNull, 0), call("MPI_Recv", map[string]any{"source": 1, "tag": 5, "comm": worldComm})),
			[]int{1, 2}, true},
		{"ring, each receiving what the previous sends",
			sendrecvRun(sendrecv(1, 0, 2, 0), sendrecv(2, 0, 0, 0), sendrecv(0, 0, 1, 0)), nil, false},
		{"ring, receiving with another tag than is sent",
			sendrecvRun(sendrecv(1, 0, 2, 1), sendrecv(2, 0, 0, 1), sendrecv(0, 0, 1, 1)), []int{0, 1, 2}, false},
		{"receive half will complete, destination receives with another tag",
			sendrecvRun(call("MPI_Send", map[string]any{"dest": 1, "tag": 0, "comm": worldComm}),
				sendrecv(2, 1, 0, 0), call("MPI_Recv", map[string]any{"source": 1, "tag": 9, "comm": worldComm})),
			[]int{1, 2}, true},
	} {
		a := Analyze(tc.run)
		if fmt.Sprint(a.Deadlocked) != fmt.Sprint(tc.dead) && !(len(a.Deadlocked) == 0 && tc.dead == nil) {
			t.Errorf("%s: deadlocked %v, want %v", tc.name, a.Deadlocked, tc.dead)
		}
		if a.NeedsBuffering() != tc.needsBuffering {
			t.Errorf("%s: needs buffering %v, want %v", tc.name, a.NeedsBuffering(), tc.needsBuffering)
		}
	}
}

// A wait on a started persistent collective (MPI 4.0) waits for the
// members that have not started their own as many times: its n-th start
// meets every member's n-th start of the initialization at the same
// position on the communicator, whatever else they started since.
func TestStartedPersistentCollective(t *testing.T) {
	const req, other = uint64(0x7000), uint64(0x7100)
	for _, tc := range []struct {
		name     string
		starts   [2]int // how many times each rank started the broadcast
		dead     bool
		initRoot int // rank 1's root
	}{
		{"both started", [2]int{1, 1}, false, 0},
		{"rank 1 never started", [2]int{1, 0}, true, 0},
		{"rank 1 started once less", [2]int{2, 1}, true, 0},
		{"rank 1 started more", [2]int{1, 2}, false, 0},
		{"another root", [2]int{1, 1}, true, 1},
	} {
		var ls []*tracetest.Log
		for r := 0; r < 2; r++ {
			l := tracetest.New(r, 2)
			l.Call("MPI_Init", 1, nil, map[string]any{})
			// a barrier initialized first, started once by rank 1 only: a
			// start of another persistent collective is not this one's
			l.Call("MPI_Barrier_init", 2, map[string]any{"comm": worldComm}, map[string]any{"request": other})
			root := 0
			if r == 1 {
				root = tc.initRoot
				l.Call("MPI_Start", 3, map[string]any{"request": other}, map[string]any{"request_out": other})
			}
			l.Call("MPI_Bcast_init", 4, map[string]any{"comm": worldComm, "root": root}, map[string]any{"request": req})
			for i := 0; i < tc.starts[r]; i++ {
				if i > 0 {
					l.Call("MPI_Wait", 5, map[string]any{"request": req}, map[string]any{"request_out": req})
				}
				l.Call("MPI_Start", 6, map[string]any{"request": req}, map[string]any{"request_out": req})
			}
			if r == 0 {
				l.Call("MPI_Wait", 7, map[string]any{"request": req}, nil) // blocked
			} else {
				l.Call("MPI_Recv", 8, map[string]any{"source": 0, "tag": 0, "comm": worldComm}, nil) // blocked
			}
			ls = append(ls, l)
		}
		a := Analyze(procs(ls...))
		if dead := len(a.Deadlocked) > 0; dead != tc.dead {
			t.Errorf("%s: deadlocked %v, want %v", tc.name, a.Deadlocked, tc.dead)
		}
	}
}

// A wait on a generalized request waits for the rank itself: once the rank
// has called MPI_Grequest_complete on it the wait returns, before that only
// another thread of the rank, outside MPI, can complete it.
func TestGeneralizedRequest(t *testing.T) {
	const req = uint64(0x9000)
	for _, tc := range []struct {
		name              string
		completed, thread bool
		dead              bool
	}{
		{"never completed", false, false, true},
		{"completed before the wait", true, false, false},
		{"a thread outside MPI may complete it", false, true, false},
	} {
		l := tracetest.New(0, 1)
		l.Call("MPI_Init_thread", 1, nil, map[string]any{"provided": 3})
		l.Call("MPI_Grequest_start", 2, map[string]any{}, map[string]any{"request": req})
		if tc.completed {
			l.Call("MPI_Grequest_complete", 3, map[string]any{"request": req}, map[string]any{})
		}
		l.Call("MPI_Wait", 4, map[string]any{"request": req}, nil) // blocked
		p := l.Process()
		if tc.thread {
			calls := p.CallList()
			p.Threads = []*trace.Call{calls[len(calls)-1], {Def: calls[0].Def, Returned: true}}
			p.Current = p.Threads[0]
		}
		a := Analyze(&trace.Run{Procs: []*trace.Process{p}})
		if dead := len(a.Deadlocked) > 0; dead != tc.dead {
			t.Errorf("%s: deadlocked %v, want %v", tc.name, a.Deadlocked, tc.dead)
		}
	}
}
