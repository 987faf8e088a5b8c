// Package ops reads one rank's point-to-point and collective calls as the
// zero-buffering models see them: the communicator (by a key the same on
// every rank), the world ranks of the two sides, the tag, and which
// collective of its communicator a call is; and the operations (Op) both
// checks/zerobuf's co-simulation and internal/whole's model of a whole run
// simulate, made from those calls (Rank.Ops) here, once: what a call is
// does not depend on which model simulates it, and must not differ
// between them.
package ops

import (
	"fmt"
	"strings"

	"mpivet/checks/internal/comms"
	"mpivet/trace"
)

// Rank reads the calls of one rank, following its communicators as its
// calls create them (Comms.Created, which the caller calls once a call has
// been read). Why says what the records did not tell (a communicator they
// do not describe); the model then cannot simulate the run.
type Rank struct {
	World                       int // its world rank
	AnySource, AnyTag, ProcNull int64
	Comms                       *comms.Tracker
	// Wild are the rank's matched wildcard events, by the entry record of
	// the call that started them: where a receive from MPI_ANY_SOURCE got
	// its message.
	Wild    map[uint64]*trace.Wildcard
	Why     string
	collSeq map[string]int // collectives read on each communicator
	table   *Table         // where its operations are numbered and met
}

// New reads the calls of process p, world rank rank, into operations
// that share table t with those of the other ranks.
func New(p *trace.Process, rank int, t *Table) *Rank {
	b := &Rank{World: rank, Comms: comms.NewTracker(p), collSeq: map[string]int{}, Wild: map[uint64]*trace.Wildcard{}, table: t}
	konst := func(name string) int64 {
		if v, ok := p.Const(name); ok {
			return int64(v)
		}
		return -1 << 40
	}
	b.AnySource, b.AnyTag, b.ProcNull = konst("MPI_ANY_SOURCE"), konst("MPI_ANY_TAG"), konst("MPI_PROC_NULL")
	for _, w := range p.Wild {
		if w.Matched && w.Offset != trace.Unknown && w.World >= 0 {
			b.Wild[w.Offset] = w
		}
	}
	return b
}

// Comm returns the key of call c's communicator (the same on every rank),
// the world ranks its point-to-point calls name (an intercommunicator's
// remote group) and all its members; nil members if the records do not
// say who they are.
func (b *Rank) Comm(c *trace.Call) (key string, p2p, all []int) {
	h := c.Word("comm")
	if !b.Comms.Known(h) {
		return "", nil, nil
	}
	return b.Comms.Key(h), b.Comms.Members(h), b.Comms.All(h)
}

// WorldRank is the world rank of rank r of a communicator whose members'
// world ranks are ms (-1: none such).
func WorldRank(ms []int, r int64) int {
	if r >= 0 && r < int64(len(ms)) {
		return ms[r]
	}
	return -1
}

// Side is one side of a point-to-point call: a message sent, or a
// receive or probe waiting for one.
type Side struct {
	// Local: the call completes at once, matching nothing (a peer of
	// MPI_PROC_NULL or outside the communicator, a communicator the
	// records do not describe: then Why says so)
	Local    bool
	Comm     string // its key
	Tag      int64
	AnyTag   bool
	Src, Dst int  // world ranks; Src -1 for a receive whose source is unknown
	Buffered bool // a buffered send (MPI_Bsend, MPI_Ibsend): complete at once
}

// P2P reads one side of a point-to-point call c: a send (its peer in
// peerField) or a receive or probe, with its tag in tagField. A receive
// from MPI_ANY_SOURCE takes its source from its status, or else from the
// wildcard record of the call.
func (b *Rank) P2P(c *trace.Call, send bool, peerField, tagField string) Side {
	key, ms, _ := b.Comm(c)
	peer, tag := c.Int(peerField), c.Int(tagField)
	if peer == b.ProcNull {
		return Side{Local: true}
	}
	if ms == nil {
		b.Why = fmt.Sprintf("rank %d used a communicator the records do not describe (%s)", b.World, c.Name())
		return Side{Local: true}
	}
	s := Side{Comm: key, Tag: tag, AnyTag: tag == b.AnyTag}
	if send {
		s.Src, s.Dst = b.World, WorldRank(ms, peer)
		s.Local = s.Dst < 0
		s.Buffered = strings.Contains(strings.ToLower(c.Name()), "bsend")
		return s
	}
	s.Dst, s.Src = b.World, -1
	if peer != b.AnySource {
		s.Src = WorldRank(ms, peer)
	} else if st := c.Words("status"); len(st) == 2 && int64(st[0]) >= 0 && c.Returned {
		s.Src = WorldRank(ms, int64(st[0]))
	} else if w := b.Wild[c.Offset]; w != nil && c.Seq >= 0 {
		s.Src = w.World
	}
	return s
}

// SourceOf finds the source of a request's receive from MPI_ANY_SOURCE:
// the wildcard record of the call that started it, or the status of the
// call that completed it (-1: not recorded).
func (b *Rank) SourceOf(start, done, created *trace.Call) int {
	if w := b.Wild[start.Offset]; w != nil {
		return w.World
	}
	if done != nil && done.HasField("status") {
		if st := done.Words("status"); len(st) == 2 && int64(st[0]) >= 0 {
			_, ms, _ := b.Comm(created)
			return WorldRank(ms, int64(st[0]))
		}
	}
	return -1
}

// CollID names a collective: the N-th on communicator Comm, which every
// member makes.
type CollID struct {
	Comm string
	N    int
}

// Collective reads a rank's part in collective call c: which collective
// it is and the world ranks of its members; ok false if the records do not
// describe its communicator (Why says so).
func (b *Rank) Collective(c *trace.Call) (id CollID, members []int, ok bool) {
	key, _, ms := b.Comm(c)
	if ms == nil {
		b.Why = fmt.Sprintf("rank %d used a communicator the records do not describe (%s)", b.World, c.Name())
		return CollID{}, nil, false
	}
	id = CollID{key, b.collSeq[key]}
	b.collSeq[key]++
	return id, ms, true
}
