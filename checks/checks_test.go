package checks_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"mpivet/api"
	"mpivet/check"
	"mpivet/checks/all"
	"mpivet/checks/internal/comms"
	"mpivet/checks/internal/objects"
	"mpivet/checks/internal/waitstate"
	"mpivet/checks/stall"
	"mpivet/report"
	"mpivet/trace"
	"mpivet/trace/tracetest"
)

func TestValidate(t *testing.T) {
	if err := check.Validate(all.Checks); err != nil {
		t.Fatal(err)
	}
	bad := []*check.Check{{Name: "Bad Name", Doc: "x", Run: func(*check.Pass) (any, error) { return nil, nil }}, {Name: "nodoc", Run: func(*check.Pass) (any, error) { return nil, nil }}}
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
	return report.Merge(fs)
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
		// SIGKILL from outside (its supervisor lived): named, a warning;
		// the others the launcher ended because of it
		{"killed-from-outside", []*trace.Process{
			mk(0, &trace.Exit{Signal: 15, Forwarded: 15}, barrier),
			mk(1, &trace.Exit{Signal: 9}, barrier),
			mk(2, nil, barrier)}, "warning:rank-killed", "rank 1 was killed by SIGKILL (killed) from outside the program"},
		{"killed-from-outside-victims", []*trace.Process{
			mk(0, &trace.Exit{Signal: 15, Forwarded: 15}, barrier),
			mk(1, &trace.Exit{Signal: 9}, barrier),
			mk(2, nil, barrier)}, "warning:rank-killed", "the launcher then ended ranks 0, 2 because of it"},
		// a crash signal another process sent (kill -SEGV): from outside;
		// one the rank sent itself (raise, abort()): the program's
		{"crash-signal-from-outside", []*trace.Process{
			mk(0, &trace.Exit{Signal: 15, Forwarded: 15}, barrier),
			sentBy(crashed(mk(1, &trace.Exit{Signal: 11}, barrier), 0), 4242),
			mk(2, nil, barrier)}, "warning:rank-killed", "rank 1 was killed by SIGSEGV"},
		{"crash-signal-raised", []*trace.Process{
			mk(0, &trace.Exit{Signal: 15, Forwarded: 15}, barrier),
			sentBy(crashed(mk(1, &trace.Exit{Signal: 6}, barrier), 0), -1),
			mk(2, nil, barrier)}, "error:program-failure", "rank 1 was killed by SIGABRT"},
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
		// a thread the MPI made crashes inside the program's MPI_Finalize:
		// the library's failure, a warning
		{"library-thread-in-finalize", []*trace.Process{
			crashed(mk(0, &trace.Exit{Signal: 11}, fin), api.SignalLibrary),
			mk(1, &trace.Exit{Signal: 15, Forwarded: 15}, fin),
			mk(2, &trace.Exit{Signal: 15, Forwarded: 15}, fin)}, "warning:mpi-library-crash", "thread of the MPI library"},
		// the same thread before MPI_Finalize: the program's run failed
		{"library-thread-before-finalize", []*trace.Process{
			crashed(mk(0, &trace.Exit{Signal: 11}, barrier), api.SignalLibrary),
			mk(1, &trace.Exit{Signal: 15, Forwarded: 15}, barrier),
			mk(2, &trace.Exit{Signal: 15, Forwarded: 15}, barrier)}, "error:program-failure", "SIGSEGV"},
		// a thread of the program's, or one that called MPI, or the main
		// thread, inside MPI_Finalize: the program's
		{"program-thread-in-finalize", []*trace.Process{
			crashed(mk(0, &trace.Exit{Signal: 11}, fin), 0),
			mk(1, &trace.Exit{Exited: true}, fin), mk(2, &trace.Exit{Exited: true}, fin)}, "error:program-failure", "SIGSEGV"},
		{"mpi-calling-thread-in-finalize", []*trace.Process{
			crashed(mk(0, &trace.Exit{Signal: 11}, fin), api.SignalLibrary|api.SignalCalledMPI),
			mk(1, &trace.Exit{Exited: true}, fin), mk(2, &trace.Exit{Exited: true}, fin)}, "error:program-failure", "SIGSEGV"},
		{"main-thread-in-finalize", []*trace.Process{
			crashed(mk(0, &trace.Exit{Signal: 6}, fin), api.SignalLibrary|api.SignalMain),
			mk(1, &trace.Exit{Exited: true}, fin), mk(2, &trace.Exit{Exited: true}, fin)}, "error:program-failure", "SIGABRT"},
		// a record of an older layer, without thread flags
		{"unknown-thread-in-finalize", []*trace.Process{
			crashed(mk(0, &trace.Exit{Signal: 11}, fin), -1),
			mk(1, &trace.Exit{Exited: true}, fin), mk(2, &trace.Exit{Exited: true}, fin)}, "error:program-failure", "SIGSEGV"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := run(t, &check.Input{Run: &trace.Run{Procs: tc.procs}, NP: 3, LauncherOutput: "Fatal error in PMPI_Barrier: Other MPI error"})
			if kinds(fs) != tc.want || !strings.Contains(fs[0].Message, tc.msg) {
				t.Fatalf("got %s: %+v", kinds(fs), fs)
			}
		})
	}
}

// The kernel's OOM killer ended processes during the run: the likely cause
// of a SIGKILL from outside; in a run mpivet ended after a failure, a
// SIGKILL is mpivet's own, not a finding.
func TestKilledOOM(t *testing.T) {
	mk := func(rank int, x *trace.Exit) *trace.Process {
		l := tracetest.New(rank, 2)
		l.Call("MPI_Init", 1, nil, map[string]any{})
		l.Call("MPI_Barrier", 5, nil, nil)
		p := l.Process()
		p.Exit = x
		return p
	}
	procs := []*trace.Process{mk(0, &trace.Exit{Signal: 15, Forwarded: 15}), mk(1, &trace.Exit{Signal: 9})}
	fs := run(t, &check.Input{Run: &trace.Run{Procs: procs}, NP: 2, OOMKills: 1})
	if kinds(fs) != "warning:rank-killed" || !strings.Contains(fs[0].Message, "the kernel's OOM killer ended 1 process on this machine during the run") {
		t.Errorf("got %s: %+v", kinds(fs), fs)
	}
	fs = run(t, &check.Input{Run: &trace.Run{Procs: procs}, NP: 2, Ended: true})
	if strings.Contains(kinds(fs), "rank-killed") {
		t.Errorf("a run mpivet ended: got %s: %+v", kinds(fs), fs)
	}
}

// crashed gives p the layer's record of the signal that ended it, in a
// thread with these api.Signal* flags (-1: a record without them).
func crashed(p *trace.Process, flags int) *trace.Process {
	th := uint64(0)
	if flags >= 0 {
		th = api.SignalKnown | api.SignalUnwound | uint64(flags)
	}
	p.Signal = &trace.Signal{Number: p.Exit.Signal, Thread: th, PC: 0x1234}
	return p
}

// sentBy marks p's signal as sent by process pid (-1: by p itself).
func sentBy(p *trace.Process, pid int) *trace.Process {
	p.Pid = 1000 + p.Rank
	if pid < 0 {
		pid = p.Pid
	}
	p.Signal.Thread |= api.SignalKnown | api.SignalSent
	p.Signal.Addr = uint64(pid)
	return p
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

// A rank that sends to, or waits for a message from, a rank that has called
// MPI_Finalize is deadlocked, and the report says why; buffering is not the
// cause (it would only leave the message unreceived).
func TestDeadlockOnFinalizedRank(t *testing.T) {
	for _, tc := range []struct {
		call, field, want string
		exited            bool
	}{
		{"MPI_Send", "dest", "rank 1 sends to rank 0, which has called MPI_Finalize", false},
		{"MPI_Recv", "source", "rank 1 waits for a message from rank 0, which has called MPI_Finalize", false},
		{"MPI_Ssend", "dest", "rank 1 sends to rank 0, which has called MPI_Finalize", true},
	} {
		l0 := tracetest.New(0, 2)
		l0.Call("MPI_Init", 1, nil, map[string]any{})
		if tc.exited {
			l0.Call("MPI_Finalize", 2, nil, map[string]any{})
		} else {
			l0.Call("MPI_Finalize", 2, nil, nil)
		}
		l1 := tracetest.New(1, 2)
		l1.Call("MPI_Init", 1, nil, map[string]any{})
		l1.Call(tc.call, 3, map[string]any{tc.field: 0, "tag": 0, "comm": uint64(0x1000)}, nil)
		p0 := l0.Process()
		if tc.exited {
			p0 = finished(p0)
		}
		fs := run(t, &check.Input{Run: &trace.Run{Procs: []*trace.Process{p0, l1.Process()}}, NP: 2, Stalled: true})
		if kinds(fs) != "error:deadlock" || !strings.Contains(fs[0].Message, tc.want) {
			t.Errorf("%s to a finalized rank: %s\n%v", tc.call, kinds(fs), fs)
		}
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

func TestBufferReuse(t *testing.T) {
	l := tracetest.New(0, 1)
	l.Call("MPI_Init", 1, nil, map[string]any{})
	send := l.Call("MPI_Isend", 2, map[string]any{"request_at": uint64(0x100)}, map[string]any{"request": uint64(0x77)})
	recv := l.Call("MPI_Irecv", 3, map[string]any{"request_at": uint64(0x108)}, map[string]any{"request": uint64(0x78)})
	never := l.Call("MPI_Irecv", 4, map[string]any{"request_at": uint64(0x110)}, map[string]any{"request": uint64(0x79)})
	l.Buffer(api.AccessWriteSend, 0x5000, send, "MPI_Isend", 0x77, 0, 0x400)
	l.Buffer(api.AccessReadRecv, 0x6000, never, "MPI_Irecv", 0x79, 0, 0x410)
	l.Buffer(api.AccessOverlap, 0x6000, never, "MPI_Irecv", 0x79, recv)
	l.Buffer(api.AccessWindowWriteRecv, 0x6000, recv, "MPI_Irecv", 0x78, 0, 0x3, 0x5)
	l.Call("MPI_Waitall", 5, map[string]any{"count": 2, "array_of_requests_at": uint64(0x100), "array_of_requests_stride": 8, "array_of_requests": []uint64{0x77, 0x78}},
		map[string]any{"array_of_requests_out": []uint64{0x2000, 0x2000}})
	l.Call("MPI_Request_free", 6, map[string]any{"request": uint64(0x79), "request_at": uint64(0x110)}, map[string]any{})
	l.Call("MPI_Finalize", 7, nil, map[string]any{})
	fs := run(t, &check.Input{Run: &trace.Run{Procs: []*trace.Process{finished(l.Process())}}, NP: 1})
	var msgs []string
	for _, f := range fs {
		if f.Kind == "buffer-reuse" {
			msgs = append(msgs, f.Message+fmt.Sprintf(" [%d locations]", len(f.Locations)))
		}
	}
	want := []string{
		"writes the send buffer of MPI_Isend while the operation is pending, before MPI_Waitall completes it [3 locations]",
		"reads the receive buffer of MPI_Irecv while the operation is pending, and no Wait or Test ever completes the operation [2 locations]",
		"MPI_Irecv starts on memory that the pending MPI_Irecv also uses",
		"writes the receive buffer of MPI_Irecv while the operation is pending, before MPI_Waitall completes it [4 locations]",
	}
	if len(msgs) != len(want) {
		t.Fatalf("buffer-reuse findings:\n%s", strings.Join(msgs, "\n"))
	}
	for _, w := range want {
		found := false
		for _, m := range msgs {
			found = found || strings.Contains(m, w)
		}
		if !found {
			t.Errorf("no finding %q in:\n%s", w, strings.Join(msgs, "\n"))
		}
	}
}

// Collective data: the type signatures each rank logged are compared, and a
// rank without them (Fortran, threads) or an uncomparable side (MPI_PACKED)
// is left out rather than taken for a mismatch.
func TestCollectiveData(t *testing.T) {
	const (
		send, recv, totals = 1, 2, 4
		intSig, packedSig  = 4<<8 | 4, 2<<8 | 1
	)
	world := func(l *tracetest.Log) uint64 { v, _ := l.Process().Const("MPI_COMM_WORLD"); return v }
	cases := []struct {
		name string
		data [][]uint64 // per rank: flags, send sig, send n, recv sig, recv n (nil: no record)
		want int
	}{
		{"bcast agrees", [][]uint64{{send, intSig, 4, 0, 0}, {send, intSig, 4, 0, 0}}, 0},
		{"bcast counts differ", [][]uint64{{send, intSig, 4, 0, 0}, {send, intSig, 2, 0, 0}}, 1},
		{"gatherv totals match", [][]uint64{{send | recv | totals, intSig, 1, intSig, 3}, {send | totals, intSig, 2, 0, 0}}, 0},
		{"gatherv totals differ", [][]uint64{{send | recv | totals, intSig, 1, intSig, 4}, {send | totals, intSig, 2, 0, 0}}, 1},
		{"gatherv, a rank unknown", [][]uint64{{send | recv | totals, intSig, 1, intSig, 4}, nil}, 0},
		{"gatherv, packed root", [][]uint64{{send | recv | totals, intSig, 1, packedSig, 12}, {send | totals, intSig, 2, 0, 0}}, 0},
		{"gatherv, root unknown", [][]uint64{nil, {send | totals, intSig, 2, 0, 0}}, 0},
	}
	for _, tc := range cases {
		var procs []*trace.Process
		for r := 0; r < 2; r++ {
			l := tracetest.New(r, 2)
			l.Call("MPI_Init", 1, nil, map[string]any{})
			name := "MPI_Bcast"
			if strings.HasPrefix(tc.name, "gatherv") {
				name = "MPI_Gatherv"
			}
			in := map[string]any{"comm": world(l)}
			if tc.data[r] == nil {
				l.Call(name, 2, in, map[string]any{})
			} else {
				l.CollCall(name, 2, in, map[string]any{}, tc.data[r]...)
			}
			l.Call("MPI_Finalize", 3, nil, map[string]any{})
			procs = append(procs, finished(l.Process()))
		}
		fs := run(t, &check.Input{Run: &trace.Run{Procs: procs}, NP: 2})
		if len(fs) != tc.want || (tc.want > 0 && fs[0].Kind != "collective-mismatch") {
			t.Errorf("%s: findings %s, want %d collective-mismatch", tc.name, kinds(fs), tc.want)
		}
	}
}

// A loop that writes a pending receive buffer in every iteration is caught
// at its line in some and by comparison in others: one finding, with the
// line. A write found by comparison at another call site stays reported.
func TestBufferReuseOneFindingPerSite(t *testing.T) {
	l := tracetest.New(0, 1)
	l.Call("MPI_Init", 1, nil, map[string]any{})
	var ops []uint64
	for i := 0; i < 2; i++ { // two iterations of one loop: same call site
		op := l.Call("MPI_Irecv", 3, map[string]any{"request_at": uint64(0x108)}, map[string]any{"request": uint64(0x78)})
		ops = append(ops, op)
		l.Call("MPI_Wait", 4, map[string]any{"request": uint64(0x78), "request_at": uint64(0x108)}, map[string]any{"request_out": uint64(0x2000)})
	}
	other := l.Call("MPI_Irecv", 9, map[string]any{"request_at": uint64(0x110)}, map[string]any{"request": uint64(0x79)})
	l.Call("MPI_Wait", 10, map[string]any{"request": uint64(0x79), "request_at": uint64(0x110)}, map[string]any{"request_out": uint64(0x2000)})
	l.Buffer(api.AccessWriteRecv, 0x6000, ops[0], "MPI_Irecv", 0x78, 0, 0x400)
	l.Buffer(api.AccessWindowWriteRecv, 0x6000, ops[1], "MPI_Irecv", 0x78, 0, 0x3, 0x4)
	l.Buffer(api.AccessWindowWriteRecv, 0x7000, other, "MPI_Irecv", 0x79, 0, 0x9, 0xa)
	l.Call("MPI_Finalize", 11, nil, map[string]any{})
	fs := run(t, &check.Input{Run: &trace.Run{Procs: []*trace.Process{finished(l.Process())}}, NP: 1})
	var locs []int
	for _, f := range fs {
		if f.Kind == "buffer-reuse" {
			locs = append(locs, len(f.Locations))
		}
	}
	// the exact write: access, start, completion; the other site's window:
	// after, before, start, completion
	if len(locs) != 2 || locs[0]+locs[1] != 7 {
		t.Errorf("buffer-reuse findings with %v locations, want one exact (3) and one by comparison (4)", locs)
	}
}

// A deadlocked rank whose threads outside MPI the stall watch could not
// see (another host) is still found, and the finding says so when its
// thread level allows other threads; not for a rank it saw, nor under
// MPI_THREAD_SINGLE.
func TestDeadlockThreadsUnseen(t *testing.T) {
	recv := func(rank, level int, seen bool) *trace.Process {
		l := tracetest.New(rank, 2)
		l.Call("MPI_Init_thread", 1, nil, map[string]any{"provided": level})
		l.Call("MPI_Recv", 2, map[string]any{"source": 1 - rank, "tag": 0, "comm": uint64(0x1000)}, nil)
		p := l.Process()
		p.Level = level
		if seen {
			p.Asleep = &trace.Asleep{All: true}
		}
		return p
	}
	for _, tc := range []struct {
		level int
		seen  bool
		want  string
	}{{3, false, "rank 0: its threads outside MPI were not seen"}, {3, true, ""}, {0, false, ""}} {
		in := &check.Input{Run: &trace.Run{Procs: []*trace.Process{recv(0, tc.level, tc.seen), recv(1, tc.level, true)}}, NP: 2, Stalled: true}
		fs := run(t, in)
		if len(fs) != 1 || fs[0].Kind != "deadlock" {
			t.Fatalf("level %d, seen %v: %v, want one deadlock", tc.level, tc.seen, fs)
		}
		if got := strings.Contains(fs[0].Message, "were not seen"); got != (tc.want != "") || tc.want != "" && !strings.Contains(fs[0].Message, tc.want) {
			t.Errorf("level %d, seen %v: %s", tc.level, tc.seen, fs[0].Message)
		}
	}
}

// The shared analyses run once per execution, however many checks read
// them: objects and communicators once per rank, the wait-for analysis once
// for the stall, once more for buffering (the deadlock check's question:
// would buffered sends end it?), and once more for the driver's question
// about a replay's forced match, on the same Unit.
func TestSharedAnalysesOncePerExecution(t *testing.T) {
	l0 := tracetest.New(0, 2)
	l0.Call("MPI_Init", 1, nil, map[string]any{})
	l0.Call("MPI_Send", 2, map[string]any{"dest": 1, "tag": 0, "comm": uint64(0x1000)}, nil)
	l1 := tracetest.New(1, 2)
	l1.Call("MPI_Init", 1, nil, map[string]any{})
	l1.Call("MPI_Send", 2, map[string]any{"dest": 0, "tag": 0, "comm": uint64(0x1000)}, nil)
	in := &check.Input{Run: &trace.Run{Procs: []*trace.Process{l0.Process(), l1.Process()}}, NP: 2, Stalled: true}
	f0, c0, w0 := objects.Follows(), comms.Indexes(), waitstate.Analyses()
	u := check.NewUnit(in)
	if forced, err := stall.ForcedOnly(u); err != nil || forced {
		t.Fatalf("ForcedOnly = %v, %v", forced, err)
	}
	fs, err := u.Findings(all.Checks)
	if err != nil {
		t.Fatal(err)
	}
	if k := kinds(report.Merge(fs)); k != "error:unsafe-buffering" {
		t.Fatalf("findings: %s", k)
	}
	f, c, w := objects.Follows()-f0, comms.Indexes()-c0, waitstate.Analyses()-w0
	t.Logf("per stalled execution of 2 ranks: objects followed %d, communicators indexed %d, wait-for analyses %d", f, c, w)
	if f != 2 || c != 2 || w != 3 {
		t.Errorf("objects followed %d times, communicators indexed %d, wait-for analyses %d; want 2, 2, 3", f, c, w)
	}
}

// Collectives are compared as the ranks' calls are read in step: a long
// run of them on two communicators (one with a member that makes none on
// it, and ends late), with one difference far in: one finding, on the
// communicator and at the position where they differ, with the call of
// each member.
func TestCollectivesCompareInStep(t *testing.T) {
	const n = 3000
	world := func(*tracetest.Log) uint64 { return tracetest.Consts["MPI_COMM_WORLD"] }
	var procs []*trace.Process
	for r := 0; r < 3; r++ {
		l := tracetest.New(r, 3)
		l.Call("MPI_Init", 1, nil, map[string]any{})
		if r < 2 {
			l.Call("MPI_Comm_split", 2, map[string]any{"comm": world(l)}, map[string]any{"newcomm": uint64(0x500)})
			l.NewComm(0x500, 0, 1)
		} else {
			l.Call("MPI_Comm_split", 2, map[string]any{"comm": world(l)}, map[string]any{"newcomm": uint64(0x600)})
			l.NewComm(0x600, 2)
		}
		for i := 0; i < n; i++ {
			l.Call("MPI_Barrier", 3, map[string]any{"comm": world(l)}, map[string]any{})
			if r < 2 {
				name := "MPI_Barrier"
				if r == 1 && i == n-10 {
					name = "MPI_Bcast" // the difference, on the split communicator
				}
				in := map[string]any{"comm": uint64(0x500)}
				if name == "MPI_Bcast" {
					in["root"] = 0
				}
				l.Call(name, 4, in, map[string]any{})
			}
		}
		for i := 0; i < 100; i++ { // rank 2 goes on alone
			l.Call("MPI_Barrier", 5, map[string]any{"comm": uint64(0x600)}, map[string]any{})
		}
		comm := uint64(0x500)
		if r == 2 {
			comm = 0x600
		}
		l.Call("MPI_Comm_free", 6, map[string]any{"comm": comm}, map[string]any{})
		l.Call("MPI_Finalize", 7, nil, map[string]any{})
		procs = append(procs, finished(l.Process()))
	}
	fs := run(t, &check.Input{Run: &trace.Run{Procs: procs}, NP: 3})
	if len(fs) != 1 || fs[0].Kind != "collective-mismatch" || !strings.Contains(fs[0].Message, fmt.Sprintf("collective number %d on ", n-9)) ||
		len(fs[0].Locations) != 2 || fmt.Sprint(fs[0].Ranks) != "[0 1]" {
		t.Fatalf("findings %s: %+v", kinds(fs), fs)
	}
}
