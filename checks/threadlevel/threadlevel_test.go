package threadlevel_test

import (
	"strings"
	"testing"

	"mpivet/api"
	"mpivet/check"
	"mpivet/checks/threadlevel"
	"mpivet/trace"
	"mpivet/trace/tracetest"
)

// rank builds a rank that asked for required with MPI_Init_thread, got
// provided, and whose layer logged the given thread-level records.
func rank(required, provided int, records ...[]uint64) *trace.Process {
	l := tracetest.New(0, 1)
	l.Meta(api.MetaProcess, 0, 1, 100, uint64(provided), 0)
	l.Call("MPI_Init_thread", 1, map[string]any{"required": required}, map[string]any{"provided": provided})
	for _, r := range records {
		l.Meta(api.MetaThreadLevel, r...)
	}
	l.Call("MPI_Finalize", 9, nil, map[string]any{})
	p := l.Process()
	p.Exit = &trace.Exit{Exited: true}
	return p
}

func findings(t *testing.T, p *trace.Process) []check.Finding {
	t.Helper()
	fs, err := check.Run([]*check.Check{threadlevel.Check}, &check.Input{Run: &trace.Run{Procs: []*trace.Process{p}}, NP: 1})
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func id(name string) uint64 { return uint64(api.MPI.ByName[name].ID) }

func TestNoRecordsNoFinding(t *testing.T) {
	if fs := findings(t, rank(1, 1)); len(fs) != 0 {
		t.Fatalf("findings without records: %v", fs)
	}
}

func TestFunneledBrokenByWorker(t *testing.T) {
	none := ^uint64(0)
	rec := []uint64{api.ThreadLevelNotMain, id("MPI_Send"), 0x40, 4242, 0, 1, none, none, 0}
	fs := findings(t, rank(1, 1, rec, rec)) // the same site twice: one finding
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1: %v", len(fs), fs)
	}
	m := fs[0].Message
	for _, want := range []string{"MPI_Send", "MPI_THREAD_FUNNELED (MPI_Init_thread) and got MPI_THREAD_FUNNELED", "other than the one that initialised"} {
		if !strings.Contains(m, want) {
			t.Errorf("message %q lacks %q", m, want)
		}
	}
	if n := fs[0].Locations[0].Note; !strings.Contains(n, "OpenMP thread 1") {
		t.Errorf("location note %q does not name the OpenMP thread", n)
	}
}

func TestSerializedTwoInside(t *testing.T) {
	rec := []uint64{api.ThreadLevelTwo, id("MPI_Send"), 0x40, 4243, 0, ^uint64(0), id("MPI_Recv"), 0x50, 1}
	fs := findings(t, rank(2, 2, rec))
	if len(fs) != 1 || len(fs[0].Locations) != 2 || fs[0].Locations[1].Call != "MPI_Recv" ||
		!strings.Contains(fs[0].Message, "another thread was inside MPI_Recv") || !strings.Contains(fs[0].Message, "MPI_THREAD_SERIALIZED") {
		t.Fatalf("findings: %+v", fs)
	}
}

func TestFinalizeRace(t *testing.T) {
	rec := []uint64{api.ThreadLevelFinalize, id("MPI_Finalize"), 0x40, 100, 1, ^uint64(0), id("MPI_Barrier"), 0x50, 1}
	fs := findings(t, rank(3, 3, rec))
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "MPI_Finalize was called while another thread was inside MPI_Barrier") {
		t.Fatalf("findings: %+v", fs)
	}
}

// A record the reader cannot trust (a call id out of range) is dropped.
func TestBadRecordSkipped(t *testing.T) {
	if fs := findings(t, rank(1, 1, []uint64{1, 1 << 40, 0, 0, 0, 0, 0, 0, 0})); len(fs) != 0 {
		t.Fatalf("findings from a damaged record: %v", fs)
	}
}
