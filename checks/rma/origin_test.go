package rma

import (
	"testing"

	"mpivet/api"
	"mpivet/check"
	"mpivet/trace"
	"mpivet/trace/tracetest"
)

// More constants than tracetest's, as the layer logs them (handles with
// their names, set on every process by withConsts).
var moreConsts = map[string]uint64{"MPI_REPLACE": 0x4010, "MPI_NO_OP": 0x4018, "MPI_FLOAT": 0x3018}

const derived = 0x7000 // a derived datatype's handle: no constant's

func withConsts(p *trace.Process) *trace.Process {
	for name, v := range moreConsts {
		p.ConstVal[name] = v
		p.Consts[v] = append(p.Consts[v], name)
	}
	return p
}

// typed logs a one-sided operation at disp (ints of the window, whose
// disp_unit is 4) with its target datatype, the layer's record of its
// bytes (lb, span), blocks (offset, length pairs) and the type map's
// basic type and extent.
func (k *rank) typed(name string, target, disp int, typ uint64, extra map[string]any, lb, span uint64, elem, esize uint64, blocks ...uint64) {
	in := map[string]any{"target_rank": target, "target_disp": disp, "target_count": 1, "win": win,
		"target_datatype": typ, "datatype": typ, "origin_count": 1}
	for f, v := range extra {
		in[f] = v
	}
	off := k.call(name, in)
	words := []uint64{off, lb, span, 0, span, uint64(len(blocks) / 2)}
	words = append(append(words, blocks...), elem, esize)
	k.l.Meta(api.MetaRMA, words...)
}

// ints logs an operation of n ints of MPI_INT at disp.
func (k *rank) ints(name string, target, disp, n int, extra map[string]any) {
	int_ := tracetest.Consts["MPI_INT"]
	k.typed(name, target, disp, int_, extra, 0, uint64(4*n), int_, 4)
}

// request logs a request-based operation of one int at disp, returning
// its request req.
func (k *rank) request(name string, disp int, req uint64) {
	int_ := tracetest.Consts["MPI_INT"]
	in := map[string]any{"target_rank": 0, "target_disp": disp, "target_count": 1, "win": win,
		"target_datatype": int_, "origin_count": 1}
	off := k.call(name, in, map[string]any{"request": req})
	k.l.Meta(api.MetaRMA, off, 0, 4, 0, 4, 0, int_, 4)
}

// wait logs MPI_Wait completing req.
func (k *rank) wait(req uint64) {
	k.call("MPI_Wait", map[string]any{"request": req}, map[string]any{"request_out": tracetest.Consts["MPI_REQUEST_NULL"]})
}

// pair runs steps on ranks 0 and 1 (rank 1 the origin of the cases below).
func pair(t *testing.T, steps func(r int, k *rank)) []check.Finding {
	var ps []*trace.Process
	for r := 0; r < 2; r++ {
		k := newRank(r, 2)
		steps(r, k)
		ps = append(ps, withConsts(k.end()))
	}
	return findings(t, ps...)
}

func TestOriginRaces(t *testing.T) {
	sum := map[string]any{"op": tracetest.Consts["MPI_SUM"]}
	replace := map[string]any{"op": moreConsts["MPI_REPLACE"]}
	noop := map[string]any{"op": moreConsts["MPI_NO_OP"]}
	int_, dbl, flt := tracetest.Consts["MPI_INT"], tracetest.Consts["MPI_DOUBLE"], moreConsts["MPI_FLOAT"]
	lock := func(k *rank) { k.w("MPI_Win_lock", map[string]any{"lock_type": 2, "rank": 0}) }
	unlock := func(k *rank) { k.w("MPI_Win_unlock", map[string]any{"rank": 0}) }
	flush := func(name string) func(k *rank) {
		return func(k *rank) { k.w(name, map[string]any{"rank": 0}) }
	}
	for _, c := range []struct {
		name string
		ops  []func(k *rank) // rank 1's, in one lock epoch on rank 0
		want string
	}{
		{"put, get", []func(k *rank){
			func(k *rank) { k.ints("MPI_Put", 0, 2, 1, nil) },
			func(k *rank) { k.ints("MPI_Get", 0, 2, 1, nil) }}, "rma-race"},
		{"get, put", []func(k *rank){
			func(k *rank) { k.ints("MPI_Get", 0, 2, 1, nil) },
			func(k *rank) { k.ints("MPI_Put", 0, 2, 1, nil) }}, "rma-race"},
		{"put, put overlapping", []func(k *rank){
			func(k *rank) { k.ints("MPI_Put", 0, 0, 4, nil) },
			func(k *rank) { k.ints("MPI_Put", 0, 3, 2, nil) }}, "rma-race"},
		{"put, accumulate", []func(k *rank){
			func(k *rank) { k.ints("MPI_Put", 0, 2, 1, nil) },
			func(k *rank) { k.ints("MPI_Accumulate", 0, 2, 1, sum) }}, "rma-race"},
		{"get, accumulate", []func(k *rank){
			func(k *rank) { k.ints("MPI_Get", 0, 2, 1, nil) },
			func(k *rank) { k.ints("MPI_Accumulate", 0, 2, 1, sum) }}, "rma-race"},
		{"floats, ints accumulated", []func(k *rank){
			func(k *rank) { k.typed("MPI_Accumulate", 0, 2, flt, sum, 0, 4, flt, 4) },
			func(k *rank) { k.ints("MPI_Accumulate", 0, 2, 1, sum) }}, "rma-race"},
		{"ints over half a double", []func(k *rank){
			func(k *rank) { k.typed("MPI_Accumulate", 0, 2, dbl, sum, 0, 8, dbl, 8) },
			func(k *rank) { k.ints("MPI_Accumulate", 0, 3, 1, sum) }}, "rma-race"},
		{"ints at byte 0, ints at byte 1", []func(k *rank){
			func(k *rank) { k.ints("MPI_Accumulate", 0, 0, 2, sum) },
			func(k *rank) { k.typed("MPI_Accumulate", 0, 0, int_, sum, 1, 8, int_, 4) }}, "rma-race"},
		{"a put repeated", []func(k *rank){
			func(k *rank) { k.ints("MPI_Put", 0, 2, 1, nil) },
			func(k *rank) { k.pc -= 0x10; k.ints("MPI_Put", 0, 2, 1, nil) }}, "rma-race"},
		{"put, flush, get", []func(k *rank){
			func(k *rank) { k.ints("MPI_Put", 0, 2, 1, nil) },
			flush("MPI_Win_flush"),
			func(k *rank) { k.ints("MPI_Get", 0, 2, 1, nil) }}, ""},
		{"put, flush_all, put", []func(k *rank){
			func(k *rank) { k.ints("MPI_Put", 0, 2, 1, nil) },
			func(k *rank) { k.w("MPI_Win_flush_all", nil) },
			func(k *rank) { k.ints("MPI_Put", 0, 2, 1, nil) }}, ""},
		{"put, flush_local, get", []func(k *rank){
			func(k *rank) { k.ints("MPI_Put", 0, 2, 1, nil) },
			flush("MPI_Win_flush_local"),
			func(k *rank) { k.ints("MPI_Get", 0, 2, 1, nil) }}, "rma-race"},
		{"get, flush_local, put", []func(k *rank){
			func(k *rank) { k.ints("MPI_Get", 0, 2, 1, nil) },
			flush("MPI_Win_flush_local"),
			func(k *rank) { k.ints("MPI_Put", 0, 2, 1, nil) }}, ""},
		{"put, unlock, lock, get", []func(k *rank){
			func(k *rank) { k.ints("MPI_Put", 0, 2, 1, nil) },
			unlock, lock,
			func(k *rank) { k.ints("MPI_Get", 0, 2, 1, nil) }}, ""},
		{"disjoint bytes", []func(k *rank){
			func(k *rank) { k.ints("MPI_Put", 0, 0, 2, nil) },
			func(k *rank) { k.ints("MPI_Get", 0, 2, 2, nil) }}, ""},
		{"get, get", []func(k *rank){
			func(k *rank) { k.ints("MPI_Get", 0, 2, 1, nil) },
			func(k *rank) { k.ints("MPI_Get", 0, 2, 1, nil) }}, ""},
		{"accumulates, different operations, same ints", []func(k *rank){
			func(k *rank) { k.ints("MPI_Accumulate", 0, 2, 1, sum) },
			func(k *rank) { k.ints("MPI_Accumulate", 0, 2, 1, replace) }}, ""},
		{"get_accumulate, fetch_and_op, compare_and_swap", []func(k *rank){
			func(k *rank) { k.ints("MPI_Get_accumulate", 0, 2, 1, noop) },
			func(k *rank) { k.ints("MPI_Fetch_and_op", 0, 2, 1, sum) },
			func(k *rank) { k.ints("MPI_Compare_and_swap", 0, 2, 1, nil) }}, ""},
		{"an accumulate repeated", []func(k *rank){
			func(k *rank) { k.ints("MPI_Accumulate", 0, 2, 1, sum) },
			func(k *rank) { k.pc -= 0x10; k.ints("MPI_Accumulate", 0, 2, 1, sum) }}, ""},
		{"rget, wait, put", []func(k *rank){
			func(k *rank) { k.request("MPI_Rget", 2, 0x9100) },
			func(k *rank) { k.wait(0x9100) },
			func(k *rank) { k.ints("MPI_Put", 0, 2, 1, nil) }}, ""},
		{"rget, put, wait", []func(k *rank){
			func(k *rank) { k.request("MPI_Rget", 2, 0x9100) },
			func(k *rank) { k.ints("MPI_Put", 0, 2, 1, nil) },
			func(k *rank) { k.wait(0x9100) }}, "rma-race"},
		{"rput, wait, get", []func(k *rank){
			func(k *rank) { k.request("MPI_Rput", 2, 0x9100) },
			func(k *rank) { k.wait(0x9100) },
			func(k *rank) { k.ints("MPI_Get", 0, 2, 1, nil) }}, "rma-race"},
		{"4 ints as one contiguous type, ints", []func(k *rank){
			func(k *rank) { k.typed("MPI_Accumulate", 0, 0, derived, sum, 0, 16, int_, 4, 0, 16) },
			func(k *rank) { k.ints("MPI_Accumulate", 0, 1, 2, sum) }}, ""},
	} {
		fs := pair(t, func(r int, k *rank) {
			if r == 1 {
				lock(k)
				for _, op := range c.ops {
					op(k)
				}
				unlock(k)
			}
		})
		if got := kinds(fs); got != c.want {
			t.Errorf("%s: findings %q, want %q", c.name, got, c.want)
			for _, f := range fs {
				t.Log(f.Message)
			}
		}
	}
}

// Accumulates of different origins through different datatypes over the
// same ints: atomic per element when the type maps' basic type and element
// boundaries agree.
func TestAccumulateElements(t *testing.T) {
	sum := map[string]any{"op": tracetest.Consts["MPI_SUM"]}
	replace := map[string]any{"op": moreConsts["MPI_REPLACE"]}
	int_, flt := tracetest.Consts["MPI_INT"], moreConsts["MPI_FLOAT"]
	contiguous := func(op map[string]any) func(k *rank) {
		return func(k *rank) { k.typed("MPI_Accumulate", 0, 0, derived, op, 0, 16, int_, 4, 0, 16) }
	}
	for _, c := range []struct {
		name   string
		r1, r2 func(k *rank)
		want   string
	}{
		{"contiguous, vector of ints", contiguous(sum),
			func(k *rank) { k.typed("MPI_Accumulate", 0, 1, derived+8, sum, 0, 12, int_, 4, 0, 4, 8, 4) }, ""},
		{"contiguous, MPI_INT", contiguous(sum), func(k *rank) { k.ints("MPI_Accumulate", 0, 3, 1, sum) }, ""},
		{"contiguous, ints at byte 1", contiguous(sum),
			func(k *rank) { k.typed("MPI_Accumulate", 0, 0, int_, sum, 1, 4, int_, 4) }, "rma-race"},
		{"contiguous, vector at byte 2", contiguous(sum),
			func(k *rank) { k.typed("MPI_Accumulate", 0, 0, derived+8, sum, 2, 12, int_, 4, 2, 4, 10, 4) }, "rma-race"},
		{"different operations", contiguous(sum), contiguous(replace), "rma-race"},
		{"floats", contiguous(sum), func(k *rank) { k.typed("MPI_Accumulate", 0, 1, flt, sum, 0, 4, flt, 4) }, "rma-race"},
		{"several basic types", contiguous(sum), func(k *rank) { k.typed("MPI_Accumulate", 0, 0, derived+8, sum, 0, 8, 0, 0, 0, 8) }, "rma-race"},
	} {
		fs := three(t, func(r int, k *rank) {
			k.w("MPI_Win_fence", nil)
			if r == 1 {
				c.r1(k)
			} else if r == 2 {
				c.r2(k)
			}
			k.w("MPI_Win_fence", nil)
		})
		if got := kinds(fs); got != c.want {
			t.Errorf("%s: findings %q, want %q", c.name, got, c.want)
		}
	}
}

// Operations of one origin in fence and PSCW epochs.
func TestOriginActive(t *testing.T) {
	for _, c := range []struct {
		name  string
		steps string // F: a fence of both ranks; P, G: rank 1's Put, Get of int 2 of rank 0
		want  string
	}{
		{"put, get in one fence epoch", "FPGF", "rma-race"},
		{"put, fence, get", "FPFGF", ""},
		{"get, get", "FGGF", ""},
	} {
		fs := pair(t, func(r int, k *rank) {
			for _, step := range c.steps {
				switch {
				case step == 'F':
					k.w("MPI_Win_fence", nil)
				case r == 1 && step == 'P':
					k.ints("MPI_Put", 0, 2, 1, nil)
				case r == 1 && step == 'G':
					k.ints("MPI_Get", 0, 2, 1, nil)
				}
			}
		})
		if got := kinds(fs); got != c.want {
			t.Errorf("%s: findings %q, want %q", c.name, got, c.want)
		}
	}
	// PSCW: rank 0 exposes its window twice, rank 1 accesses it twice.
	for _, c := range []struct {
		name   string
		epochs [][]string
		want   string
	}{
		{"put, get in one access epoch", [][]string{{"MPI_Put", "MPI_Get"}}, "rma-race"},
		{"put; get in the next", [][]string{{"MPI_Put"}, {"MPI_Get"}}, ""},
	} {
		fs := pair(t, func(r int, k *rank) {
			for _, ops := range c.epochs {
				name := "MPI_Win_post"
				if r == 1 {
					name = "MPI_Win_start"
				}
				off := k.call(name, map[string]any{"win": win, "assertion": 0})
				k.l.Meta(api.MetaRMA, off, 1, uint64(1-r))
				for _, op := range ops {
					if r == 1 {
						k.ints(op, 0, 2, 1, nil)
					}
				}
				if r == 1 {
					k.w("MPI_Win_complete", nil)
				} else {
					k.w("MPI_Win_wait", nil)
				}
			}
		})
		if got := kinds(fs); got != c.want {
			t.Errorf("%s: findings %q, want %q", c.name, got, c.want)
		}
	}
}
