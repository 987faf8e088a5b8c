package heap_test

import (
	"strings"
	"testing"

	"mpivet/api"
	"mpivet/check"
	"mpivet/checks/heap"
	"mpivet/trace"
	"mpivet/trace/tracetest"
)

// rank builds a rank whose layer logged the given META_HEAP records.
func rank(r int, records ...[]uint64) *trace.Process {
	l := tracetest.New(r, 2)
	l.Meta(api.MetaProcess, uint64(r), 2, 100, 0, 0)
	l.Call("MPI_Init", 1, nil, map[string]any{})
	for _, w := range records {
		l.Meta(api.MetaHeap, w...)
	}
	l.Call("MPI_Finalize", 9, nil, map[string]any{})
	p := l.Process()
	p.Exit = &trace.Exit{Exited: true}
	return p
}

func findings(t *testing.T, ps ...*trace.Process) []check.Finding {
	t.Helper()
	fs, err := check.Run([]*check.Check{heap.Check}, &check.Input{Run: &trace.Run{Procs: ps}, NP: len(ps)})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func id(name string) uint64 { return uint64(api.MPI.ByName[name].ID) }

// The words of a record: kind, call, parameter, site, buffer, lo, hi,
// block start, size, allocation site, free site, other.
func rec(kind uint64, call string, param int, buf, lo, hi, start, size uint64) []uint64 {
	return []uint64{kind, id(call), uint64(param), 0x40, buf, lo, hi, start, size, 0x80, 0x90, 0}
}

func TestOverrunOnTwoRanksIsOneFinding(t *testing.T) {
	w := rec(api.HeapOverrun, "MPI_Allgather", 3, 0x1000, 0x1000, 0x1000+40, 0x1000, 20)
	fs := findings(t, rank(0, w), rank(1, w))
	if len(fs) != 1 || fs[0].Kind != "buffer-overrun" {
		t.Fatalf("findings %v, want one buffer-overrun", fs)
	}
	for _, want := range []string{"MPI_Allgather: recvbuf covers 40 bytes", "20 bytes past the end", "block of 20 bytes"} {
		if !strings.Contains(fs[0].Message, want) {
			t.Errorf("message %q lacks %q", fs[0].Message, want)
		}
	}
	var alloc int
	for _, l := range fs[0].Locations {
		if strings.Contains(l.Note, "allocated here") {
			alloc++
		}
	}
	if alloc != 2 {
		t.Errorf("%d allocation sites among %v, want one per rank", alloc, fs[0].Locations)
	}
}

func TestUnderrunSaysBeforeTheStart(t *testing.T) {
	fs := findings(t, rank(0, rec(api.HeapOverrun, "MPI_Recv", 0, 0x1010, 0x1000, 0x1010+8, 0x1010, 64)))
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "16 bytes before the start") {
		t.Fatalf("findings %v, want one saying 16 bytes before the start", fs)
	}
}

func TestFreedAndFreePending(t *testing.T) {
	freed := rec(api.HeapFreed, "MPI_Send", 0, 0x2000, 0x2000, 0x2100, 0x2000, 256)
	pending := rec(api.HeapFreePending, "MPI_Isend", -1, 0x3000, 0x3000, 0x3000+8000, 0x3000, 8000)
	fs := findings(t, rank(0, freed, pending))
	if len(fs) != 2 {
		t.Fatalf("findings %v, want 2", fs)
	}
	for _, f := range fs {
		if f.Kind != "freed-buffer" {
			t.Errorf("kind %s, want freed-buffer", f.Kind)
		}
	}
	if !strings.Contains(fs[0].Message+fs[1].Message, "pending MPI_Isend") {
		t.Errorf("no message names the pending MPI_Isend: %v", fs)
	}
}

// A free of a pending operation's buffer names the call that started the
// operation, with its position in the rank's calls, beside the free and
// the allocation.
func TestFreePendingNamesTheStart(t *testing.T) {
	l := tracetest.New(0, 1)
	l.Meta(api.MetaProcess, 0, 1, 100, 0, 0)
	l.Call("MPI_Init", 1, nil, map[string]any{})
	w := rec(api.HeapFreePending, "MPI_Isend", -1, 0x3000, 0x3000, 0x3000+800, 0x3000, 800)
	w[11] = l.Call("MPI_Isend", 0x77, map[string]any{}, map[string]any{})
	l.Meta(api.MetaHeap, w...)
	l.Call("MPI_Finalize", 9, nil, map[string]any{})
	p := l.Process()
	p.Exit = &trace.Exit{Exited: true}
	fs := findings(t, p)
	if len(fs) != 1 || fs[0].Kind != "freed-buffer" || !strings.Contains(fs[0].Message, "pending MPI_Isend, before its completion") {
		t.Fatalf("findings %v, want one freed-buffer of a pending MPI_Isend", fs)
	}
	var free, alloc, start int
	for _, l := range fs[0].Locations {
		switch {
		case l.Call == "free" && strings.Contains(l.Note, "frees the block at 0x3000"):
			free++
		case strings.Contains(l.Note, "allocated here"):
			alloc++
		case l.Call == "MPI_Isend" && strings.Contains(l.Note, "pending MPI_Isend whose buffer lies in the block: call 1 of the rank"):
			start++
		}
	}
	if free != 1 || alloc != 1 || start != 1 {
		t.Errorf("locations %v: want the free, the allocation and the MPI_Isend's start once each", fs[0].Locations)
	}
	// Without the start's offset (an older record), the other two remain.
	w[11] = 0
	if fs := findings(t, rank(0, w)); len(fs) != 1 || len(fs[0].Locations) != 2 {
		t.Errorf("findings %v, want one with the free and the allocation", fs)
	}
}

func TestMalformedRecordsIgnored(t *testing.T) {
	bad := rec(9, "MPI_Send", 0, 0, 0, 0, 0, 0)
	short := []uint64{api.HeapOverrun, id("MPI_Send")}
	if fs := findings(t, rank(0, bad, short)); len(fs) != 0 {
		t.Fatalf("findings from malformed records: %v", fs)
	}
}

// A window's memory freed before MPI_Win_free is reported at the free(),
// naming the MPI_Win_create that gave it; a realloc that shrinks an
// attached block in place says which bytes it gave back.
func TestFreeWindowNamesTheCreation(t *testing.T) {
	freed := rec(api.HeapFreeWindow, "MPI_Win_create", -1, 0x3000, 0x3000, 0x3000+800, 0x3000, 800)
	shrunk := rec(api.HeapFreeWindow, "MPI_Win_attach", -2, 0x5000, 0x5000+64, 0x5000+128, 0x5000, 128)
	for i, c := range []struct {
		w          []uint64
		call, want string
	}{
		{freed, "MPI_Win_create", "memory of a window (MPI_Win_create), before MPI_Win_free"},
		{shrunk, "MPI_Win_attach", "(MPI_Win_attach), before MPI_Win_detach"},
	} {
		l := tracetest.New(0, 1)
		l.Meta(api.MetaProcess, 0, 1, 100, 0, 0)
		l.Call("MPI_Init", 1, nil, map[string]any{})
		c.w[11] = l.Call(c.call, 0x77, map[string]any{}, map[string]any{})
		l.Meta(api.MetaHeap, c.w...)
		l.Call("MPI_Finalize", 9, nil, map[string]any{})
		p := l.Process()
		p.Exit = &trace.Exit{Exited: true}
		fs := findings(t, p)
		if len(fs) != 1 || fs[0].Kind != "freed-buffer" || !strings.Contains(fs[0].Message, c.want) {
			t.Fatalf("case %d: findings %v, want one freed-buffer saying %q", i, fs, c.want)
		}
		var named int
		for _, l := range fs[0].Locations {
			if l.Call == c.call && strings.Contains(l.Note, "given to the MPI here") {
				named++
			}
		}
		if named != 1 {
			t.Errorf("case %d: locations %v do not name the %s once", i, fs[0].Locations, c.call)
		}
	}
	fs := findings(t, rank(0, shrunk))
	if len(fs) != 1 || !strings.HasPrefix(fs[0].Message, "realloc() of") || fs[0].Locations[0].Call != "realloc" ||
		!strings.Contains(fs[0].Locations[0].Note, "gives back bytes 64..128") {
		t.Errorf("findings %v: not said to be the realloc's, with the bytes it gave back", fs)
	}
}
