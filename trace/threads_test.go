package trace_test

import (
	"testing"

	"mpivet/api"
	"mpivet/trace"
	"mpivet/trace/tracetest"
)

// A thread's identity is its path among the threads the program created,
// a byte a level; the records of a run map its header numbers to them.
func TestThreadIdentity(t *testing.T) {
	for _, c := range []struct {
		id   uint32
		path string
	}{{0, "0"}, {3, "3"}, {0x0103, "3.1"}, {0xff02ff, "255.2.255"}} {
		if got := trace.ThreadPath(c.id); got != c.path {
			t.Errorf("ThreadPath(%#x) = %q, want %q", c.id, got, c.path)
		}
		if id, err := trace.ParseThreadPath(c.path); err != nil || id != c.id {
			t.Errorf("ParseThreadPath(%q) = %#x, %v", c.path, id, err)
		}
	}
	for _, bad := range []string{"", "0.1", "256", "1.2.3.4", "x"} {
		if _, err := trace.ParseThreadPath(bad); err == nil {
			t.Errorf("ParseThreadPath(%q) accepted", bad)
		}
	}
	if got := trace.ThreadPath(api.ThreadUnnamed | 7); got != "#7" {
		t.Errorf("unnamed thread: %q", got)
	}

	l := tracetest.New(0, 2)
	l.Call("MPI_Init", 0x10, nil, map[string]any{})
	l.Meta(api.MetaThread, 1, 0x0102, 4242, 0, ^uint64(0)) // header number 1: thread 2.1, no OpenMP
	l.Meta(api.MetaThread, 2, 3, 4243, 0, 2)               // header number 2: thread 3, OpenMP thread 2
	p := l.Process()
	for no, want := range map[uint8]uint32{0: 0, 1: 0x0102, 2: 3, 5: api.ThreadUnnamed | 5} {
		if got := p.ThreadOf(no); got != want {
			t.Errorf("ThreadOf(%d) = %#x, want %#x", no, got, want)
		}
	}
	for _, c := range []struct{ got, want string }{
		{p.ThreadName(0), "thread 0 (the main thread)"},
		{p.ThreadName(0x0102), "thread 2.1"},
		{p.ThreadName(3), "OpenMP thread 2 (thread 3)"},
		{p.SlotThreadName(1), "thread 2.1"},
		{p.SlotThreadName(api.StateSlots - 1), "a thread past the first 7"},
		{p.EventName(4), "event 4"},
		{p.EventName(0x0102<<32 | 1), "thread 2.1's event 1"},
		{trace.EventName(3<<32 | 0), "thread 3's event 0"},
	} {
		if c.got != c.want {
			t.Errorf("%q, want %q", c.got, c.want)
		}
	}
}

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
