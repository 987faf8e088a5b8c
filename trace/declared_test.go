package trace_test

import (
	"testing"

	"mpivet/api"
	"mpivet/trace/tracetest"
)

// A MetaDeclared record gives the call, its buffer and datatype, the call
// site and the calling function's CFA, then the frames above it; an older
// record without them, or a torn one, is read as far as it goes.
func TestDeclaredRecords(t *testing.T) {
	l := tracetest.New(0, 2)
	send := uint64(api.MPI.ByName["MPI_Send"].ID)
	l.Meta(api.MetaDeclared, send, 0, 0x1000, 4, 0x608, 1, 0x55, 0x401000, 0x7ff0, 0x402000, 0x7ff8, 0x403000, 0x8000)
	l.Meta(api.MetaDeclared, send, 0, 0x2000, 1, 0x404, 0, 0x77, 0x401010, 0)
	l.Meta(api.MetaDeclared, send, 0, 0x3000)
	p := l.Process()
	if len(p.Declared) != 2 {
		t.Fatalf("%d records read, want 2: %+v", len(p.Declared), p.Declared)
	}
	d := p.Declared[0]
	if d.Call.Name != "MPI_Send" || d.Addr != 0x1000 || d.Count != 4 || d.Sig != 0x608 || !d.Named || d.Type != 0x55 ||
		d.PC != 0x401000 || d.CFA != 0x7ff0 || len(d.Callers) != 2 || d.Callers[1].PC != 0x403000 || d.Callers[1].CFA != 0x8000 {
		t.Errorf("first record: %+v", d)
	}
	if d := p.Declared[1]; d.Named || d.CFA != 0 || len(d.Callers) != 0 {
		t.Errorf("second record: %+v", d)
	}
}
