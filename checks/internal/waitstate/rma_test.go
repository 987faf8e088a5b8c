package waitstate

import (
	"testing"

	"mpivet/api"
	"mpivet/trace"
	"mpivet/trace/tracetest"
)

const win = uint64(0x9000)

// rmaRank is a rank that made a window on the world (3 ranks) and then
// made the calls steps logs; a step with a nil exit has not returned.
func rmaRank(r int, steps func(l *tracetest.Log)) *trace.Process {
	l := tracetest.New(r, 3)
	l.Call("MPI_Init", 1, nil, map[string]any{})
	l.Call("MPI_Win_create", 2, map[string]any{"size": 64, "disp_unit": 4, "comm": worldComm}, map[string]any{"win": win})
	steps(l)
	p := l.Process()
	for name, v := range map[string]uint64{"MPI_LOCK_EXCLUSIVE": 1, "MPI_LOCK_SHARED": 2} {
		p.ConstVal[name] = v
		p.Consts[v] = append(p.Consts[v], name)
	}
	return p
}

var returned = map[string]any{}

// Ranks 0 and 1 hang in one-sided synchronisation while rank 2 computes
// (it made no call since the window): a deadlock of ranks 0 and 1 all the
// same, found without waiting for rank 2 to block. Before, a rank in a
// synchronisation call waited for any other rank that could act. The
// correct twins (the lock holder or the missing member computes) are no
// deadlock.
func TestRMAWaitsForItsPeers(t *testing.T) {
	computing := func(l *tracetest.Log) {}
	for _, tc := range []struct {
		name   string
		r0, r1 func(l *tracetest.Log)
		dead   bool
	}{
		{"fence missing on a rank", func(l *tracetest.Log) {
			l.Call("MPI_Win_fence", 3, map[string]any{"win": win}, returned)
			l.Call("MPI_Win_fence", 4, map[string]any{"win": win}, nil)
		}, func(l *tracetest.Log) {
			l.Call("MPI_Win_fence", 3, map[string]any{"win": win}, returned)
			l.Call("MPI_Recv", 4, map[string]any{"source": 0, "comm": worldComm}, nil)
		}, true},
		{"fence against free", func(l *tracetest.Log) {
			l.Call("MPI_Win_fence", 3, map[string]any{"win": win}, nil)
		}, func(l *tracetest.Log) {
			l.Call("MPI_Win_free", 3, map[string]any{"win": win}, nil)
		}, true},
		{"free against a free that failed", func(l *tracetest.Log) {
			l.Call("MPI_Win_free", 3, map[string]any{"win": win}, map[string]any{"rc": 45})
			l.Call("MPI_Finalize", 4, nil, nil)
		}, func(l *tracetest.Log) {
			l.Call("MPI_Win_free", 3, map[string]any{"win": win}, nil)
		}, true},
		{"fence, the other rank computing", func(l *tracetest.Log) {
			l.Call("MPI_Win_fence", 3, map[string]any{"win": win}, nil)
		}, computing, false},
		{"lock held by a blocked rank", func(l *tracetest.Log) {
			l.Call("MPI_Win_lock", 3, map[string]any{"lock_type": 1, "rank": 1, "win": win}, returned)
			l.Call("MPI_Recv", 4, map[string]any{"source": 1, "comm": worldComm}, nil)
		}, func(l *tracetest.Log) {
			l.Call("MPI_Win_lock", 3, map[string]any{"lock_type": 2, "rank": 1, "win": win}, nil)
		}, true},
		{"lock held by a computing rank", func(l *tracetest.Log) {
			l.Call("MPI_Win_lock", 3, map[string]any{"lock_type": 1, "rank": 1, "win": win}, returned)
		}, func(l *tracetest.Log) {
			l.Call("MPI_Win_lock", 3, map[string]any{"lock_type": 2, "rank": 1, "win": win}, nil)
		}, false},
		{"shared locks do not conflict", func(l *tracetest.Log) {
			l.Call("MPI_Win_lock", 3, map[string]any{"lock_type": 2, "rank": 1, "win": win}, returned)
			l.Call("MPI_Recv", 4, map[string]any{"source": 1, "comm": worldComm}, nil)
		}, func(l *tracetest.Log) {
			l.Call("MPI_Win_lock", 3, map[string]any{"lock_type": 2, "rank": 1, "win": win}, nil)
		}, false},
		{"exclusive lock taken again by its holder", func(l *tracetest.Log) {
			l.Call("MPI_Win_lock", 3, map[string]any{"lock_type": 1, "rank": 1, "win": win}, returned)
			l.Call("MPI_Win_lock", 4, map[string]any{"lock_type": 1, "rank": 1, "win": win}, nil)
		}, func(l *tracetest.Log) {
			l.Call("MPI_Barrier", 3, map[string]any{"comm": worldComm}, nil)
		}, true},
		{"exclusive lock taken again, the other rank computing: it waits for itself", func(l *tracetest.Log) {
			l.Call("MPI_Win_lock", 3, map[string]any{"lock_type": 1, "rank": 1, "win": win}, returned)
			l.Call("MPI_Win_lock", 4, map[string]any{"lock_type": 1, "rank": 1, "win": win}, nil)
		}, computing, true},
		{"shared lock taken again by its holder", func(l *tracetest.Log) {
			l.Call("MPI_Win_lock", 3, map[string]any{"lock_type": 2, "rank": 1, "win": win}, returned)
			l.Call("MPI_Win_lock", 4, map[string]any{"lock_type": 2, "rank": 1, "win": win}, nil)
		}, computing, false},
		{"wait without complete", func(l *tracetest.Log) {
			off := l.Call("MPI_Win_post", 3, map[string]any{"win": win}, returned)
			l.Meta(api.MetaRMA, off, 1, 1)
			l.Call("MPI_Win_wait", 4, map[string]any{"win": win}, nil)
		}, func(l *tracetest.Log) {
			off := l.Call("MPI_Win_start", 3, map[string]any{"win": win}, returned)
			l.Meta(api.MetaRMA, off, 1, 0)
			l.Call("MPI_Recv", 4, map[string]any{"source": 0, "comm": worldComm}, nil)
		}, true},
		{"wait, the origin computing before its complete", func(l *tracetest.Log) {
			off := l.Call("MPI_Win_post", 3, map[string]any{"win": win}, returned)
			l.Meta(api.MetaRMA, off, 1, 1)
			l.Call("MPI_Win_wait", 4, map[string]any{"win": win}, nil)
		}, func(l *tracetest.Log) {
			off := l.Call("MPI_Win_start", 3, map[string]any{"win": win}, returned)
			l.Meta(api.MetaRMA, off, 1, 0)
		}, false},
	} {
		run := &trace.Run{Procs: []*trace.Process{rmaRank(0, tc.r0), rmaRank(1, tc.r1), rmaRank(2, computing)}}
		a := Analyze(run)
		if dead := len(a.Deadlocked) > 0; dead != tc.dead {
			t.Errorf("%s: deadlocked %v, want %v", tc.name, a.Deadlocked, tc.dead)
		}
	}
}
