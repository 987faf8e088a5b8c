package rma

import (
	"mpivet/checks/internal/comms"
	"mpivet/checks/internal/objects"
	"mpivet/trace"
)

// msgKey names the messages of one channel: non-overtaking orders them,
// so the k-th send on a channel is taken by its k-th receive.
type msgKey struct {
	comm     string
	src, dst int
	tag      int64
}

// messages adds rank p's point-to-point messages to its synchronisations:
// a send happens before the completion of the receive that takes it (its
// return for a blocking receive, the Wait or Test that completed it for a
// nonblocking one). A receive whose source or tag the records do not give
// (MPI_ANY_TAG on a blocking receive) adds no order: fewer orders, never a
// false one. Persistent and matched (Mprobe) receives are left out too.
func (s *scan) messages(p *trace.Process) {
	anySrc, _ := p.Const("MPI_ANY_SOURCE")
	anyTag, _ := p.Const("MPI_ANY_TAG")
	procNull, _ := p.Const("MPI_PROC_NULL")
	wild := map[uint64]*trace.Wildcard{}
	for _, w := range p.Wild {
		if w.Matched && w.World >= 0 {
			wild[w.Offset] = w
		}
	}
	// One pass over the rank's calls (streamed from its log): the
	// communicators as of each call, and the requests of nonblocking
	// receives until the call that completes them (its position is the
	// receive's synchronisation).
	x := comms.NewTracker(p)
	f := objects.NewFollower(p)
	recvOf := map[uint64]msgKey{}           // a nonblocking receive's message, by its call's offset
	pending := map[*objects.Object]msgKey{} // its request, until completed
	i := -1
	f.Start = func(o *objects.Object, c *trace.Call) {
		if m, ok := recvOf[c.Offset]; ok {
			pending[o] = m
			delete(recvOf, c.Offset)
		}
	}
	f.Done = func(o *objects.Object, c *trace.Call) {
		if m, ok := pending[o]; ok {
			s.addSync(p, sync{at: i, kind: syncRecv, msg: m})
			delete(pending, o)
		}
	}
	f.Gone = func(o *objects.Object) { delete(pending, o) }
	for c := range p.Calls() {
		i++
		if m, ok := s.message(p, c, x, wild, anySrc, anyTag, procNull, i); ok {
			recvOf[c.Offset] = m
		}
		x.Created(c)
		f.Step(c)
	}
}

// message adds the synchronisation of rank p's point-to-point call c, the
// i-th, if it is a send or a blocking receive; for a nonblocking receive
// it returns the message its completion takes.
func (s *scan) message(p *trace.Process, c *trace.Call, x *comms.Tracker, wild map[uint64]*trace.Wildcard,
	anySrc, anyTag, procNull uint64, i int) (msgKey, bool) {
	d := c.Def
	if !d.Has("p2p") || d.Has("persistent") || !c.HasField("comm") {
		return msgKey{}, false
	}
	ms, key := x.Members(c.Word("comm")), x.Key(c.Word("comm"))
	if d.Has("send") && c.HasField("dest") {
		tag := c.Int("tag")
		if c.HasField("sendtag") {
			tag = c.Int("sendtag")
		}
		if dst := worldOf(ms, c.Int("dest"), procNull); dst >= 0 {
			s.addSync(p, sync{at: i, kind: syncSend, msg: msgKey{key, p.Rank, dst, tag}})
		}
	}
	if !d.Has("recv") || !c.HasField("source") {
		return msgKey{}, false
	}
	src, tag := c.Int("source"), c.Int("tag")
	if c.HasField("recvtag") {
		tag = c.Int("recvtag")
	}
	if uint64(src) == anySrc || uint64(tag) == anyTag {
		w := wild[c.Offset]
		if w == nil {
			return msgKey{}, false
		}
		src, tag = w.Source, w.MTag
	}
	sw := worldOf(ms, src, procNull)
	if sw < 0 {
		return msgKey{}, false
	}
	m := msgKey{key, sw, p.Rank, tag}
	if !d.Has("blocking") {
		return m, true
	}
	if c.Returned || c.Brief {
		s.addSync(p, sync{at: i, kind: syncRecv, msg: m})
	}
	return msgKey{}, false
}

func worldOf(ms []int, r int64, procNull uint64) int {
	if uint64(r) == procNull || r < 0 || r >= int64(len(ms)) {
		return -1
	}
	return ms[r]
}
