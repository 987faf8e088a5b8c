package ops

import (
	"fmt"

	"mpivet/checks/internal/objects"
	"mpivet/trace"
)

// Kind is what an operation waits for.
type Kind uint8

const (
	SendOp  Kind = iota
	RecvOp       // takes the message of Peer
	ProbeOp      // waits for the message of Peer without taking it
	CollOp
	LocalOp // completes at once (MPI_Imrecv, PROC_NULL, a communicator not recorded)
)

// Op is one operation of a rank, as both zero-buffering models simulate
// it. There is one per message and collective of the run, so it is kept
// small: besides what the calls say, a few flags each model sets for
// itself (the others stay false).
type Op struct {
	Peer *Op   // the matching send or receive (nil: none)
	Coll *Coll // for CollOp
	Call *trace.Call
	Obj  *objects.Object // a request's operation: its request
	Tag  int64
	// matching data
	Comm      int32 // communicator (Table.CommID of its key)
	Rank      int32
	Src, Dst  int32 // world ranks; Src -1 for a receive: unknown
	Kind      Kind
	Posted    bool
	AnyTag    bool
	Cancelled bool
	Buffered  bool // a buffered send (MPI_Bsend, MPI_Ibsend): complete at once
	Waited    bool // a call waits for it
	Lone      bool // a send no receive takes (its receiver has ended): complete at once
	Deferred  bool // zerobuf: a receive whose source its completion will say
	// what minimal slack enumeration supposes (whole/mse.go): Frozen, the
	// wildcard receive that must stay unmatched; Orphan, the send that
	// lost its receive (the frozen one's match); Extra, a send supposed
	// buffered
	Frozen, Orphan, Extra bool
}

// Coll is a collective, the one every member's part shares.
type Coll struct {
	Need, Arrived int
	Members       []int
	ID            CollID
}

// Complete says whether o is complete under zero buffering: a send or
// receive once its peer is posted, a collective once every member arrived.
func (o *Op) Complete() bool {
	switch o.Kind {
	case SendOp, RecvOp, ProbeOp:
		switch {
		case o.Frozen:
			return false
		case o.Cancelled || o.Obj != nil && o.Obj.Cancelled || o.Buffered || o.Lone || o.Extra:
			return true
		case o.Orphan:
			return false
		}
		return o.Peer != nil && o.Peer.Posted
	case CollOp:
		return o.Coll.Arrived >= o.Coll.Need
	}
	return true
}

// Event is one call of a rank: the operations it starts and those it waits for.
type Event struct {
	Call  *trace.Call
	Posts []*Op
	Waits []*Op
}

// Post makes the event start the operations os and wait for them (a
// blocking call's).
func (e *Event) Post(os ...*Op) {
	for _, o := range os {
		e.Posts, e.Waits = append(e.Posts, o), append(e.Waits, o)
		o.Waited = true
	}
}

// Enter marks the event's operations posted, and calls wake with each rank
// that may go on now: the members of a collective it completes, the peer of
// each operation matched, the probes (in probers) that wait for one.
func (e *Event) Enter(probers map[*Op][]*Op, wake func(rank int)) {
	for _, o := range e.Posts {
		o.Posted = true
		switch {
		case o.Kind == CollOp:
			o.Coll.Arrived++
			if o.Coll.Arrived == o.Coll.Need {
				for _, m := range o.Coll.Members {
					wake(m)
				}
			}
		case o.Peer != nil:
			wake(int(o.Peer.Rank))
		}
		for _, pr := range probers[o] {
			wake(int(pr.Rank))
		}
	}
}

// Table is what the operations of all ranks share in one simulation: the
// communicators' keys, numbered, and the collectives by CollID.
type Table struct {
	Colls   map[CollID]*Coll
	commIDs map[string]int32
}

// NewTable makes an empty table.
func NewTable() *Table {
	return &Table{Colls: map[CollID]*Coll{}, commIDs: map[string]int32{}}
}

// CommID numbers a communicator key.
func (t *Table) CommID(key string) int32 {
	id, ok := t.commIDs[key]
	if !ok {
		id = int32(len(t.commIDs))
		t.commIDs[key] = id
	}
	return id
}

// Usable says why process p's records cannot be simulated ("" if they can).
func Usable(p *trace.Process) string {
	switch {
	case p.Rank < 0:
		return "a process never initialised MPI"
	case p.Overflow:
		return fmt.Sprintf("rank %d's records are incomplete", p.Rank)
	case p.Slots > 1 || len(p.Threads) > 1:
		// Slots counts every thread that called MPI, those that ended
		// before the run did (a Python thread joined) included; Threads
		// only those still there at the end.
		return fmt.Sprintf("rank %d called MPI from several threads (their orders are not recorded apart)", p.Rank)
	}
	return ""
}

// Ops returns the operations call c starts and waits for itself (a
// blocking call's), and the operation of a request c creates (nil: none),
// which the request's starts and completions post and wait for. Why says
// when the records did not tell enough.
func (b *Rank) Ops(c *trace.Call) (posted []*Op, request *Op) {
	d := c.Def
	switch {
	case d.Has("coll") && c.HasField("comm"):
		// numbered in call order; a nonblocking one is started with
		// its request
		o := b.collective(c)
		if d.Has("blocking") {
			return []*Op{o}, nil
		}
		return nil, o
	case d.Has("p2p") && !d.Has("blocking"):
		switch {
		case !c.Returned || (c.HasField("flag") && c.Int("flag") == 0):
		case d.Has("probe"): // a successful MPI_Iprobe or MPI_Improbe waits like a probe
			o := b.p2p(c, ProbeOp, "source", "tag")
			if c.Name() == "MPI_Improbe" {
				o.Kind = RecvOp
			}
			return []*Op{o}, nil
		case c.Name() == "MPI_Imrecv":
			return nil, &Op{Kind: LocalOp, Rank: int32(b.World), Call: c}
		case d.Has("send") && d.Has("recv"): // one request for two operations: not modelled
			if b.Why == "" {
				b.Why = fmt.Sprintf("rank %d called %s, whose send and receive share one request (not modelled)", b.World, c.Name())
			}
			return nil, &Op{Kind: LocalOp, Rank: int32(b.World), Call: c}
		case d.Has("send"):
			return nil, b.p2p(c, SendOp, "dest", "tag")
		case d.Has("recv"):
			return nil, b.p2p(c, RecvOp, "source", "tag")
		}
	case !d.Has("p2p"):
	case d.Has("probe"):
		o := b.p2p(c, ProbeOp, "source", "tag")
		if c.Name() == "MPI_Mprobe" {
			o.Kind = RecvOp
		}
		return []*Op{o}, nil
	case c.Name() == "MPI_Mrecv":
		// the message was taken by its MPI_Mprobe
	case d.Has("send") && d.Has("recv"):
		return []*Op{b.p2p(c, SendOp, "dest", "sendtag"), b.p2p(c, RecvOp, "source", "recvtag")}, nil
	case d.Has("send"):
		return []*Op{b.p2p(c, SendOp, "dest", "tag")}, nil
	case d.Has("recv"):
		return []*Op{b.p2p(c, RecvOp, "source", "tag")}, nil
	}
	return nil, nil
}

// p2p makes the operation of one side of a point-to-point call.
func (b *Rank) p2p(c *trace.Call, kind Kind, peerField, tagField string) *Op {
	sd := b.P2P(c, kind == SendOp, peerField, tagField)
	var comm int32
	if sd.Comm != "" {
		comm = b.table.CommID(sd.Comm)
	}
	if sd.Local {
		return &Op{Kind: LocalOp, Rank: int32(b.World), Call: c}
	}
	return &Op{Kind: kind, Rank: int32(b.World), Comm: comm, Tag: sd.Tag, AnyTag: sd.AnyTag, Call: c,
		Src: int32(sd.Src), Dst: int32(sd.Dst), Buffered: sd.Buffered}
}

// collective makes the operation of a rank's part in a collective, the
// one every member's part shares.
func (b *Rank) collective(c *trace.Call) *Op {
	id, ms, ok := b.Collective(c)
	if !ok {
		return &Op{Kind: LocalOp, Rank: int32(b.World), Call: c}
	}
	cl := b.table.Colls[id]
	if cl == nil {
		cl = &Coll{Need: len(ms), Members: ms, ID: id}
		b.table.Colls[id] = cl
	}
	return &Op{Kind: CollOp, Rank: int32(b.World), Coll: cl, Call: c}
}
