// Package objects follows the MPI objects a rank creates through handles
// (communicators, groups, datatypes, ops, infos, error handlers, messages and
// requests) from the call that created each to the call that freed it, and
// the active/inactive state of requests. It is a shared, result-only analysis
// (Analyzer), computed once per execution: it reports nothing itself; the
// resource-leak, request-lifecycle and buffer-reuse checks and the wait
// state read it.
//
// It is driven entirely by the roles in api/mpi.api (new, free, reqs, ...),
// so a call added to the description is tracked without touching this code.
package objects

import (
	"reflect"
	"sort"
	"sync/atomic"

	"strings"

	"mpivet/api"
	"mpivet/check"
	"mpivet/trace"
)

// Object is one MPI object created by the program.
type Object struct {
	Kind       api.HandleKind
	Handle     uint64
	At         uint64 // address of the program's handle variable when created
	Created    *trace.Call
	Persistent bool // a persistent request
	Active     bool // a request whose operation has not completed
	Cancelled  bool
	KnownDone  bool        // MPI_Request_get_status reported it complete, or MPI_Grequest_complete completed it (it is not freed by that)
	Started    *trace.Call // last MPI_Start(all) of a persistent request
	// Ops are the request's operations that a finding may name (those
	// the buffer checker reported an access to: State.Requests), in order:
	// the call that started each and the call that completed it (nil if
	// none did). A persistent request may run millions.
	Ops    []Op
	cur    *Op // its current operation
	serial int // creation order
}

// Op is one operation of a request.
type Op struct {
	Start, Done *trace.Call
}

// done marks the request's current operation complete by call c.
func (o *Object) done(c *trace.Call) {
	if o.cur != nil && o.cur.Done == nil {
		o.cur.Done = c
	}
}

// start begins an operation of the request at call c, kept in Ops if a
// finding may name it (wanted).
func (o *Object) start(c *trace.Call, wanted map[uint64]bool, st *State) {
	if !wanted[c.Offset] {
		o.cur = &Op{Start: c}
		return
	}
	if len(o.Ops) == 0 {
		st.Requests = append(st.Requests, o)
	}
	o.Ops = append(o.Ops, Op{Start: c})
	o.cur = &o.Ops[len(o.Ops)-1]
}

// Event is something notable that happened to an object.
type Event struct {
	What   EventKind
	Object *Object
	Call   *trace.Call
}

// EventKind names an Event.
type EventKind int

const (
	StartedActive EventKind = iota // MPI_Start on a persistent request that is still active
	FreedActive                    // MPI_Request_free on a request whose operation has not completed
	// UsedPending: a communicator used before the nonblocking call that
	// makes it (MPI_Comm_idup) completed; Object is that call's request.
	UsedPending
	BegunActive  // a split collective begun on a file whose previous one has not ended
	ClosedActive // MPI_File_close on a file whose split collective has not ended
)

// Split is the kind of the objects that stand for split collectives on a
// file (MPI_File_write_all_begin ... MPI_File_write_all_end): one may be
// pending per file, its handle is the file's, and it is Active from its
// begin to its end.
const Split api.HandleKind = "split collective"

// State is the result of following one rank.
type State struct {
	Finalize *trace.Call // the rank's MPI_Finalize, nil if it never called it
	// Live are the objects still alive when MPI_Finalize was called (or at the
	// end of the records, if it was not), in creation order.
	Live   []*Object
	Events []Event
	// Requests are the requests with operations a finding may name
	// (Object.Ops), in the order of those operations' starts.
	Requests []*Object
}

type key struct {
	kind   api.HandleKind
	handle uint64
}

// table holds the live objects. Several may share a handle value (MPIs
// return one shared handle for operations that completed at once), so each
// handle maps to a list, and the address of the program's variable picks
// among them.
type table map[key][]*Object

func (t table) add(o *Object) { k := key{o.Kind, o.Handle}; t[k] = append(t[k], o) }

// get finds the object with handle v kept at address at, or else the oldest
// object with handle v.
func (t table) get(kind api.HandleKind, v, at uint64) *Object {
	os := t[key{kind, v}]
	for _, o := range os {
		if o.At == at && at != 0 {
			return o
		}
	}
	if len(os) > 0 {
		return os[0]
	}
	return nil
}

func (f *Follower) remove(o *Object) {
	f.live.remove(o)
	if f.Gone != nil && o.Kind == "request" {
		f.Gone(o)
	}
}

func (t table) remove(o *Object) {
	k := key{o.Kind, o.Handle}
	os := t[k]
	for i, x := range os {
		if x == o {
			t[k] = append(os[:i:i], os[i+1:]...)
			break
		}
	}
	if len(t[k]) == 0 {
		delete(t, k)
	}
}

// slot is a handle as a call sees it: its value and where the program keeps it.
type slot struct{ v, at uint64 }

// Follow follows one rank's objects, in one pass over its calls that keeps
// the live objects only (and the operations findings may name).
func Follow(p *trace.Process) *State {
	follows.Add(1)
	f := NewFollower(p)
	final := false
	for c := range p.CallsFolded(folding{f, &final}) {
		if final {
			// Inside MPI_Finalize, the delete callbacks of MPI_COMM_SELF's
			// attributes may free what libraries cached (MPI 4.0 §11.2.2):
			// those objects are not left at MPI_Finalize.
			f.freed(c)
		} else if !f.Step(c) {
			final = true
		}
	}
	return f.State()
}

// A Follower follows one rank's objects as it is given the rank's calls in
// order (Step), for an analysis that reads the calls itself
// (checks/zerobuf) and learns from its hooks what each call did to the
// rank's requests.
type Follower struct {
	// Start is called when call c starts an operation of request o, Done
	// when call c completes it (the first call that does), Gone when o is
	// freed or completed for good.
	Start, Done func(o *Object, c *trace.Call)
	Gone        func(o *Object)

	p       *trace.Process
	st      *State
	live    table
	created int
	wanted  map[uint64]bool // operations to keep (Object.Ops), by their start: those the buffer checker reported
	null    uint64
	pending map[uint64]*Object // communicators being made by a nonblocking call, and its request
}

// NewFollower starts following rank p's objects.
func NewFollower(p *trace.Process) *Follower {
	f := &Follower{p: p, st: &State{}, live: table{}, wanted: map[uint64]bool{}, pending: map[uint64]*Object{}}
	f.null, _ = p.Const("MPI_REQUEST_NULL")
	for _, a := range p.Buffers {
		f.wanted[a.Op] = true
		if a.Kind == api.AccessOverlap {
			f.wanted[a.Other] = true
		}
	}
	return f
}

func (f *Follower) predefined(v uint64) bool { return len(f.p.Consts[v]) > 0 || v == trace.Unknown }

// start begins an operation of request o at call c.
func (f *Follower) start(o *Object, c *trace.Call) {
	o.start(c, f.wanted, f.st)
	if f.Start != nil {
		f.Start(o, c)
	}
}

// done marks request o's current operation complete by call c.
func (f *Follower) done(o *Object, c *trace.Call) {
	if o.cur != nil && o.cur.Done == nil && f.Done != nil {
		f.Done(o, c)
	}
	o.done(c)
}

// State returns what the follower found, once it was given the calls.
func (f *Follower) State() *State {
	st := f.st
	st.Live = nil
	for _, os := range f.live {
		st.Live = append(st.Live, os...)
	}
	sort.Slice(st.Live, func(i, j int) bool { return st.Live[i].serial < st.Live[j].serial })
	return st
}

// Step follows call c, the rank's next; false at MPI_Finalize (the calls
// after it are not followed).
func (f *Follower) Step(c *trace.Call) bool {
	if c.Def.Has("finalize") {
		f.st.Finalize = c
		return false
	}
	f.usedPending(c)
	f.freed(c)
	// A start is judged when it is made: an MPI may abort in it.
	if c.Def.Has("start") {
		for _, s := range requestsOf(c) {
			if o := f.live.get("request", s.v, s.at); o != nil && o.Persistent {
				if o.Active {
					f.st.Events = append(f.st.Events, Event{StartedActive, o, c})
				}
				o.Active, o.Started = true, c
				f.start(o, c)
			}
		}
	}
	if !c.Returned {
		return true // blocked or crashed inside: nothing completed or created
	}
	// The MPI may have replaced an inout handle.
	if c.HasField("request_out") {
		in, out := c.Word("request"), c.Word("request_out")
		if o := f.live.get("request", in, c.Word("request_at")); o != nil && out != in && !f.predefined(out) {
			f.live.remove(o)
			o.Handle = out
			f.live.add(o)
		}
	}
	if c.Def.Has("completion") {
		completeRequests(c, f.null, func(s slot, persistentOnly bool) {
			if o := f.live.get("request", s.v, s.at); o != nil && (o.Persistent || !persistentOnly) {
				f.done(o, c)
				if o.Persistent {
					o.Active = false
				} else {
					f.remove(o)
				}
			}
		})
		switch c.Name() {
		case "MPI_Cancel":
			if o := f.live.get("request", c.Word("request"), c.Word("request_at")); o != nil {
				o.Cancelled = true
			}
		case "MPI_Request_get_status":
			if o := f.live.get("request", c.Word("request"), 0); o != nil && c.Int("flag") != 0 {
				o.KnownDone = true
				f.done(o, c)
			}
		}
	}
	if c.Name() == "MPI_Grequest_complete" && c.RC == 0 { // the program completed its generalized request
		if o := f.live.get("request", c.Word("request"), 0); o != nil {
			o.KnownDone = true
		}
	}
	f.create(c)
	f.split(c)
	return true
}

// split follows the split collectives of files (api tags begin, end): a
// begin that returned successfully makes an active Split object under the file's
// handle, its end completes it; a begin while one is pending on the file,
// or a close of the file, is an event.
func (f *Follower) split(c *trace.Call) {
	begin, end, closing := c.Def.Has("begin"), c.Def.Has("end"), c.Name() == "MPI_File_close"
	if !(begin || end || closing) {
		return
	}
	fh := c.Word("fh")
	o := f.live.get(Split, fh, 0)
	switch {
	case begin && o != nil: // whether or not the MPI refused it
		f.st.Events = append(f.st.Events, Event{BegunActive, o, c})
	case c.RC != 0:
	case begin:
		o = &Object{Kind: Split, Handle: fh, Created: c, Active: true, serial: f.created}
		f.created++
		f.live.add(o)
	case o != nil && closing:
		f.st.Events = append(f.st.Events, Event{ClosedActive, o, c})
		f.live.remove(o)
	case o != nil:
		f.live.remove(o)
	}
}

// freed follows the handles call c released (read on entry).
func (f *Follower) freed(c *trace.Call) {
	for i, fd := range c.Def.In {
		prm := c.Def.Params[fd.Param]
		if prm.Role != api.Free || fd.Name != prm.Name {
			continue
		}
		o := f.live.get(prm.Handle, c.In(i), c.Word(prm.Name+"_at"))
		if o == nil {
			continue
		}
		// Freeing is legal once the operation is known to be complete
		// (MPI_Request_get_status said so) or was cancelled (the
		// standard lists MPI_Request_free among the calls that complete
		// a cancelled request).
		if o.Kind == "request" && o.Active && !o.KnownDone && !o.Cancelled && c.Name() == "MPI_Request_free" {
			f.st.Events = append(f.st.Events, Event{FreedActive, o, c})
		}
		f.remove(o)
	}
}

// create follows the handles call c created.
func (f *Follower) create(c *trace.Call) {
	// Handles created by the call. A call with a false flag (Improbe)
	// created nothing.
	if (c.HasField("flag") && c.Int("flag") == 0) || c.RC != 0 {
		return
	}
	var comm uint64
	var req *Object
	for i, fd := range c.Def.Out {
		prm := c.Def.Params[fd.Param]
		switch {
		case prm.Role == api.New:
			o := f.made(c, prm, c.Out(i), c.Word(prm.Name+"_at"))
			if o != nil && o.Kind == "comm" && c.Def.Has("nonblocking") {
				comm = o.Handle
			} else if o != nil && o.Kind == "request" {
				req = o
			}
		case prm.Role == api.News && fd.Kind == api.FHandles:
			// an array of handles (MPI_Type_get_contents), a predefined
			// datatype recorded as unknown
			at, stride := c.Word(prm.Name+"_at"), uint64(c.Int(prm.Name+"_stride"))
			for j, v := range c.OutWords(i) {
				f.made(c, prm, v, at+uint64(j)*stride)
			}
		}
	}
	if comm != 0 && req != nil {
		f.pending[comm] = req
	}
}

// usedPending notes a use by call c of a communicator whose making
// (MPI_Comm_idup) has not completed: the communicator is not valid until
// its request completes (MPI 4.0 §7.4.2). Once per communicator.
func (f *Follower) usedPending(c *trace.Call) {
	if len(f.pending) == 0 {
		return
	}
	for i, fd := range c.Def.In {
		if fd.Kind != api.FHandle || fd.Handle != "comm" || c.Def.Params[fd.Param].Role != api.Value {
			continue
		}
		v := c.In(i)
		r := f.pending[v]
		if r == nil {
			continue
		}
		delete(f.pending, v)
		if f.live.get("request", r.Handle, r.At) == r { // not completed yet
			f.st.Events = append(f.st.Events, Event{UsedPending, r, c})
		}
	}
}

// made follows handle v of parameter prm that call c created, kept at at
// (nil for a predefined one).
func (f *Follower) made(c *trace.Call, prm api.Param, v, at uint64) *Object {
	if f.predefined(v) {
		return nil
	}
	o := &Object{Kind: prm.Handle, Handle: v, At: at, Created: c, serial: f.created}
	f.created++
	if o.Kind == "request" {
		o.Persistent = c.Def.Has("persistent")
		o.Active = !o.Persistent
		if !o.Persistent {
			f.start(o, c)
		}
	}
	f.live.add(o)
	return o
}

// requestsOf returns the requests a call takes (the request pointer or the
// request array) as they were on entry, with where the program keeps them.
func requestsOf(c *trace.Call) []slot {
	for i, f := range c.Def.In {
		prm := c.Def.Params[f.Param]
		if prm.Handle != "request" || f.Name != prm.Name {
			continue
		}
		at := c.Word(prm.Name + "_at")
		switch f.Kind {
		case api.FHandles:
			stride := uint64(c.Int(prm.Name + "_stride"))
			out := make([]slot, len(c.InWords(i)))
			for j, v := range c.InWords(i) {
				out[j] = slot{v, at + uint64(j)*stride}
			}
			return out
		case api.FHandle:
			return []slot{{c.In(i), at}}
		}
	}
	return nil
}

// requestsAfter returns the values of the same requests as the MPI left them
// on exit, or nil if the call does not record them.
func requestsAfter(c *trace.Call) []uint64 {
	for i, f := range c.Def.Out {
		if f.Handle != "request" || !strings.HasSuffix(f.Name, "_out") {
			continue
		}
		switch f.Kind {
		case api.FHandles:
			return c.OutWords(i)
		case api.FHandle:
			return []uint64{c.Out(i)}
		}
	}
	return nil
}

// completeRequests calls done for every request a returned completion call
// completed. A completed nonpersistent request is one the MPI set to
// MPI_REQUEST_NULL; a persistent one keeps its handle, so for those the
// call's outputs say which completed: indices (Waitsome/Testsome), index
// (Waitany/Testany), flag (Test/Testall), or all of them (Wait/Waitall).
// MPI_Request_get_status only inspects; MPI_Cancel only marks; neither
// completes.
func completeRequests(c *trace.Call, null uint64, done func(s slot, persistentOnly bool)) {
	switch c.Name() {
	case "MPI_Request_get_status", "MPI_Cancel", "MPI_Request_free":
		return
	}
	reqs, after := requestsOf(c), requestsAfter(c)
	exact := len(after) == len(reqs)
	if exact {
		for i, r := range reqs {
			if r.v != null && after[i] == null {
				done(r, false)
			}
		}
	}
	var chosen []int
	switch {
	case c.HasField("array_of_indices"):
		for _, ix := range c.Words("array_of_indices") {
			chosen = append(chosen, int(int64(ix)))
		}
	case c.HasField("index"):
		if !c.HasField("flag") || c.Int("flag") != 0 {
			chosen = append(chosen, int(c.Int("index")))
		}
	case c.HasField("flag"):
		if c.Int("flag") != 0 {
			for i := range reqs {
				chosen = append(chosen, i)
			}
		}
	default:
		for i := range reqs {
			chosen = append(chosen, i)
		}
	}
	for _, ix := range chosen {
		if ix >= 0 && ix < len(reqs) {
			// With exit values, nonpersistent completions are known already.
			done(reqs[ix], exact)
		}
	}
}

// follows counts the calls of Follow.
var follows atomic.Int64

// Follows is how many times ranks' objects were followed: tests check that
// each rank's are followed once per execution.
func Follows() int64 { return follows.Load() }

// Result is the objects of every rank of one execution (Of).
type Result = check.PerProcess[*State]

// Analyzer follows the objects of every rank, once per execution.
var Analyzer = &check.Check{
	Name: "objects",
	Doc: `the life of every MPI object and request

A result-only analysis: for every rank, the objects it created, freed and
left live, and the events of its requests (Follow).`,
	ResultType: reflect.TypeOf((*Result)(nil)),
	Run:        func(pass *check.Pass) (any, error) { return check.EachProcess(pass.In.Run, Follow), nil },
}
