package rma

import (
	"strings"
	"testing"

	"mpivet/api"
	"mpivet/check"
	"mpivet/checks/internal/comms"
	reports "mpivet/report"
	"mpivet/trace"
	"mpivet/trace/tracetest"
)

const win = 0x5000

var world = tracetest.Consts["MPI_COMM_WORLD"]

// rank writes one rank's log: the window's creation, the calls step gives,
// its free and MPI_Finalize.
type rank struct {
	l  *tracetest.Log
	pc uint64
}

func newRank(r, n int) *rank {
	k := &rank{l: tracetest.New(r, n), pc: 0x100}
	k.call("MPI_Init", nil)
	k.call("MPI_Win_create", map[string]any{"size": 64, "disp_unit": 4, "comm": world}, map[string]any{"win": win})
	return k
}

// call logs a returned call at the next call site (in: the entry's fields;
// out: the exit's), and returns its entry offset.
func (k *rank) call(name string, in map[string]any, out ...map[string]any) uint64 {
	k.pc += 0x10
	o := map[string]any{}
	if len(out) > 0 {
		o = out[0]
	}
	return k.l.Call(name, k.pc, in, o)
}

func (k *rank) at(line int) uint64 { return 0x100 + 0x10*uint64(line) }

// op logs a one-sided operation of one element of 4 bytes at disp.
func (k *rank) op(name string, target, disp int, extra map[string]any) {
	in := map[string]any{"target_rank": target, "target_disp": disp, "target_count": 1, "win": win,
		"target_datatype": tracetest.Consts["MPI_INT"], "origin_count": 1}
	for f, v := range extra {
		in[f] = v
	}
	off := k.call(name, in)
	k.l.Meta(api.MetaRMA, off, 0, 4, 0, 4)
}

func (k *rank) w(name string, in map[string]any) {
	if in == nil {
		in = map[string]any{}
	}
	in["win"] = win
	k.call(name, in)
}

func (k *rank) end() *trace.Process {
	k.call("MPI_Win_free", map[string]any{"win": win})
	k.call("MPI_Finalize", nil)
	p := k.l.Process()
	for name, v := range map[string]uint64{"MPI_LOCK_EXCLUSIVE": 1, "MPI_LOCK_SHARED": 2} {
		p.ConstVal[name] = v
		p.Consts[v] = append(p.Consts[v], name)
	}
	return p
}

func findings(t *testing.T, procs ...*trace.Process) []check.Finding {
	t.Helper()
	fs, err := check.Run([]*check.Check{Check, comms.Analyzer}, &check.Input{Run: &trace.Run{Procs: procs}, NP: len(procs)})
	if err != nil {
		t.Fatal(err)
	}
	return reports.Merge(fs)
}

// three runs the same steps on ranks 1 and 2 (given the rank), rank 0
// only fencing or barriers as the steps say.
func three(t *testing.T, steps func(r int, k *rank)) []check.Finding {
	var ps []*trace.Process
	for r := 0; r < 3; r++ {
		k := newRank(r, 3)
		steps(r, k)
		ps = append(ps, k.end())
	}
	return findings(t, ps...)
}

func kinds(fs []check.Finding) string {
	var ks []string
	for _, f := range fs {
		ks = append(ks, f.Kind)
	}
	return strings.Join(ks, " ")
}

func TestFenceRaces(t *testing.T) {
	sum := map[string]any{"op": tracetest.Consts["MPI_SUM"]}
	for _, c := range []struct {
		name  string
		steps func(r int, k *rank)
		want  string
	}{
		{"put/put in one interval", func(r int, k *rank) {
			k.w("MPI_Win_fence", nil)
			if r > 0 {
				k.op("MPI_Put", 0, 2, nil)
			}
			k.w("MPI_Win_fence", nil)
		}, "rma-race"},
		{"put/get in one interval", func(r int, k *rank) {
			k.w("MPI_Win_fence", nil)
			if r == 1 {
				k.op("MPI_Put", 0, 2, nil)
			} else if r == 2 {
				k.op("MPI_Get", 0, 2, nil)
			}
			k.w("MPI_Win_fence", nil)
		}, "rma-race"},
		{"get/get", func(r int, k *rank) {
			k.w("MPI_Win_fence", nil)
			if r > 0 {
				k.op("MPI_Get", 0, 2, nil)
			}
			k.w("MPI_Win_fence", nil)
		}, ""},
		{"same-op accumulates", func(r int, k *rank) {
			k.w("MPI_Win_fence", nil)
			if r > 0 {
				k.op("MPI_Accumulate", 0, 2, sum)
			}
			k.w("MPI_Win_fence", nil)
		}, ""},
		{"put/accumulate", func(r int, k *rank) {
			k.w("MPI_Win_fence", nil)
			if r == 1 {
				k.op("MPI_Put", 0, 2, nil)
			} else if r == 2 {
				k.op("MPI_Accumulate", 0, 2, sum)
			}
			k.w("MPI_Win_fence", nil)
		}, "rma-race"},
		{"disjoint bytes", func(r int, k *rank) {
			k.w("MPI_Win_fence", nil)
			if r > 0 {
				k.op("MPI_Put", 0, r, nil)
			}
			k.w("MPI_Win_fence", nil)
		}, ""},
		{"a fence between", func(r int, k *rank) {
			k.w("MPI_Win_fence", nil)
			if r == 1 {
				k.op("MPI_Put", 0, 2, nil)
			}
			k.w("MPI_Win_fence", nil)
			if r == 2 {
				k.op("MPI_Put", 0, 2, nil)
			}
			k.w("MPI_Win_fence", nil)
		}, ""},
	} {
		if got := kinds(three(t, c.steps)); got != c.want {
			t.Errorf("%s: findings %q, want %q", c.name, got, c.want)
		}
	}
}

func TestPassiveRaces(t *testing.T) {
	barrier := func(k *rank) { k.call("MPI_Barrier", map[string]any{"comm": world}) }
	for _, c := range []struct {
		name  string
		steps func(r int, k *rank)
		want  string
	}{
		{"shared locks, nothing between", func(r int, k *rank) {
			if r > 0 {
				k.w("MPI_Win_lock", map[string]any{"lock_type": 2, "rank": 0})
				k.op("MPI_Put", 0, 2, nil)
				k.w("MPI_Win_unlock", map[string]any{"rank": 0})
			}
		}, "rma-race"},
		{"exclusive locks", func(r int, k *rank) {
			if r > 0 {
				k.w("MPI_Win_lock", map[string]any{"lock_type": 1, "rank": 0})
				k.op("MPI_Put", 0, 2, nil)
				k.w("MPI_Win_unlock", map[string]any{"rank": 0})
			}
		}, ""},
		{"flushed before a barrier", func(r int, k *rank) {
			k.w("MPI_Win_lock_all", nil)
			if r == 1 {
				k.op("MPI_Put", 0, 2, nil)
				k.w("MPI_Win_flush", map[string]any{"rank": 0})
			}
			barrier(k)
			if r == 2 {
				k.op("MPI_Put", 0, 2, nil)
			}
			k.w("MPI_Win_unlock_all", nil)
		}, ""},
		{"flushed before a message", func(r int, k *rank) {
			k.w("MPI_Win_lock_all", nil)
			if r == 1 {
				k.op("MPI_Put", 0, 2, nil)
				k.w("MPI_Win_flush", map[string]any{"rank": 0})
				k.call("MPI_Send", map[string]any{"dest": 2, "tag": 5, "comm": world})
			}
			if r == 2 {
				k.call("MPI_Recv", map[string]any{"source": 1, "tag": 5, "comm": world}, map[string]any{"status": [2]int64{1, 5}})
				k.op("MPI_Put", 0, 2, nil)
			}
			k.w("MPI_Win_unlock_all", nil)
		}, ""},
		{"a message on another tag", func(r int, k *rank) {
			// the receive of tag 6 takes the message sent after the flush
			k.w("MPI_Win_lock_all", nil)
			if r == 1 {
				k.call("MPI_Send", map[string]any{"dest": 2, "tag": 5, "comm": world})
				k.op("MPI_Put", 0, 2, nil)
				k.w("MPI_Win_flush", map[string]any{"rank": 0})
				k.call("MPI_Send", map[string]any{"dest": 2, "tag": 6, "comm": world})
			}
			if r == 2 {
				k.call("MPI_Recv", map[string]any{"source": 1, "tag": 6, "comm": world}, map[string]any{"status": [2]int64{1, 6}})
				k.op("MPI_Put", 0, 2, nil)
				k.call("MPI_Recv", map[string]any{"source": 1, "tag": 5, "comm": world}, map[string]any{"status": [2]int64{1, 5}})
			}
			k.w("MPI_Win_unlock_all", nil)
		}, ""},
		{"a message before the flush", func(r int, k *rank) {
			k.w("MPI_Win_lock_all", nil)
			if r == 1 {
				k.op("MPI_Put", 0, 2, nil)
				k.call("MPI_Send", map[string]any{"dest": 2, "tag": 5, "comm": world})
				k.w("MPI_Win_flush", map[string]any{"rank": 0})
			}
			if r == 2 {
				k.call("MPI_Recv", map[string]any{"source": 1, "tag": 5, "comm": world}, map[string]any{"status": [2]int64{1, 5}})
				k.op("MPI_Put", 0, 2, nil)
			}
			k.w("MPI_Win_unlock_all", nil)
		}, "rma-race"},
		{"a barrier but no flush", func(r int, k *rank) {
			k.w("MPI_Win_lock_all", nil)
			if r == 1 {
				k.op("MPI_Put", 0, 2, nil)
			}
			barrier(k)
			if r == 2 {
				k.op("MPI_Put", 0, 2, nil)
			}
			k.w("MPI_Win_unlock_all", nil)
		}, "rma-race"},
	} {
		if got := kinds(three(t, c.steps)); got != c.want {
			t.Errorf("%s: findings %q, want %q", c.name, got, c.want)
		}
	}
}

func TestEpochs(t *testing.T) {
	for _, c := range []struct {
		name  string
		steps func(r int, k *rank)
		want  string
	}{
		{"outside any epoch", func(r int, k *rank) {
			if r == 1 {
				k.op("MPI_Put", 0, 2, nil)
			}
		}, "rma-epoch"},
		{"unlock without lock", func(r int, k *rank) {
			if r == 1 {
				k.w("MPI_Win_unlock", map[string]any{"rank": 0})
			}
		}, "rma-epoch"},
		{"freed with a lock open", func(r int, k *rank) {
			if r == 1 {
				k.w("MPI_Win_lock", map[string]any{"lock_type": 2, "rank": 0})
			}
		}, "rma-epoch"},
		{"fences counted differently", func(r int, k *rank) {
			k.w("MPI_Win_fence", nil)
			if r == 1 {
				k.w("MPI_Win_fence", nil)
			}
		}, "rma-epoch"},
		{"lock, put, unlock", func(r int, k *rank) {
			k.w("MPI_Win_lock", map[string]any{"lock_type": 2, "rank": (r + 1) % 3})
			k.op("MPI_Put", (r+1)%3, 0, nil)
			k.w("MPI_Win_unlock", map[string]any{"rank": (r + 1) % 3})
		}, ""},
	} {
		if got := kinds(three(t, c.steps)); got != c.want {
			t.Errorf("%s: findings %q, want %q", c.name, got, c.want)
		}
	}
}

// TestTargetStores: the target's bytes of a Put differed at the closing
// synchronisation (MetaRMAValue, layer/src/rma/values.c): a race, unless
// another write to those bytes in that epoch or the next explains it.
func TestTargetStores(t *testing.T) {
	for _, c := range []struct {
		name       string
		nextPut    bool // rank 2 puts to the same bytes in the next epoch
		wrongBytes bool // the record names a Put the origin did not make
		want       string
	}{
		{"store in the epoch", false, false, "rma-race"},
		{"explained by the next epoch's Put", true, false, ""},
		{"no such Put", false, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			k1, k2 := newRank(1, 3), newRank(2, 3)
			put := func(k *rank) uint64 {
				off := k.call("MPI_Put", map[string]any{"target_rank": 0, "target_disp": 2, "target_count": 1, "win": win,
					"target_datatype": tracetest.Consts["MPI_INT"], "origin_count": 1})
				k.l.Meta(api.MetaRMA, off, 0, 4, 0, 4)
				return off
			}
			k1.w("MPI_Win_fence", nil)
			k2.w("MPI_Win_fence", nil)
			p1 := put(k1)
			k1.w("MPI_Win_fence", nil)
			k2.w("MPI_Win_fence", nil)
			if c.nextPut {
				put(k2)
			}
			k1.w("MPI_Win_fence", nil)
			k2.w("MPI_Win_fence", nil)
			k0 := newRank(0, 3)
			k0.w("MPI_Win_fence", nil)
			closing := k0.call("MPI_Win_fence", map[string]any{"win": win})
			if c.wrongBytes {
				p1 += 8
			}
			k0.l.Meta(api.MetaRMAValue, closing, 1, p1, 8, 4)
			k0.w("MPI_Win_fence", nil)
			fs := findings(t, k0.end(), k1.end(), k2.end())
			if got := kinds(fs); got != c.want {
				t.Fatalf("kinds %q, want %q: %+v", got, c.want, fs)
			}
			if c.want != "" && !strings.Contains(fs[0].Message, "rank 0 wrote to bytes 8-11 of its own window during the fence epoch") {
				t.Errorf("message: %s", fs[0].Message)
			}
		})
	}
}

// TestTargetAccesses: the target's own first load or store of a page in an
// exposure epoch (layer/src/buffers/exposure.c records them) against the
// remote operations of the same epoch.
func TestTargetAccesses(t *testing.T) {
	load, store := api.AccessTargetLoad, api.AccessTargetStore
	fence := func(k *rank) uint64 { return k.call("MPI_Win_fence", map[string]any{"win": win}) }
	for _, c := range []struct {
		name string
		op   string // rank 1's operation on rank 0, 4 bytes at byte 8
		kind int    // rank 0's access
		off  uint64 // at this byte of its window
		late bool   // in the epoch after the operation's
		want string
	}{
		{"load of a put's bytes", "MPI_Put", load, 9, false, "rma-race"},
		{"store into a put's bytes", "MPI_Put", store, 8, false, "rma-race"},
		{"load of an accumulate's bytes", "MPI_Accumulate", load, 11, false, "rma-race"},
		{"store into a get's bytes", "MPI_Get", store, 10, false, "rma-race"},
		{"load of a get's bytes: two reads", "MPI_Get", load, 8, false, ""},
		{"load beside a put's bytes", "MPI_Put", load, 12, false, ""},
		{"load before a put's bytes", "MPI_Put", load, 7, false, ""},
		{"load of a put's bytes after the closing fence", "MPI_Put", load, 9, true, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := three(t, func(r int, k *rank) {
				f1 := fence(k)
				if r == 1 {
					k.op(c.op, 0, 2, map[string]any{"op": tracetest.Consts["MPI_SUM"]})
				}
				f2 := fence(k)
				if r == 0 {
					at := f1
					if c.late {
						at = f2
					}
					k.l.Buffer(c.kind, 0x7000+c.off, at, "MPI_Win_fence", win, c.off, 0x999)
				}
				fence(k)
			})
			if got := kinds(fs); got != c.want {
				t.Fatalf("got %q, want %q: %v", got, c.want, fs)
			}
		})
	}
}

// TestTargetAccessesPSCW: an exposure epoch from MPI_Win_post to
// MPI_Win_wait holds the operations of the origins' matching starts.
func TestTargetAccessesPSCW(t *testing.T) {
	for _, late := range []bool{false, true} {
		var ps []*trace.Process
		for r := 0; r < 2; r++ {
			k := newRank(r, 2)
			for e := 0; e < 2; e++ {
				if r == 0 {
					post := k.call("MPI_Win_post", map[string]any{"win": win})
					k.l.Meta(api.MetaRMA, post, 1, 1)
					if e == 1 == late {
						k.l.Buffer(api.AccessTargetLoad, 0x7008, post, "MPI_Win_post", win, 8, 0x999)
					}
					k.w("MPI_Win_wait", nil)
				} else {
					start := k.call("MPI_Win_start", map[string]any{"win": win})
					k.l.Meta(api.MetaRMA, start, 1, 0)
					if e == 0 {
						k.op("MPI_Put", 0, 2, nil)
					}
					k.w("MPI_Win_complete", nil)
				}
			}
			ps = append(ps, k.end())
		}
		want := "rma-race"
		if late {
			want = "" // the Put is in the first epoch, the load in the second
		}
		if got := kinds(findings(t, ps...)); got != want {
			t.Errorf("load in epoch %v: got %q, want %q", late, got, want)
		}
	}
}

// TestEpochsMixed: epochs of different kinds opened inside one another on
// one window, and calls judged whether or not the MPI returned from them.
func TestEpochsMixed(t *testing.T) {
	lock := func(k *rank, to int) { k.w("MPI_Win_lock", map[string]any{"lock_type": 2, "rank": to}) }
	unlock := func(k *rank, to int) { k.w("MPI_Win_unlock", map[string]any{"rank": to}) }
	for _, c := range []struct {
		name  string
		steps func(r int, k *rank)
		want  string
	}{
		{"lock inside lock_all", func(r int, k *rank) {
			if r == 1 {
				k.w("MPI_Win_lock_all", nil)
				lock(k, 0) // taken by the MPI: its unlock is right
				unlock(k, 0)
				k.w("MPI_Win_unlock_all", nil)
			}
		}, "rma-epoch"},
		{"lock_all inside a lock", func(r int, k *rank) {
			if r == 1 {
				lock(k, 0)
				k.w("MPI_Win_lock_all", nil)
				k.w("MPI_Win_unlock_all", nil)
				unlock(k, 0)
			}
		}, "rma-epoch"},
		{"fence inside a lock", func(r int, k *rank) {
			if r == 1 {
				lock(k, 2)
			}
			k.w("MPI_Win_fence", nil)
			if r == 1 {
				unlock(k, 2)
			}
		}, "rma-epoch"},
		{"lock_all inside an active fence epoch", func(r int, k *rank) {
			k.w("MPI_Win_fence", nil)
			if r == 1 {
				k.op("MPI_Put", 0, 2, nil)
				k.w("MPI_Win_lock_all", nil)
				k.w("MPI_Win_unlock_all", nil)
			}
			k.w("MPI_Win_fence", nil)
		}, "rma-epoch"},
		{"lock refused by the MPI inside lock_all", func(r int, k *rank) {
			if r == 1 {
				k.w("MPI_Win_lock_all", nil)
				k.call("MPI_Win_lock", map[string]any{"lock_type": 2, "rank": 0, "win": win}, map[string]any{"rc": 51})
				k.w("MPI_Win_unlock_all", nil) // no lock left open at the free
			}
		}, "rma-epoch"},
		{"clean: lock_all after a closing fence, nested locks of two targets", func(r int, k *rank) {
			k.w("MPI_Win_fence", nil)
			k.op("MPI_Put", (r+1)%3, 1, nil)
			k.w("MPI_Win_fence", nil) // closes the epoch (no operation after it)
			k.w("MPI_Win_lock_all", nil)
			k.op("MPI_Put", (r+1)%3, 2, nil)
			k.w("MPI_Win_flush", map[string]any{"rank": (r + 1) % 3})
			k.w("MPI_Win_unlock_all", nil)
			k.call("MPI_Barrier", map[string]any{"comm": world})
			lock(k, (r+1)%3)
			lock(k, (r+2)%3)
			k.op("MPI_Get", (r+2)%3, 3, nil)
			unlock(k, (r+2)%3)
			unlock(k, (r+1)%3)
		}, ""},
	} {
		if got := kinds(three(t, c.steps)); got != c.want {
			t.Errorf("%s: findings %q, want %q", c.name, got, c.want)
		}
	}
}

// TestEpochsFatal: an operation outside any epoch that the MPI aborted in
// (no exit record) is found at its call.
func TestEpochsFatal(t *testing.T) {
	var ps []*trace.Process
	for r := 0; r < 2; r++ {
		k := newRank(r, 2)
		k.pc += 0x10
		k.l.Call("MPI_Put", k.pc, map[string]any{"target_rank": 1 - r, "target_disp": 0, "target_count": 1, "win": win,
			"target_datatype": tracetest.Consts["MPI_INT"], "origin_count": 1}, nil)
		ps = append(ps, k.l.Process())
	}
	fs := findings(t, ps...)
	if kinds(fs) != "rma-epoch rma-epoch" || !strings.Contains(fs[0].Message, "outside an access epoch") {
		t.Fatalf("findings %+v, want an rma-epoch of each rank's Put", fs)
	}
}

// TestPassiveTargetAccesses: rank 0's own access between two of its calls
// (a record after its latest call) against rank 1's operation on 4 bytes
// at byte 8 of rank 0's window in a passive-target epoch.
func TestPassiveTargetAccesses(t *testing.T) {
	load, store := api.AccessPassiveLoad, api.AccessPassiveStore
	barrier := func(k *rank) { k.call("MPI_Barrier", map[string]any{"comm": world}) }
	access := func(k *rank, kind int, off uint64) {
		k.l.Buffer(kind, 0x7000+off, ^uint64(0), "MPI_Init", win, off, 0x999)
	}
	locked := func(k *rank, typ int, op string) {
		k.w("MPI_Win_lock", map[string]any{"lock_type": typ, "rank": 0})
		k.op(op, 0, 2, nil)
		k.w("MPI_Win_unlock", map[string]any{"rank": 0})
	}
	flushed := func(k *rank, send bool) {
		k.w("MPI_Win_lock_all", nil)
		k.op("MPI_Put", 0, 2, nil)
		k.w("MPI_Win_flush", map[string]any{"rank": 0})
		if send {
			k.call("MPI_Send", map[string]any{"dest": 0, "tag": 5, "comm": world})
		}
		k.w("MPI_Win_unlock_all", nil)
	}
	recv := func(k *rank) {
		k.call("MPI_Recv", map[string]any{"source": 1, "tag": 5, "comm": world}, map[string]any{"status": [2]int64{1, 5}})
	}
	// poll loads byte 8 in lock_all, then between calls to MPI_Win_sync,
	// after first (if any) in the first stretch
	poll := func(k *rank, first func()) {
		k.w("MPI_Win_lock_all", nil)
		if first != nil {
			first()
		}
		access(k, load, 8)
		for i := 0; i < 2; i++ {
			k.w("MPI_Win_sync", nil)
			access(k, load, 8)
		}
		k.w("MPI_Win_unlock_all", nil)
	}
	for _, c := range []struct {
		name           string
		target, origin func(k *rank)
		want           string
	}{
		{"store during an exclusive lock's put",
			func(k *rank) { barrier(k); access(k, store, 8); barrier(k) },
			func(k *rank) { barrier(k); locked(k, 1, "MPI_Put"); barrier(k) }, "rma-race"},
		{"load after the barrier that follows the unlock",
			func(k *rank) { barrier(k); barrier(k); access(k, load, 9) },
			func(k *rank) { barrier(k); locked(k, 2, "MPI_Put"); barrier(k) }, ""},
		{"store before the barrier that precedes the lock",
			func(k *rank) { access(k, store, 8); barrier(k); barrier(k) },
			func(k *rank) { barrier(k); locked(k, 1, "MPI_Put"); barrier(k) }, ""},
		{"load after the message sent after the flush",
			func(k *rank) { barrier(k); recv(k); access(k, load, 11); barrier(k) },
			func(k *rank) { barrier(k); flushed(k, true); barrier(k) }, ""},
		{"load before that message's receive",
			func(k *rank) { barrier(k); access(k, load, 11); recv(k); barrier(k) },
			func(k *rank) { barrier(k); flushed(k, true); barrier(k) }, "rma-race"},
		{"load beside the put's bytes",
			func(k *rank) { barrier(k); access(k, load, 12); barrier(k) },
			func(k *rank) { barrier(k); flushed(k, false); barrier(k) }, ""},
		{"load of a get's bytes: two reads",
			func(k *rank) { barrier(k); access(k, load, 8); barrier(k) },
			func(k *rank) { barrier(k); locked(k, 2, "MPI_Get"); barrier(k) }, ""},
		{"store into a get's bytes",
			func(k *rank) { barrier(k); access(k, store, 8); barrier(k) },
			func(k *rank) { barrier(k); locked(k, 2, "MPI_Get"); barrier(k) }, "rma-race"},
		{"store within the target's own exclusive lock",
			func(k *rank) {
				barrier(k)
				k.w("MPI_Win_lock", map[string]any{"lock_type": 1, "rank": 0})
				access(k, store, 8)
				k.w("MPI_Win_unlock", map[string]any{"rank": 0})
				barrier(k)
			},
			func(k *rank) { barrier(k); locked(k, 2, "MPI_Put"); barrier(k) }, ""},
		{"store within the target's own lock_all against a shared lock",
			func(k *rank) {
				barrier(k)
				k.w("MPI_Win_lock_all", nil)
				access(k, store, 8)
				k.w("MPI_Win_unlock_all", nil)
				barrier(k)
			},
			func(k *rank) { barrier(k); locked(k, 2, "MPI_Put"); barrier(k) }, "rma-race"},
		{"load of a flag polled between calls to MPI_Win_sync",
			func(k *rank) { barrier(k); poll(k, nil); barrier(k) },
			func(k *rank) { barrier(k); flushed(k, false); barrier(k) }, ""},
		{"store to the polled flag before the first MPI_Win_sync",
			func(k *rank) { barrier(k); poll(k, func() { access(k, store, 8) }); barrier(k) },
			func(k *rank) { barrier(k); flushed(k, false); barrier(k) }, "rma-race"},
		{"load polled with MPI_Win_sync on another window",
			func(k *rank) {
				barrier(k)
				k.w("MPI_Win_lock_all", nil)
				access(k, load, 8)
				k.call("MPI_Win_sync", map[string]any{"win": win + 1})
				access(k, load, 8)
				k.w("MPI_Win_unlock_all", nil)
				barrier(k)
			},
			func(k *rank) { barrier(k); flushed(k, false); barrier(k) }, "rma-race"},
	} {
		t.Run(c.name, func(t *testing.T) {
			k0, k1 := newRank(0, 2), newRank(1, 2)
			c.target(k0)
			c.origin(k1)
			fs := findings(t, k0.end(), k1.end())
			if got := kinds(fs); got != c.want {
				t.Fatalf("got %q, want %q: %v", got, c.want, fs)
			}
			if c.want != "" && !strings.Contains(fs[0].Message, "passive-target epoch") {
				t.Errorf("message: %s", fs[0].Message)
			}
		})
	}
}
