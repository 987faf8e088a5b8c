package trace_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"mpivet/api"
	"mpivet/trace"
	"mpivet/trace/tracetest"
)

func TestDecode(t *testing.T) {
	l := tracetest.New(3, 4)
	l.Call("MPI_Init", 0x10, nil, map[string]any{})
	l.Call("MPI_Isend", 0x20, map[string]any{"count": 5, "dest": 1, "comm": uint64(0x1000), "request_at": uint64(0x7f00)},
		map[string]any{"request": uint64(0x9000)})
	l.Call("MPI_Waitall", 0x30, map[string]any{"count": 2, "array_of_requests": []uint64{0x9000, 0x2000}}, nil)
	p := l.Process()
	if p.Rank != 3 || p.Size != 4 || p.Host != "testhost" {
		t.Fatalf("process %d/%d on %q", p.Rank, p.Size, p.Host)
	}
	if p.NumCalls != 3 {
		t.Fatalf("%d calls", p.NumCalls)
	}
	is := p.CallList()[1]
	if is.Name() != "MPI_Isend" || is.PC != 0x20 || is.Int("count") != 5 || is.Word("request") != 0x9000 || !is.Returned {
		t.Errorf("Isend decoded as %+v", is)
	}
	wa := p.CallList()[2]
	if wa.Returned || len(wa.Words("array_of_requests")) != 2 || wa.HasField("array_of_requests_out") {
		t.Errorf("Waitall decoded as %+v", wa)
	}
	if v, ok := p.Const("MPI_COMM_WORLD"); !ok || v != 0x1000 || p.Consts[0x1000][0] != "MPI_COMM_WORLD" {
		t.Error("constants not decoded")
	}
	if v, ok := p.Const("MPI_ANY_SOURCE"); !ok || int64(v) != -2 {
		t.Error("MPICH's MPI_ANY_SOURCE (-2) must be kept")
	}
	if _, ok := p.Const("MPI_LOGICAL"); ok {
		t.Error("a constant the MPI does not define must be absent")
	}
	if p.Last() != wa || p.Finalized() {
		t.Error("Last/Finalized wrong")
	}
}

func TestTornLog(t *testing.T) {
	l := tracetest.New(0, 1)
	l.Call("MPI_Init", 0x10, nil, map[string]any{})
	l.Call("MPI_Comm_dup", 0x20, map[string]any{"comm": uint64(0x1000)}, map[string]any{"newcomm": uint64(0x5000)})
	whole := len(l.Bytes())
	l.Call("MPI_Comm_free", 0x30, map[string]any{"comm": uint64(0x5000)}, map[string]any{})
	data := append(l.Bytes(), make([]byte, 64)...) // the sparse file's zeroes
	// The layer stores a record's header last: a rank killed while writing
	// leaves a record whose header is still zero, and the reader stops there.
	for i := whole; i < whole+8; i++ {
		data[i] = 0
	}
	p, err := trace.Decode("p.h.1.log", data)
	if err != nil {
		t.Fatal(err)
	}
	if p.NumCalls != 2 || p.CallList()[1].Name() != "MPI_Comm_dup" || p.End != int64(whole) {
		t.Fatalf("%d calls, end %d (want %d)", p.NumCalls, p.End, whole)
	}
	if _, err := trace.Decode("x", []byte("not a log at all")); err == nil {
		t.Error("a file that is not a log must be rejected")
	}
}

func TestReadRunWithUnstartedLog(t *testing.T) {
	dir := t.TempDir()
	l := tracetest.New(0, 2)
	l.Call("MPI_Init", 1, nil, map[string]any{})
	if err := os.WriteFile(filepath.Join(dir, "p.h.10.log"), l.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// a rank killed before its layer wrote the log's header
	os.WriteFile(filepath.Join(dir, "p.h.11.log"), make([]byte, 4096), 0o644)
	os.WriteFile(filepath.Join(dir, "p.h.11.exit"), []byte(`{"host":"h","pid":11,"exited":false,"signal":9}`), 0o644)
	run, err := trace.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Procs) != 2 || run.Procs[1].Pid != 11 || run.Procs[1].Exit == nil || run.Procs[1].Exit.Signal != 9 {
		t.Fatalf("procs: %+v", run.Procs)
	}
}

// A poll's entry record is logged after the records the clock protocol
// writes while the poll runs (layer/src/record/record.h, Polls): a Testany event,
// logged without an offset, belongs to the next poll logged.
func TestPollEvent(t *testing.T) {
	l := tracetest.New(0, 2)
	l.Call("MPI_Init", 0x10, nil, map[string]any{})
	unknown := ^uint64(0)
	// event 0: a wildcard receive, logged with its call's offset
	recv := l.Call("MPI_Irecv", 0x20, map[string]any{"source": tracetest.Consts["MPI_ANY_SOURCE"]}, map[string]any{"request": uint64(0x9000)})
	l.Meta(api.MetaWildcard, 0, trace.WildRecv, 1, 0, unknown-1, recv, 0, 0x20)
	// event 1: a Testany that returned request 1, then its poll
	l.Meta(api.MetaWildcard, 1, trace.WildAny, 0, 2, unknown-1, unknown, 0, 0x30)
	l.Meta(api.MetaChoice, 1, 1, 1, 1, 0, 7)
	l.Meta(api.MetaMatched, 0, 1, 1, 5, 3, 0)
	l.Meta(api.MetaMatched, 1, 1, unknown, unknown, 4, 0)
	poll := l.Call("MPI_Testany", 0x30, map[string]any{"count": 2, "array_of_requests": []uint64{0x9000, 0x9100}},
		map[string]any{"array_of_requests_out": []uint64{0x9000, 0x2000}, "index": 1, "flag": 1})
	// event 2: a Testany forced but never matched: no poll of its own
	l.Meta(api.MetaWildcard, 2, trace.WildAny, 0, 2, 0, unknown, 0, 0x30)
	l.Call("MPI_Wait", 0x40, map[string]any{"request": uint64(0x9000)}, map[string]any{"request_out": uint64(0x2000)})
	p := l.Process()
	if len(p.Wild) != 3 {
		t.Fatalf("%d events", len(p.Wild))
	}
	if p.Wild[0].Offset != recv || p.Wild[1].Offset != poll || p.Wild[2].Offset != unknown {
		t.Errorf("event offsets %#x %#x %#x, want %#x %#x unknown", p.Wild[0].Offset, p.Wild[1].Offset, p.Wild[2].Offset, recv, poll)
	}
	if c := p.CallAt(poll); c == nil || c.Name() != "MPI_Testany" || !c.Returned || c.Int("index") != 1 {
		t.Errorf("poll decoded as %+v", c)
	}
}

// Threads number their wildcard events apart (the thread in the high 32
// bits): their records interleave in the log, and each is found by number.
func TestWildcardsPerThread(t *testing.T) {
	l := tracetest.New(0, 2)
	l.Call("MPI_Init", 0x10, nil, map[string]any{})
	unknown := ^uint64(0)
	const t1 = 1 << 32
	for _, e := range []uint64{0, t1, t1 + 1, 1, t1 + 5} { // t1+5: not the thread's next, ignored
		l.Meta(api.MetaWildcard, e, trace.WildRecv, 1, 0, unknown-1, unknown, 0, 0x20)
	}
	l.Meta(api.MetaMatched, t1+1, 2, 2, 0, 9, 0)
	l.Meta(api.MetaMatched, 1, 1, 1, 0, 10, 0)
	p := l.Process()
	var got []uint64
	for _, w := range p.Wild {
		got = append(got, w.Event)
	}
	if fmt.Sprint(got) != fmt.Sprint([]uint64{0, t1, t1 + 1, 1}) {
		t.Fatalf("events %#x", got)
	}
	if w := p.WildEvent(t1 + 1); w == nil || !w.Matched || w.Source != 2 || w.Clock != 9 {
		t.Errorf("thread 1's event 1: %+v", w)
	}
	if w := p.WildEvent(1); w == nil || !w.Matched || w.Source != 1 || w.Clock != 10 {
		t.Errorf("thread 0's event 1: %+v", w)
	}
	if p.WildEvent(t1+5) != nil || p.WildEvent(2) != nil {
		t.Error("an event that was not started is found")
	}
}

// A hold-back's records: one as it begins, one as it is released.
func TestHolds(t *testing.T) {
	l := tracetest.New(0, 2)
	l.Call("MPI_Init", 0x10, nil, map[string]any{})
	const t1, t2 = 1 << 32, 2 << 32
	l.Meta(api.MetaHeld, t2, t1, 0)
	l.Meta(api.MetaHeld, t2+1, t1+1, 0)
	l.Meta(api.MetaHeld, t2, t1, 1)
	p := l.Process()
	want := []trace.Hold{{Pos: t2, Release: t1, Released: true}, {Pos: t2 + 1, Release: t1 + 1}}
	if fmt.Sprint(p.Holds) != fmt.Sprint(want) {
		t.Errorf("holds %+v, want %+v", p.Holds, want)
	}
}

// The state page counts the polls that found nothing, per thread.
func TestStatePolls(t *testing.T) {
	dir := t.TempDir()
	l := tracetest.New(0, 1)
	l.Call("MPI_Init", 0x10, nil, map[string]any{})
	if err := os.WriteFile(filepath.Join(dir, "p.h.10.log"), l.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	page := make([]byte, api.StateSlots*api.StateWords*8)
	put := func(slot, word int, v uint64) {
		binary.LittleEndian.PutUint64(page[(slot*api.StateWords+word)*8:], v)
	}
	testany := api.MPI.ByName["MPI_Testany"]
	for slot, polls := range []uint64{1000000, 234} {
		put(slot, api.StateStatus, 2)
		put(slot, api.StateLogRef, ^uint64(0))
		put(slot, api.StateProgress, polls+1)
		put(slot, api.StatePolls, polls)
		// the inline record of the last poll, its request array cut short
		put(slot, api.StateRecord, 8+5*8|uint64(testany.ID)<<32|api.KindEntry<<48)
		put(slot, api.StateRecord+1, 0x30)
		put(slot, api.StateRecord+2, 100)
		put(slot, api.StateRecord+5, 100)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.h.10.state"), page, 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := trace.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := run.Procs[0]
	if p.Polls != 1000234 || p.Progress != 1000236 {
		t.Errorf("polls %d, progress %d", p.Polls, p.Progress)
	}
	if c := p.Current; c == nil || c.Name() != "MPI_Testany" || !c.Returned || c.PC != 0x30 || c.Int("count") != 100 || len(c.Words("array_of_requests")) != 0 {
		t.Errorf("current call %+v", c)
	}
}

// The compact form of a call's fields: a word per field, then the arrays in
// field order; arrays before a scalar must not shift it.
func TestFieldLayout(t *testing.T) {
	l := tracetest.New(0, 2)
	l.Call("MPI_Testsome", 0x10, map[string]any{"incount": 3, "array_of_requests": []uint64{0xa, 0xb, 0xc}},
		map[string]any{"array_of_requests_out": []uint64{0xa, 0, 0xc}, "outcount": 1, "array_of_indices": []uint64{1}})
	l.Call("MPI_Wait", 0x20, map[string]any{"request": uint64(0xd)},
		map[string]any{"request_out": uint64(0), "status": [2]int64{1, 42}})
	p := l.Process()
	ts, wa := p.CallList()[0], p.CallList()[1]
	if got := ts.Words("array_of_requests"); len(got) != 3 || got[2] != 0xc {
		t.Errorf("array_of_requests %x", got)
	}
	if got := ts.Words("array_of_requests_out"); len(got) != 3 || got[1] != 0 || got[2] != 0xc {
		t.Errorf("array_of_requests_out %x", got)
	}
	if ts.Int("outcount") != 1 || ts.Int("incount") != 3 || len(ts.Words("array_of_indices")) != 1 || ts.Words("array_of_indices")[0] != 1 {
		t.Errorf("Testsome: outcount %d incount %d indices %v", ts.Int("outcount"), ts.Int("incount"), ts.Words("array_of_indices"))
	}
	if ts.Words("outcount") != nil {
		t.Error("a scalar has no array")
	}
	if wa.Word("status") != 1 || len(wa.Words("status")) != 2 || wa.Words("status")[1] != 42 || wa.Word("request") != 0xd {
		t.Errorf("Wait: status %d %v request %x", wa.Word("status"), wa.Words("status"), wa.Word("request"))
	}
	for i, f := range wa.Def.Out {
		if f.Name == "status" && (wa.Out(i) != 1 || len(wa.OutWords(i)) != 2) {
			t.Errorf("Out(%d) %d OutWords %v", i, wa.Out(i), wa.OutWords(i))
		}
	}
	if wa.Out(99) != trace.Unknown || wa.InWords(-1) != nil {
		t.Error("out of range must read as Unknown / nil")
	}
}

// A log longer than the cursor's buffer: its calls are read again in
// order, with their exit records, however the records fall across the
// buffer's edges; CallAt finds any of them, with its position.
func TestCallsStream(t *testing.T) {
	l := tracetest.New(0, 2)
	l.Call("MPI_Init", 0x10, nil, map[string]any{})
	const n = 30000
	var offs []uint64
	for i := 0; i < n; i++ {
		offs = append(offs, l.Call("MPI_Isend", uint64(0x20+i), map[string]any{"count": i, "dest": 1, "comm": uint64(0x1000), "request_at": uint64(0x7f00)},
			map[string]any{"request": uint64(0x9000 + i)}))
	}
	l.Call("MPI_Finalize", 0x30, nil, nil)
	p := l.Process()
	if len(l.Bytes()) < 2<<20 {
		t.Fatalf("log of %d bytes: not longer than the buffer", len(l.Bytes()))
	}
	if p.NumCalls != n+2 || p.Last().Name() != "MPI_Finalize" || p.FinalizeCall() != p.Last() || p.Finalized() || !p.Initialized() {
		t.Fatalf("%d calls, last %v", p.NumCalls, p.Last())
	}
	i := 0
	for c := range p.Calls() {
		if c.Seq != i {
			t.Fatalf("call %d has Seq %d", i, c.Seq)
		}
		if i >= 1 && i <= n && (c.Name() != "MPI_Isend" || c.Int("count") != int64(i-1) || c.Word("request") != uint64(0x9000+i-1) || !c.Returned) {
			t.Fatalf("call %d decoded as %s count %d returned %v", i, c.Name(), c.Int("count"), c.Returned)
		}
		i++
	}
	if i != n+2 {
		t.Fatalf("%d calls read again", i)
	}
	for _, k := range []int{0, 1, 4095, 4096, 4097, n - 1} {
		c := p.CallAt(offs[k])
		if c == nil || c.Seq != k+1 || c.Int("count") != int64(k) || !c.Returned || p.CallAt(offs[k]) != c {
			t.Fatalf("CallAt(%d) = %+v", offs[k], c)
		}
	}
	if p.CallAt(offs[5]+8) != nil {
		t.Fatal("CallAt inside a record found a call")
	}
}

// A log's end marker says whether the log reached its size bound (no
// word) or its file system refused it room (the errno): mpivet's failure
// then, not the program's.
func TestEndMarkerWriteErrno(t *testing.T) {
	bound := tracetest.New(0, 1)
	bound.Meta(api.MetaOverflow)
	if p := bound.Process(); !p.Overflow || p.WriteErrno != 0 {
		t.Errorf("size bound: overflow %v, errno %d", p.Overflow, p.WriteErrno)
	}
	full := tracetest.New(0, 1)
	full.Meta(api.MetaOverflow, uint64(syscall.ENOSPC))
	if p := full.Process(); !p.Overflow || p.WriteErrno != int(syscall.ENOSPC) {
		t.Errorf("full file system: overflow %v, errno %d", p.Overflow, p.WriteErrno)
	}
}
