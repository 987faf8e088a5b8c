package comms

import (
	"testing"

	"mpivet/api"
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

// interRecord is the layer's membership record of an intercommunicator:
// local group, then remote group (world ranks).
func interRecord(l *tracetest.Log, handle uint64, local, remote []int) {
	w := []uint64{handle, 1, uint64(len(local))}
	for _, r := range local {
		w = append(w, uint64(r))
	}
	w = append(w, uint64(len(remote)))
	for _, r := range remote {
		w = append(w, uint64(r))
	}
	l.Meta(api.MetaComm, w...)
}

// Both groups of an intercommunicator name it alike (its collectives and
// messages involve both); a communicator made by MPI_Comm_idup has the
// members of the one it duplicates.
func TestIntercommAndIdup(t *testing.T) {
	keys := map[int]string{}
	for _, r := range []int{0, 2} {
		local, remote := []int{0, 1}, []int{2, 3}
		if r == 2 {
			local, remote = remote, local
		}
		l := tracetest.New(r, 4)
		l.Call("MPI_Init", 1, nil, map[string]any{})
		l.Call("MPI_Intercomm_create", 2, map[string]any{"local_comm": uint64(0x1000)}, map[string]any{"newintercomm": uint64(0x700)})
		interRecord(l, 0x700, local, remote)
		l.Call("MPI_Comm_idup", 3, map[string]any{"comm": uint64(0x700)}, map[string]any{"newcomm": uint64(0x800), "request": uint64(0x9)})
		l.Call("MPI_Comm_idup", 4, map[string]any{"comm": uint64(0x1000)}, map[string]any{"newcomm": uint64(0x900), "request": uint64(0xa)})
		x := NewIndex(l.Process())
		if !x.IsInter(0x800) || len(x.All(0x800)) != 4 || len(x.Members(0x900)) != 4 {
			t.Fatalf("rank %d: idup of the intercommunicator %v, of the world %v", r, x.All(0x800), x.Members(0x900))
		}
		keys[r] = x.Key(0x700) + " " + x.Key(0x800)
	}
	if keys[0] != keys[2] {
		t.Fatalf("the groups name the intercommunicator differently: %q and %q", keys[0], keys[2])
	}
}
