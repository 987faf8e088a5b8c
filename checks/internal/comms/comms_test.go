package comms

import (
	"testing"

	"mpivet/trace/tracetest"
)

// A handle freed and reused for another communicator: each call's
// communicator is the one its handle named when the call was made.
func TestHandleReuse(t *testing.T) {
	l := tracetest.New(0, 4)
	l.Call("MPI_Init", 1, nil, map[string]any{})
	l.Call("MPI_Comm_split", 2, map[string]any{"comm": uint64(0x1000)}, map[string]any{"newcomm": uint64(0x500)})
	l.NewComm(0x500, 0, 2) // the layer's membership record
	l.Call("MPI_Barrier", 3, map[string]any{"comm": uint64(0x500)}, map[string]any{})
	l.Call("MPI_Comm_free", 4, map[string]any{"comm": uint64(0x500)}, map[string]any{})
	l.Call("MPI_Comm_dup", 5, map[string]any{"comm": uint64(0x1000)}, map[string]any{"newcomm": uint64(0x500)})
	l.NewComm(0x500, 0, 1, 2, 3)
	l.Call("MPI_Barrier", 6, map[string]any{"comm": uint64(0x500)}, map[string]any{})
	p := l.Process()
	x := NewIndex(p)
	calls := p.CallList()
	first, second := "[0 2] []#0", "[0 1 2 3] []#0"
	// The collectives are kept under the key of their communicator as of
	// each call, though the handle now names another.
	if x.Position(calls[2], first) != 0 || x.Position(calls[5], second) != 0 || x.Collectives(second) != 1 {
		t.Fatalf("positions %d and %d", x.Position(calls[2], first), x.Position(calls[5], second))
	}
	// The current call's communicator as of the call.
	if k := x.KeyOf(calls[5]); k != second {
		t.Fatalf("key of the last call %q", k)
	}
	if got := x.Collectives(first); got != 1 || x.Collective(first, 0).Offset != calls[2].Offset {
		t.Fatalf("collectives on the split communicator: %v", got)
	}
	if x.KeyOf(calls[1]) != "world" || len(x.Members(0x500)) != 4 {
		t.Fatal("world or current members wrong")
	}
}
