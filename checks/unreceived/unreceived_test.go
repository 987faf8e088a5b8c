package unreceived

import (
	"strings"
	"testing"

	"mpivet/check"
	reports "mpivet/report"
	"mpivet/trace"
	"mpivet/trace/tracetest"
)

var world = tracetest.Consts["MPI_COMM_WORLD"]

func findings(t *testing.T, procs ...*trace.Process) []check.Finding {
	t.Helper()
	fs, err := check.Run([]*check.Check{Check}, &check.Input{Run: &trace.Run{Procs: procs}, NP: len(procs)})
	if err != nil {
		t.Fatal(err)
	}
	return reports.Merge(fs)
}

// Messages from one send site to one rank make one finding, with their
// number; another tag or sender makes another. A run without records has none.
func TestGrouped(t *testing.T) {
	sender := tracetest.New(0, 2)
	sender.Call("MPI_Finalize", 0x10, nil, map[string]any{})
	recv := tracetest.New(1, 2)
	for i := 0; i < 3; i++ {
		recv.Unreceived(0, 0, 7, world, 0x400, 8, false)
	}
	recv.Unreceived(0, 0, 8, world, 0x400, 4, false)
	recv.Call("MPI_Finalize", 0x20, nil, map[string]any{})
	fs := findings(t, sender.Process(), recv.Process())
	if len(fs) != 2 {
		t.Fatalf("%d findings, want 2: %v", len(fs), fs)
	}
	if m := fs[0].Message; !strings.Contains(m, "3 messages sent by rank 0 to rank 1 (tag 7, MPI_COMM_WORLD, 24 bytes)") {
		t.Errorf("message %q", m)
	}
	if len(fs[0].Locations) != 2 || fs[0].Locations[0].Rank != 0 || fs[0].Locations[1].Rank != 1 {
		t.Errorf("locations %v, want the send in rank 0, then rank 1's MPI_Finalize", fs[0].Locations)
	}
	if len(findings(t, tracetest.New(0, 1).Process())) != 0 {
		t.Error("finding without a record")
	}
}

// Without the clock protocol the send's line is unknown, and the report
// says so.
func TestNoSendSite(t *testing.T) {
	recv := tracetest.New(1, 2)
	recv.Unreceived(0, 0, 7, world, 0, 8, false)
	fs := findings(t, tracetest.New(0, 2).Process(), recv.Process())
	if len(fs) != 1 || !strings.Contains(fs[0].Message, "clock protocol") {
		t.Fatalf("findings %v", fs)
	}
}

// A zero-buffering deadlock is explained by an unreceived message only when
// a rank is blocked in a send of that message: same sender, destination and
// tag.
func TestExplains(t *testing.T) {
	recv := tracetest.New(1, 2)
	recv.Unreceived(0, 0, 7, world, 0x400, 8, false)
	first := &trace.Run{Procs: []*trace.Process{tracetest.New(0, 2).Process(), recv.Process()}}
	blocked := func(tag int) *trace.Run {
		l := tracetest.New(0, 2)
		l.Call("MPI_Send", 0x400, map[string]any{"dest": 1, "tag": tag, "comm": world, "count": 1}, nil)
		p := l.Process()
		p.Current = p.CallList()[p.NumCalls-1]
		return &trace.Run{Procs: []*trace.Process{p, tracetest.New(1, 2).Process()}}
	}
	if !Explains(first, blocked(7)) {
		t.Error("a send of the unreceived message, blocked: not explained")
	}
	if Explains(first, blocked(8)) {
		t.Error("a send with another tag explained")
	}
}
