// Package comms places communicators across ranks. Handle values differ
// between ranks (in Open MPI they are addresses), so checks that compare
// what different ranks did on "the same" communicator name it by a key that
// is the same on every rank, and find its members through the world ranks
// the layer recorded when it was created. It is a shared, result-only
// analysis (Analyzer), computed once per execution: the collective and
// unreceived-message checks and the wait state read it.
package comms

import (
	"reflect"
	"sync/atomic"

	"fmt"

	"mpivet/check"
	"mpivet/trace"
)

// Index is one rank's communicators, built in one pass over its records.
type Index struct {
	p       *trace.Process
	callKey map[*trace.Call]string // key of a call's communicator, as of the call
	key     map[uint64]string      // key of each created handle, as of the last call
	comm    map[uint64]*trace.Comm // members of each created handle, as of the last call
	colls   map[string][]*trace.Call
}

// NewIndex indexes rank p's communicators.
//
// A created communicator's key is the world ranks of its members with its
// position among those the rank created with the same members: members
// create their communicators collectively, so in the same order. A handle
// is resolved as of each call, so a handle reused after MPI_Comm_free names
// the right communicator.
func NewIndex(p *trace.Process) *Index {
	indexes.Add(1)
	x := &Index{p: p, callKey: map[*trace.Call]string{}, key: map[uint64]string{},
		comm: map[uint64]*trace.Comm{}, colls: map[string][]*trace.Call{}}
	seen := map[string]int{}
	for _, c := range p.Calls {
		if c.HasField("comm") {
			k := x.Key(c.Word("comm"))
			x.callKey[c] = k
			if c.Def.Has("coll") && !c.Def.Has("finalize") {
				x.colls[k] = append(x.colls[k], c)
			}
		}
		if c.Comm != nil {
			m := fmt.Sprint(c.Comm.World, c.Comm.Remote)
			x.key[c.Comm.Handle] = fmt.Sprintf("%s#%d", m, seen[m])
			x.comm[c.Comm.Handle] = c.Comm
			seen[m]++
		}
	}
	return x
}

// Key names communicator comm as it stands after the rank's last call:
// "world", "self:R", or the key of a created communicator.
func (x *Index) Key(comm uint64) string {
	if v, ok := x.p.Const("MPI_COMM_WORLD"); ok && v == comm {
		return "world"
	}
	if v, ok := x.p.Const("MPI_COMM_SELF"); ok && v == comm {
		return fmt.Sprintf("self:%d", x.p.Rank)
	}
	if k, ok := x.key[comm]; ok {
		return k
	}
	return fmt.Sprintf("unknown:%d:%#x", x.p.Rank, comm)
}

// KeyOf names the communicator of call c as it was when c was made (calls
// known only from the state page are the latest: Key).
func (x *Index) KeyOf(c *trace.Call) string {
	if k, ok := x.callKey[c]; ok {
		return k
	}
	return x.Key(c.Word("comm"))
}

// Members returns the world ranks of communicator comm (for an
// intercommunicator, the remote group: the ranks point-to-point calls name).
func (x *Index) Members(comm uint64) []int {
	if v, ok := x.p.Const("MPI_COMM_WORLD"); ok && v == comm {
		w := make([]int, x.p.Size)
		for i := range w {
			w[i] = i
		}
		return w
	}
	if v, ok := x.p.Const("MPI_COMM_SELF"); ok && v == comm {
		return []int{x.p.Rank}
	}
	if c := x.comm[comm]; c != nil {
		if c.Remote != nil {
			return c.Remote
		}
		return c.World
	}
	return nil
}

// IsInter reports whether comm is an intercommunicator.
func (x *Index) IsInter(comm uint64) bool {
	c := x.comm[comm]
	return c != nil && c.Remote != nil
}

// Collectives returns the rank's collectives (MPI_Finalize aside) on the
// communicator with key key, in call order.
func (x *Index) Collectives(key string) []*trace.Call { return x.colls[key] }

// Name is how reports show a communicator.
func (x *Index) Name(comm uint64) string {
	if names := x.p.Consts[comm]; len(names) > 0 {
		return names[0]
	}
	if ms := x.Members(comm); ms != nil {
		return fmt.Sprintf("the communicator of world ranks %v", ms)
	}
	return "communicator " + check.HandleHex(comm)
}

// indexes counts the calls of NewIndex.
var indexes atomic.Int64

// Indexes is how many times ranks' communicators were indexed: tests check
// that each rank's are indexed once per execution.
func Indexes() int64 { return indexes.Load() }

// Result is the communicators of every rank of one execution (Of).
type Result = check.PerProcess[*Index]

// Analyzer indexes the communicators of every rank, once per execution.
var Analyzer = &check.Check{
	Name: "comms",
	Doc: `the communicators of every rank, placed across ranks

A result-only analysis: for every rank, an Index of its communicators
(NewIndex): their rank-independent keys, members and collectives.`,
	ResultType: reflect.TypeOf((*Result)(nil)),
	Run:        func(pass *check.Pass) (any, error) { return check.EachProcess(pass.In.Run, NewIndex), nil },
}
