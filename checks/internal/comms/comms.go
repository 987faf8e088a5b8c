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
	"slices"
	"sync/atomic"

	"fmt"

	"mpivet/check"
	"mpivet/trace"
)

// Tracker follows one rank's communicators as its calls create them: fed
// the calls in order (Created after each), it names and places a handle as
// of the call being looked at. Index keeps what it says for every call; an
// analysis that keeps less (checks/zerobuf) uses a Tracker alone.
//
// A created communicator's key is the world ranks of its members with its
// position among those the rank created with the same members: members
// create their communicators collectively, so in the same order. A handle
// is resolved as of each call, so a handle reused after MPI_Comm_free names
// the right communicator.
type Tracker struct {
	p     *trace.Process
	world []int
	key   map[uint64]string      // key of each created handle
	comm  map[uint64]*trace.Comm // members of each created handle
	same  map[string]int         // communicators created with the same members
}

// NewTracker starts following rank p's communicators.
func NewTracker(p *trace.Process) *Tracker {
	t := &Tracker{p: p, key: map[uint64]string{}, comm: map[uint64]*trace.Comm{}, same: map[string]int{},
		world: make([]int, max(p.Size, 0))}
	for i := range t.world {
		t.world[i] = i
	}
	return t
}

// Created follows the communicator call c created, if it created one.
func (t *Tracker) Created(c *trace.Call) {
	cm := c.Comm()
	if cm == nil && (c.Name() == "MPI_Comm_idup" || c.Name() == "MPI_Comm_idup_with_info") && c.Returned && c.RC == 0 {
		cm = t.duplicate(c.Word("comm"), c.Word("newcomm"))
	}
	if cm == nil {
		return
	}
	m := groups(cm)
	t.key[cm.Handle] = fmt.Sprintf("%s#%d", m, t.same[m])
	t.comm[cm.Handle] = cm
	t.same[m]++
}

// duplicate describes the communicator MPI_Comm_idup (or
// MPI_Comm_idup_with_info) made of comm: the
// same members. The layer records a new communicator's members by asking
// the MPI, which it may not do for this one before its request completes,
// and so does not; without them, collectives on it waited for no one, and
// a rank blocked in one that others never call was a hang found only at
// the time limit. Nil if comm's members are unknown.
func (t *Tracker) duplicate(comm, h uint64) *trace.Comm {
	if h == trace.Unknown {
		return nil
	}
	if c := t.comm[comm]; c != nil {
		return &trace.Comm{Handle: h, World: c.World, Remote: c.Remote}
	}
	if ms := t.Members(comm); ms != nil {
		return &trace.Comm{Handle: h, World: slices.Clone(ms)}
	}
	return nil
}

// groups names the members of a communicator as every member sees them:
// its world ranks, and for an intercommunicator its two groups in the
// order of their least world rank, so that both groups give it the same
// key (its collectives involve both; a message sent in one group is
// received in the other). Keyed from each side's local group, the two
// groups' collectives and messages on it were never paired: a member
// waiting in a collective on it waited for the other group forever in
// the wait state and in the offline model of zero buffering.
func groups(c *trace.Comm) string {
	if c.Remote == nil || len(c.World) == 0 || len(c.Remote) == 0 {
		return fmt.Sprint(c.World, c.Remote)
	}
	a, b := c.World, c.Remote
	if slices.Min(b) < slices.Min(a) {
		a, b = b, a
	}
	return fmt.Sprint(a, b)
}

// Key names communicator comm: "world", "self:R", or the key of a created
// communicator.
func (t *Tracker) Key(comm uint64) string {
	if v, ok := t.p.Const("MPI_COMM_WORLD"); ok && v == comm {
		return "world"
	}
	if v, ok := t.p.Const("MPI_COMM_SELF"); ok && v == comm {
		return fmt.Sprintf("self:%d", t.p.Rank)
	}
	if k, ok := t.key[comm]; ok {
		return k
	}
	return fmt.Sprintf("unknown:%d:%#x", t.p.Rank, comm)
}

// Known reports whether the records say who the members of comm are.
func (t *Tracker) Known(comm uint64) bool { return t.Members(comm) != nil }

// Members returns the world ranks of communicator comm (for an
// intercommunicator, the remote group: the ranks point-to-point calls name).
// The slice is shared: not to be modified.
func (t *Tracker) Members(comm uint64) []int {
	if v, ok := t.p.Const("MPI_COMM_WORLD"); ok && v == comm {
		return t.world
	}
	if v, ok := t.p.Const("MPI_COMM_SELF"); ok && v == comm {
		return []int{t.p.Rank}
	}
	if c := t.comm[comm]; c != nil {
		if c.Remote != nil {
			return c.Remote
		}
		return c.World
	}
	return nil
}

// All returns every member of comm, both groups of an intercommunicator
// (the ranks a collective on it involves).
func (t *Tracker) All(comm uint64) []int {
	if c := t.comm[comm]; c != nil && c.Remote != nil {
		return append(append([]int{}, c.World...), c.Remote...)
	}
	return t.Members(comm)
}

// IsInter reports whether comm is an intercommunicator.
func (t *Tracker) IsInter(comm uint64) bool {
	c := t.comm[comm]
	return c != nil && c.Remote != nil
}

// Index is one rank's communicators, built in one pass over its records:
// its Tracker, as of the rank's last call, the key of the communicator of
// the calls the rank may be blocked in (its threads' current calls) as of
// those calls, and its latest collectives on each communicator. It keeps
// no more than that: a long run makes millions of calls.
type Index struct {
	*Tracker
	Wins    *Windows          // its windows, as of its last call
	callKey map[uint64]string // key of a current call's communicator, by its log offset
	colls   map[string]*recent
	pers    persistents
	// What the reading of a folded loop keeps (fold.go): the current
	// calls' offsets, the collectives' counts at the end of the latest two
	// repetitions, and how many were read one by one.
	current   map[uint64]bool
	prev, now map[string]int
	folds     uint64
}

// Recent is how many of a rank's latest collectives on each communicator
// an Index keeps: the wait state looks for the collectives that blocked
// ranks are in, the latest, and for those at the same positions in other
// members, which the blocked ranks hold back.
const Recent = 256

// recent holds the latest collectives on a communicator: calls[i] is the
// (n-len(calls)+i)-th, n the count.
type recent struct {
	n     int
	calls []*trace.Call
}

// NewIndex indexes rank p's communicators.
func NewIndex(p *trace.Process) *Index {
	indexes.Add(1)
	x := &Index{Tracker: NewTracker(p), Wins: newWindows(p), callKey: map[uint64]string{}, colls: map[string]*recent{}}
	current := map[uint64]bool{}
	for _, c := range append([]*trace.Call{p.Last()}, p.Threads...) {
		if c != nil && c.Seq >= 0 {
			current[c.Offset] = true
		}
	}
	x.current = current
	for c := range p.CallsFolded(x) {
		if c.HasField("comm") {
			k := x.Key(c.Word("comm"))
			if current[c.Offset] {
				x.callKey[c.Offset] = k
			}
			// (a window's creation is a collective over its communicator)
			if c.Def.Has("coll") && !c.Def.Has("finalize") || IsWinCreate(c.Name()) {
				r := x.colls[k]
				if r == nil {
					r = &recent{}
					x.colls[k] = r
				}
				if len(r.calls) == Recent {
					copy(r.calls, r.calls[1:])
					r.calls = r.calls[:Recent-1]
				}
				r.calls, r.n = append(r.calls, c.Keep()), r.n+1
			}
		}
		x.pers.step(c, x.Tracker)
		x.Wins.Step(c, x.Tracker)
		x.Created(c)
	}
	return x
}

// KeyOf names the communicator of call c as it was when c was made, for
// the calls the rank may be blocked in; others by their handle now (Key).
func (x *Index) KeyOf(c *trace.Call) string {
	if k, ok := x.callKey[c.Offset]; ok && c.Seq >= 0 {
		return k
	}
	return x.Key(c.Word("comm"))
}

// Collectives returns how many collectives the rank made on the
// communicator with key key (MPI_Finalize aside, the windows made on it
// included).
func (x *Index) Collectives(key string) int {
	if r := x.colls[key]; r != nil {
		return r.n
	}
	return 0
}

// Collective returns the rank's k-th collective (from 0) on the
// communicator with key key, if it is among the latest it made (Recent).
func (x *Index) Collective(key string, k int) *trace.Call {
	r := x.colls[key]
	if r == nil || k >= r.n || k < r.n-len(r.calls) || k < 0 {
		return nil
	}
	return r.calls[k-(r.n-len(r.calls))]
}

// Position returns which collective on its communicator (key) call c is,
// for the rank (0 for the first), or -1 if it is not among the latest.
func (x *Index) Position(c *trace.Call, key string) int {
	r := x.colls[key]
	if r == nil {
		return -1
	}
	for i, y := range r.calls {
		if y == c || (y.Offset == c.Offset && c.Offset != trace.Unknown) {
			return r.n - len(r.calls) + i
		}
	}
	return -1
}

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
