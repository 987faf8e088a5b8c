package check_test

import (
	"testing"

	"mpivet/check"
	"mpivet/symbolize"
	"mpivet/trace/tracetest"
)

// MPICH's handles are C ints, recorded as 64-bit words: a derived datatype
// (0x8c000003, negative as an int) arrives sign-extended and must print as
// MPICH has it. Open MPI's handles are pointers and print unchanged.
func TestHandleFormatting(t *testing.T) {
	h := int32(-0x73fffffd)       // 0x8c000003 as MPICH's int
	mpichType := uint64(int64(h)) // as the layer records it
	for _, c := range []struct {
		v    uint64
		want string
	}{
		{mpichType, "0x8c000003"},
		{0x44000000, "0x44000000"},                 // MPICH, high bit clear
		{0x55d0c0a01230, "0x55d0c0a01230"},         // Open MPI: an address
		{0x7fffffffe000, "0x7fffffffe000"},         // the top of user space
		{0xffffffff, "0xffffffff"},                 // not sign-extended: as is
		{0xfffffffe80000000, "0xfffffffe80000000"}, // not a sign-extended int
	} {
		if got := check.HandleHex(c.v); got != c.want {
			t.Errorf("HandleHex(%#x) = %s, want %s", c.v, got, c.want)
		}
	}
	l := tracetest.New(0, 1)
	l.Call("MPI_Init", 1, nil, map[string]any{})
	l.Call("MPI_Bcast", 2, map[string]any{"count": 3, "datatype": mpichType, "root": 0, "comm": tracetest.Consts["MPI_COMM_WORLD"]}, nil)
	proc := l.Process()
	if got := check.HandleName(proc, tracetest.Consts["MPI_INT"]); got != "MPI_INT" {
		t.Errorf("HandleName(MPI_INT) = %s", got)
	}
	want := "MPI_Bcast(count=3, datatype=0x8c000003, root=0, comm=MPI_COMM_WORLD)"
	if got := check.Describe(proc, proc.CallList()[1]); got != want {
		t.Errorf("Describe = %s, want %s", got, want)
	}
}

// A location without debug information prints by its address.
func TestLocationWithoutLines(t *testing.T) {
	var l check.Location
	l.SetSource(symbolize.Location{Module: "/opt/app/bin/solver", Offset: 0x11c9, Symbol: "main+0x1c", Function: "main"})
	if got, want := l.Where(), "solver+0x11c9 in main+0x1c"; got != want {
		t.Errorf("Where = %q, want %q", got, want)
	}
	if l.Offset != "0x11c9" || l.Module != "/opt/app/bin/solver" {
		t.Errorf("JSON fields: module %q offset %q", l.Module, l.Offset)
	}
	l.SetSource(symbolize.Location{File: "solver.c", Line: 12, Function: "main", Module: "/opt/app/bin/solver", Offset: 0x11c9})
	if got, want := l.Where(), "solver.c:12 in main"; got != want {
		t.Errorf("Where = %q, want %q", got, want)
	}
	if got := (check.Location{}).Where(); got != "(unknown location)" {
		t.Errorf("Where of nothing = %q", got)
	}
}
