package trace_test

import (
	"os"
	"path/filepath"
	"testing"

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
	if len(p.Calls) != 3 {
		t.Fatalf("%d calls", len(p.Calls))
	}
	is := p.Calls[1]
	if is.Name() != "MPI_Isend" || is.PC != 0x20 || is.Int("count") != 5 || is.Word("request") != 0x9000 || !is.Returned {
		t.Errorf("Isend decoded as %+v", is)
	}
	wa := p.Calls[2]
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
	if len(p.Calls) != 2 || p.Calls[1].Name() != "MPI_Comm_dup" || p.End != int64(whole) {
		t.Fatalf("%d calls, end %d (want %d)", len(p.Calls), p.End, whole)
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
	os.WriteFile(filepath.Join(dir, "p.h.11.exit"), []byte(`{"host":"h","pid":11,"signal":9}`), 0o644)
	run, err := trace.ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Procs) != 2 || run.Procs[1].Pid != 11 || run.Procs[1].Exit == nil || run.Procs[1].Exit.Signal != 9 {
		t.Fatalf("procs: %+v", run.Procs)
	}
}
