package ops

import (
	"mpivet/checks/internal/objects"
	"mpivet/trace"
)

// Requests makes the operations of one rank's requests, as an
// objects.Follower reports their starts: the call that creates a request
// leaves its operation (Rank.Ops) as the template (Made), each start of the
// request takes it, a persistent request's a copy of it, and is its
// request's current operation until the next start or the request is gone.
type Requests struct {
	tmpl map[uint64]*Op          // operations of the calls that create requests, by entry record
	cur  map[*objects.Object]*Op // each live request's current operation
}

// NewRequests makes an empty set.
func NewRequests() *Requests {
	return &Requests{tmpl: map[uint64]*Op{}, cur: map[*objects.Object]*Op{}}
}

// Made keeps t, the operation of a request call c creates (nil: none),
// for its starts.
func (q *Requests) Made(c *trace.Call, t *Op) {
	if t != nil {
		q.tmpl[c.Offset] = t
	}
}

// Read is called once call c has been followed: the template of a request
// that is not persistent has been taken by its start (or no request was
// made).
func (q *Requests) Read(c *trace.Call) {
	if q.tmpl[c.Offset] != nil && !c.Def.Has("persistent") {
		delete(q.tmpl, c.Offset)
	}
}

// Start makes the operation a start of request o begins (nil: its creating
// call made none), now its current one.
func (q *Requests) Start(o *objects.Object) *Op {
	t := q.tmpl[o.Created.Offset]
	if t == nil {
		return nil
	}
	x := t
	if o.Persistent {
		cp := *t
		x = &cp
	} else {
		delete(q.tmpl, o.Created.Offset)
	}
	x.Obj = o
	q.cur[o] = x
	return x
}

// Current is request o's current operation (nil: none).
func (q *Requests) Current(o *objects.Object) *Op { return q.cur[o] }

// Done forgets request o's current operation, completed.
func (q *Requests) Done(o *objects.Object) { delete(q.cur, o) }

// Gone forgets request o, freed; its operations are with their events.
func (q *Requests) Gone(o *objects.Object) {
	delete(q.cur, o)
	delete(q.tmpl, o.Created.Offset)
}

// Each calls f with each live request's current operation, and with the
// operations of the calls that created requests not started yet.
func (q *Requests) Each(f func(*Op)) {
	for _, o := range q.cur {
		f(o)
	}
	for _, o := range q.tmpl {
		f(o)
	}
}
