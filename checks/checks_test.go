package checks_test

import (
	"strings"
	"testing"
	"time"

	"mpivet/check"
	"mpivet/checks/all"
	"mpivet/trace"
	"mpivet/trace/tracetest"
)

func TestValidate(t *testing.T) {
	if err := check.Validate(all.Checks); err != nil {
		t.Fatal(err)
	}
	bad := []*check.Check{{Name: "Bad Name", Doc: "x", Run: func(*check.Pass) error { return nil }}, {Name: "nodoc", Run: func(*check.Pass) error { return nil }}}
	if err := check.Validate(bad); err == nil {
		t.Fatal("malformed checks accepted")
	}
}

func run(t *testing.T, in *check.Input) []check.Finding {
	t.Helper()
	fs, err := check.Run(all.Checks, in)
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

func kinds(fs []check.Finding) string {
	var k []string
	for _, f := range fs {
		k = append(k, string(f.Severity)+":"+f.Kind)
	}
	return strings.Join(k, " ")
}

func finished(p *trace.Process) *trace.Process {
	p.Exit = &trace.Exit{Exited: true}
	return p
}

func TestCleanRun(t *testing.T) {
	var procs []*trace.Process
	for r := 0; r < 2; r++ {
		l := tracetest.New(r, 2)
		l.Call("MPI_Init", 1, nil, map[string]any{})
		l.Call("MPI_Isend", 2, map[string]any{"request_at": uint64(0x100)}, map[string]any{"request": uint64(0x77)})
		l.Call("MPI_Wait", 3, map[string]any{"request": uint64(0x77), "request_at": uint64(0x100)}, map[string]any{"request_out": uint64(0x2000)})
		l.Call("MPI_Finalize", 4, nil, map[string]any{})
		procs = append(procs, finished(l.Process()))
	}
	if fs := run(t, &check.Input{Run: &trace.Run{Procs: procs}, NP: 2}); len(fs) != 0 {
		t.Fatalf("findings on a correct run: %s", kinds(fs))
	}
}

func TestLeaksMergeAcrossRanks(t *testing.T) {
	var procs []*trace.Process
	for r := 0; r < 4; r++ {
		l := tracetest.New(r, 4)
		l.Call("MPI_Init", 1, nil, map[string]any{})
		for i := 0; i < 3; i++ {
			l.Call("MPI_Type_vector", 2, nil, map[string]any{"newtype": uint64(0x600 + i)})
		}
		l.Call("MPI_Finalize", 4, nil, map[string]any{})
		procs = append(procs, finished(l.Process()))
	}
	fs := run(t, &check.Input{Run: &trace.Run{Procs: procs}, NP: 4})
	if len(fs) != 1 || fs[0].Kind != "resource-leak" || len(fs[0].Ranks) != 4 || !strings.HasPrefix(fs[0].Message, "3 objects") {
		t.Fatalf("findings: %+v", fs)
	}
}

func TestFailures(t *testing.T) {
	mk := func(r int, x *trace.Exit, calls func(*tracetest.Log)) *trace.Process {
		l := tracetest.New(r, 3)
		l.Call("MPI_Init", 1, nil, map[string]any{})
		calls(l)
		p := l.Process()
		p.Exit = x
		return p
	}
	fin := func(l *tracetest.Log) { l.Call("MPI_Finalize", 9, nil, map[string]any{}) }
	barrier := func(l *tracetest.Log) { l.Call("MPI_Barrier", 5, nil, nil) }
	for _, tc := range []struct {
		name  string
		procs []*trace.Process
		want  string
		msg   string
	}{
		{"segv", []*trace.Process{
			mk(0, &trace.Exit{Signal: 15, Forwarded: 15}, barrier),
			mk(1, &trace.Exit{Signal: 11}, func(*tracetest.Log) {}),
			mk(2, nil, barrier)}, "error:program-failure", "SIGSEGV"},
		{"abort", []*trace.Process{
			mk(0, &trace.Exit{Signal: 9}, barrier),
			mk(1, &trace.Exit{Exited: true, Code: 33}, func(l *tracetest.Log) {
				l.Call("MPI_Abort", 7, map[string]any{"errorcode": 33, "comm": uint64(0x1000)}, nil)
			}),
			mk(2, &trace.Exit{Signal: 9}, barrier)}, "error:program-failure", "MPI_Abort"},
		{"abort-then-peer-exits", []*trace.Process{
			mk(0, &trace.Exit{Exited: true, Code: 1, TimeNs: 2e9}, barrier), // noticed its peer was gone
			mk(1, &trace.Exit{Exited: true, Code: 1, TimeNs: 1e9}, func(l *tracetest.Log) {
				l.Call("MPI_Abort", 7, map[string]any{"errorcode": 1, "comm": uint64(0x1000)}, nil)
			}),
			mk(2, &trace.Exit{Signal: 15, Forwarded: 15, TimeNs: 2e9}, barrier)}, "error:program-failure", "ranks 0, 2 ended too"},
		{"exit-code", []*trace.Process{
			mk(0, &trace.Exit{Exited: true, Code: 3}, fin),
			mk(1, &trace.Exit{Exited: true}, fin),
			mk(2, &trace.Exit{Exited: true}, fin)}, "error:program-failure", "status 3 after MPI_Finalize"},
		{"no-finalize", []*trace.Process{
			mk(0, &trace.Exit{Exited: true}, fin),
			mk(1, &trace.Exit{Exited: true}, barrier),
			mk(2, &trace.Exit{Exited: true}, fin)}, "error:program-failure", "without calling MPI_Finalize"},
		{"mpi-ended-job", []*trace.Process{
			mk(0, nil, barrier), mk(1, nil, barrier), mk(2, nil, barrier)}, "error:program-failure", "ended by the MPI library"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := run(t, &check.Input{Run: &trace.Run{Procs: tc.procs}, NP: 3, LauncherOutput: "Fatal error in PMPI_Barrier: Other MPI error"})
			if kinds(fs) != tc.want || !strings.Contains(fs[0].Message, tc.msg) {
				t.Fatalf("got %s: %+v", kinds(fs), fs)
			}
		})
	}
}

func TestTimeout(t *testing.T) {
	var procs []*trace.Process
	for r := 0; r < 2; r++ {
		l := tracetest.New(r, 2)
		l.Call("MPI_Init", 1, nil, map[string]any{})
		if r == 0 {
			l.Call("MPI_Wait", 2, map[string]any{"request": uint64(0x77)}, nil)
		} else {
			l.Call("MPI_Comm_dup", 3, nil, map[string]any{"newcomm": uint64(0x500)})
		}
		procs = append(procs, l.Process())
	}
	fs := run(t, &check.Input{Run: &trace.Run{Procs: procs}, NP: 2, TimedOut: true, Timeout: 5 * time.Second})
	if kinds(fs) != "error:timeout" {
		t.Fatalf("got %s", kinds(fs))
	}
	m := fs[0].Message
	if !strings.Contains(m, "rank 0: blocked in MPI_Wait") || !strings.Contains(m, "rank 1: computing outside MPI") {
		t.Fatalf("message: %s", m)
	}
}

func TestRankList(t *testing.T) {
	for in, want := range map[string]string{"0 1 2 3": "0-3", "0 2 4": "0, 2, 4", "1 2 5 6 7": "1, 2, 5-7", "": ""} {
		var ranks []int
		for _, f := range strings.Fields(in) {
			ranks = append(ranks, int(f[0]-'0'))
		}
		if got := check.RankList(ranks); got != want {
			t.Errorf("RankList(%s) = %q, want %q", in, got, want)
		}
	}
}
