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
func (s *scan) messages(p *trace.Process, x *comms.Index, objs *objects.State) {
	anySrc, _ := p.Const("MPI_ANY_SOURCE")
	anyTag, _ := p.Const("MPI_ANY_TAG")
	procNull, _ := p.Const("MPI_PROC_NULL")
	wild := map[uint64]*trace.Wildcard{}
	for _, w := range p.Wild {
		if w.Matched && w.World >= 0 {
			wild[w.Offset] = w
		}
	}
	done := map[*trace.Call]*trace.Call{}
	for _, o := range objs.Requests {
		for _, op := range o.Ops {
			if op.Start != nil && op.Done != nil {
				done[op.Start] = op.Done
			}
		}
	}
	index := map[*trace.Call]int{}
	for i, c := range p.Calls {
		index[c] = i
	}
	for i, c := range p.Calls {
		d := c.Def
		if !d.Has("p2p") || d.Has("persistent") || !c.HasField("comm") {
			continue
		}
		ms, key := x.Members(c.Word("comm")), x.KeyOf(c)
		if d.Has("send") && c.HasField("dest") {
			tag := c.Int("tag")
			if c.HasField("sendtag") {
				tag = c.Int("sendtag")
			}
			if dst := worldOf(ms, c.Int("dest"), uint64(procNull)); dst >= 0 {
				s.addSync(p, sync{at: i, kind: syncSend, msg: msgKey{key, p.Rank, dst, tag}})
			}
		}
		if !d.Has("recv") || !c.HasField("source") {
			continue
		}
		src, tag := c.Int("source"), c.Int("tag")
		if c.HasField("recvtag") {
			tag = c.Int("recvtag")
		}
		w := wild[c.Offset]
		if uint64(src) == anySrc || uint64(tag) == anyTag {
			if w == nil {
				continue
			}
			src, tag = w.Source, w.MTag
		}
		at := i
		if !d.Has("blocking") {
			dn := done[c]
			if dn == nil {
				continue
			}
			at = index[dn]
		} else if !c.Returned && !c.Brief {
			continue
		}
		if sw := worldOf(ms, src, uint64(procNull)); sw >= 0 {
			s.addSync(p, sync{at: at, kind: syncRecv, msg: msgKey{key, sw, p.Rank, tag}})
		}
	}
}

func worldOf(ms []int, r int64, procNull uint64) int {
	if uint64(r) == procNull || r < 0 || r >= int64(len(ms)) {
		return -1
	}
	return ms[r]
}
