// Package objects follows the MPI objects a rank creates through handles
// (communicators, groups, datatypes, ops, infos, error handlers, messages and
// requests) from the call that created each to the call that freed it, and
// the active/inactive state of requests. It is a shared analysis: it reports
// nothing itself; the resource-leak and request-lifecycle checks read it.
//
// It is driven entirely by the roles in api/mpi.api (new, free, reqs, ...),
// so a call added to the description is tracked without touching this code.
package objects

import (
	"strings"

	"mpivet/api"
	"mpivet/trace"
)

// Object is one MPI object created by the program.
type Object struct {
	Kind       api.HandleKind
	Handle     uint64
	Created    *trace.Call
	Persistent bool // a persistent request
	Active     bool // a request whose operation has not completed
	Cancelled  bool
	Started    *trace.Call // last MPI_Start(all) of a persistent request
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
)

// State is the result of following one rank.
type State struct {
	Finalize *trace.Call // the rank's MPI_Finalize, nil if it never called it
	// Live are the objects still alive when MPI_Finalize was called (or at the
	// end of the records, if it was not), in creation order.
	Live   []*Object
	Events []Event
}

type key struct {
	kind   api.HandleKind
	handle uint64
}

// Follow follows one rank's objects.
func Follow(p *trace.Process) *State {
	st := &State{}
	live := map[key]*Object{}
	var order []*Object
	predefined := func(v uint64) bool { return len(p.Consts[v]) > 0 || v == trace.Unknown }
	null, _ := p.Const("MPI_REQUEST_NULL")
	get := func(k api.HandleKind, v uint64) *Object { return live[key{k, v}] }
	release := func(o *Object) { delete(live, key{o.Kind, o.Handle}) }

	for _, c := range p.Calls {
		if c.Def.Has("finalize") {
			st.Finalize = c
			break
		}
		// Handles released by the call (read on entry).
		for i, f := range c.Def.In {
			prm := c.Def.Params[f.Param]
			if prm.Role != api.Free {
				continue
			}
			o := get(prm.Handle, c.In[i].Word)
			if o == nil {
				continue
			}
			if o.Kind == "request" && o.Active && c.Name() == "MPI_Request_free" {
				st.Events = append(st.Events, Event{FreedActive, o, c})
			}
			release(o)
		}
		// A start is judged when it is made: an MPI may abort in it.
		if c.Def.Has("start") {
			for _, v := range requestsOf(c) {
				if o := get("request", v); o != nil && o.Persistent {
					if o.Active {
						st.Events = append(st.Events, Event{StartedActive, o, c})
					}
					o.Active, o.Started = true, c
				}
			}
		}
		if !c.Returned {
			continue // blocked or crashed inside: nothing completed or created
		}
		// The MPI may have replaced an inout handle.
		if c.HasField("request_out") {
			in, out := c.Word("request"), c.Word("request_out")
			if o := get("request", in); o != nil && out != in && !predefined(out) {
				release(o)
				o.Handle = out
				live[key{o.Kind, out}] = o
			}
		}
		switch {
		case c.Def.Has("completion"):
			completeRequests(c, null, func(v uint64, persistentOnly bool) {
				if o := get("request", v); o != nil && (o.Persistent || !persistentOnly) {
					if o.Persistent {
						o.Active = false
					} else {
						release(o)
					}
				}
			})
			if c.Name() == "MPI_Cancel" {
				if o := get("request", c.Word("request")); o != nil {
					o.Cancelled = true
				}
			}
		}
		// Handles created by the call. A call with a false flag (Improbe)
		// created nothing.
		if c.HasField("flag") && c.Int("flag") == 0 {
			continue
		}
		for i, f := range c.Def.Out {
			prm := c.Def.Params[f.Param]
			if prm.Role != api.New || c.RC != 0 {
				continue
			}
			v := c.Out[i].Word
			if predefined(v) {
				continue
			}
			o := &Object{Kind: prm.Handle, Handle: v, Created: c}
			if o.Kind == "request" {
				o.Persistent = c.Def.Has("persistent")
				o.Active = !o.Persistent
			}
			live[key{o.Kind, v}] = o
			order = append(order, o)
		}
	}
	for _, o := range order {
		if live[key{o.Kind, o.Handle}] == o {
			st.Live = append(st.Live, o)
		}
	}
	return st
}

// requestsOf returns the requests a call takes (the request pointer or the
// request array) as they were on entry.
func requestsOf(c *trace.Call) []uint64 {
	for i, f := range c.Def.In {
		prm := c.Def.Params[f.Param]
		if prm.Handle != "request" {
			continue
		}
		switch f.Kind {
		case api.FHandles:
			return c.In[i].Words
		case api.FHandle:
			return []uint64{c.In[i].Word}
		}
	}
	return nil
}

// requestsAfter returns the same requests as the MPI left them on exit, or
// nil if the call does not record them.
func requestsAfter(c *trace.Call) []uint64 {
	for i, f := range c.Def.Out {
		if f.Handle != "request" || !strings.HasSuffix(f.Name, "_out") {
			continue
		}
		switch f.Kind {
		case api.FHandles:
			return c.Out[i].Words
		case api.FHandle:
			return []uint64{c.Out[i].Word}
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
func completeRequests(c *trace.Call, null uint64, done func(v uint64, persistentOnly bool)) {
	switch c.Name() {
	case "MPI_Request_get_status", "MPI_Cancel", "MPI_Request_free":
		return
	}
	reqs, after := requestsOf(c), requestsAfter(c)
	if len(after) == len(reqs) {
		for i, r := range reqs {
			if r != null && after[i] == null {
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
			// Without exit values, every chosen request counts.
			done(reqs[ix], len(after) == len(reqs))
		}
	}
}
