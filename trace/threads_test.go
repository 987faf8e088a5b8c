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
