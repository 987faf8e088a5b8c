package threadsharing_test

import (
	"strings"
	"testing"

	"mpivet/api"
	"mpivet/check"
	"mpivet/checks/threadsharing"
	"mpivet/trace"
	"mpivet/trace/tracetest"
)

// multiple starts the log of a rank that got MPI_THREAD_MULTIPLE.
func multiple() *tracetest.Log {
	l := tracetest.New(0, 2)
	l.Meta(api.MetaProcess, 0, 2, 100, 3, 0)
	l.Call("MPI_Init_thread", 1, map[string]any{"required": 3}, map[string]any{"provided": 3})
	return l
}

func findings(t *testing.T, l *tracetest.Log) []check.Finding {
	t.Helper()
	l.Thread = 0
	l.Call("MPI_Finalize", 99, nil, map[string]any{})
	p := l.Process()
	p.Exit = &trace.Exit{Exited: true}
	fs, err := check.Run([]*check.Check{threadsharing.Check}, &check.Input{Run: &trace.Run{Procs: []*trace.Process{p}}, NP: 1})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func one(t *testing.T, fs []check.Finding, says string) {
	t.Helper()
	if len(fs) != 1 || !strings.Contains(fs[0].Message, says) || len(fs[0].Locations) != 2 {
		t.Fatalf("findings %+v, want one saying %q", fs, says)
	}
}

// wait appends thread th's MPI_Wait on req, returning the offset of its
// entry record for its exit.
func wait(l *tracetest.Log, th uint8, pc, req uint64) uint64 {
	l.Thread = th
	return l.Call("MPI_Wait", pc, map[string]any{"request": req}, nil)
}

func done(l *tracetest.Log, th uint8, off uint64) {
	l.Thread = th
	l.Exit("MPI_Wait", off, map[string]any{"request_out": tracetest.Consts["MPI_REQUEST_NULL"]})
}

func TestRequestWaitedByTwoThreads(t *testing.T) {
	l := multiple()
	l.Call("MPI_Irecv", 5, nil, map[string]any{"request": uint64(0x77)})
	a := wait(l, 1, 10, 0x77)
	b := wait(l, 2, 20, 0x77)
	done(l, 1, a)
	done(l, 2, b)
	one(t, findings(t, l), "complete the same request in two threads at once")
}

// Each thread its own request, or the same request one thread after the
// other: no finding.
func TestOwnRequestsOrTurns(t *testing.T) {
	l := multiple()
	a := wait(l, 1, 10, 0x77)
	b := wait(l, 2, 20, 0x78)
	done(l, 1, a)
	done(l, 2, b)
	c := wait(l, 1, 30, 0x79)
	done(l, 1, c)
	d := wait(l, 2, 40, 0x79)
	done(l, 2, d)
	if fs := findings(t, l); len(fs) != 0 {
		t.Fatalf("findings: %+v", fs)
	}
}

func TestStartTwice(t *testing.T) {
	l := multiple()
	l.Thread = 1
	a := l.Call("MPI_Start", 10, map[string]any{"request": uint64(0x90)}, nil)
	l.Thread = 2
	l.Call("MPI_Start", 20, map[string]any{"request": uint64(0x90)}, map[string]any{"request_out": uint64(0x90)})
	l.Thread = 1
	l.Exit("MPI_Start", a, map[string]any{"request_out": uint64(0x90)})
	one(t, findings(t, l), "start the same persistent request")
}

func TestCommFreedInUse(t *testing.T) {
	l := multiple()
	l.Thread = 1
	a := l.Call("MPI_Barrier", 10, map[string]any{"comm": uint64(0x1010)}, nil)
	l.Thread = 0
	l.Call("MPI_Comm_free", 20, map[string]any{"comm": uint64(0x1010)}, map[string]any{})
	l.Thread = 1
	l.Exit("MPI_Barrier", a, map[string]any{})
	one(t, findings(t, l), "frees the communicator that another thread's MPI_Barrier is using")
}

// probeRecv appends a probe then a receive of thread th, on source 1 and
// tag 0 (or the probes of both threads first, with split).
func probeRecv(l *tracetest.Log, split bool) {
	env := map[string]any{"source": 1, "tag": 0, "comm": tracetest.Consts["MPI_COMM_WORLD"]}
	for th := uint8(1); th <= 2; th++ {
		l.Thread = th
		l.Call("MPI_Probe", 10, env, map[string]any{})
		if !split {
			l.Call("MPI_Recv", 20, env, map[string]any{})
		}
	}
	for th := uint8(1); split && th <= 2; th++ {
		l.Thread = th
		l.Call("MPI_Recv", 20, env, map[string]any{})
	}
}

func TestProbeRecvSplit(t *testing.T) {
	l := multiple()
	probeRecv(l, true)
	one(t, findings(t, l), "Use MPI_Mprobe")
	l = multiple()
	probeRecv(l, false) // each thread's probe and receive together
	if fs := findings(t, l); len(fs) != 0 {
		t.Fatalf("findings: %+v", fs)
	}
}

// Below MPI_THREAD_MULTIPLE the check says nothing (thread-level does).
func TestOnlyUnderMultiple(t *testing.T) {
	l := tracetest.New(0, 2)
	a := wait(l, 1, 10, 0x77)
	b := wait(l, 2, 20, 0x77)
	done(l, 1, a)
	done(l, 2, b)
	if fs := findings(t, l); len(fs) != 0 {
		t.Fatalf("findings: %+v", fs)
	}
}

// A request handle freed when one thread's wait completes it, and made anew
// for another thread's receive before the first wait's exit record: two
// requests, no finding.
func TestHandleReused(t *testing.T) {
	l := multiple()
	l.Thread = 1
	l.Call("MPI_Irecv", 5, nil, map[string]any{"request": uint64(0x77)})
	a := wait(l, 1, 10, 0x77)
	l.Thread = 2
	l.Call("MPI_Irecv", 15, nil, map[string]any{"request": uint64(0x77)})
	b := wait(l, 2, 20, 0x77)
	done(l, 1, a)
	done(l, 2, b)
	if fs := findings(t, l); len(fs) != 0 {
		t.Fatalf("findings: %+v", fs)
	}
}

// Each thread's send completes at once and gets the same static handle
// (Open MPI): each thread waits for its own, no finding.
func TestStaticHandle(t *testing.T) {
	l := multiple()
	for th := uint8(1); th <= 2; th++ {
		l.Thread = th
		l.Call("MPI_Isend", 5, nil, map[string]any{"request": uint64(0xcc0)})
	}
	a := wait(l, 1, 10, 0xcc0)
	b := wait(l, 2, 20, 0xcc0)
	done(l, 1, a)
	done(l, 2, b)
	if fs := findings(t, l); len(fs) != 0 {
		t.Fatalf("findings: %+v", fs)
	}
}
