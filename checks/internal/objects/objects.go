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
		if !c.Returned {
			continue // blocked or crashed inside: nothing completed or created
		}
		switch {
		case c.Def.Has("completion"):
			completeRequests(c, func(v uint64) {
				if o := get("request", v); o != nil {
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
		case c.Def.Has("start"):
			for _, v := range requestsOf(c) {
				if o := get("request", v); o != nil && o.Persistent {
					if o.Active {
						st.Events = append(st.Events, Event{StartedActive, o, c})
					}
					o.Active, o.Started = true, c
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
// request array).
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

// completeRequests calls done for every request a returned completion call
// completed, from its outputs: indices (Waitsome/Testsome), index
// (Waitany/Testany), flag (Test/Testall), or all of them (Wait/Waitall).
// MPI_Request_get_status only inspects; MPI_Cancel only marks; neither
// completes.
func completeRequests(c *trace.Call, done func(uint64)) {
	switch c.Name() {
	case "MPI_Request_get_status", "MPI_Cancel", "MPI_Request_free":
		return
	}
	reqs := requestsOf(c)
	switch {
	case c.HasField("array_of_indices"):
		for _, ix := range c.Words("array_of_indices") {
			if int(ix) >= 0 && int(ix) < len(reqs) {
				done(reqs[ix])
			}
		}
	case c.HasField("index"):
		if c.HasField("flag") && c.Int("flag") == 0 {
			return
		}
		if ix := c.Int("index"); ix >= 0 && int(ix) < len(reqs) {
			done(reqs[ix])
		}
	case c.HasField("flag"):
		if c.Int("flag") != 0 {
			for _, r := range reqs {
				done(r)
			}
		}
	default:
		for _, r := range reqs {
			done(r)
		}
	}
}
