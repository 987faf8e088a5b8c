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
	first, second := x.KeyOf(p.Calls[2]), x.KeyOf(p.Calls[5])
	if first == second || first != "[0 2] []#0" || second != "[0 1 2 3] []#0" {
		t.Fatalf("keys %q and %q", first, second)
	}
	if got := x.Collectives(first); len(got) != 1 || got[0] != p.Calls[2] {
		t.Fatalf("collectives on the split communicator: %v", got)
	}
	if x.KeyOf(p.Calls[1]) != "world" || len(x.Members(0x500)) != 4 {
		t.Fatal("world or current members wrong")
	}
}
