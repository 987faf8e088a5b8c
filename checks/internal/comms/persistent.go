package comms

import "mpivet/trace"

// persistents follows a rank's persistent collectives (MPI 4.0): the
// initializations it made on each communicator, in order (every member
// makes them in the same order), and how many times it started each. A
// start of one is the nonblocking collective it describes: the n-th start
// of a rank's k-th initialization on a communicator meets the n-th start of
// every other member's k-th (starts may come in any order, MPI 4.0 §6.13).
// It keeps the latest Recent initializations of each communicator.
type persistents struct {
	on    map[string]*initsOn // by communicator key
	live  map[uint64]*pcoll   // by request handle, until freed
	byOff map[uint64]*pcoll   // by the log offset of the initialization
}

// initsOn holds the latest initializations on a communicator: inits[i] is
// the (n-len(inits)+i)-th, n the count.
type initsOn struct {
	n     int
	inits []*pcoll
}

type pcoll struct {
	init   *trace.Call
	key    string
	k      int // its position among the initializations on key
	starts int
}

func (ps *persistents) step(c *trace.Call, t *Tracker) {
	switch {
	case c.Def.Has("collinit"):
		if !c.Returned || c.RC != 0 {
			return
		}
		if ps.on == nil {
			ps.on, ps.live, ps.byOff = map[string]*initsOn{}, map[uint64]*pcoll{}, map[uint64]*pcoll{}
		}
		key := t.Key(c.Word("comm"))
		on := ps.on[key]
		if on == nil {
			on = &initsOn{}
			ps.on[key] = on
		}
		pc := &pcoll{init: c.Keep(), key: key, k: on.n}
		if len(on.inits) == Recent {
			delete(ps.byOff, on.inits[0].init.Offset)
			copy(on.inits, on.inits[1:])
			on.inits = on.inits[:Recent-1]
		}
		on.inits, on.n = append(on.inits, pc), on.n+1
		ps.live[c.Word("request")] = pc
		if c.Offset != trace.Unknown {
			ps.byOff[c.Offset] = pc
		}
	case ps.live == nil:
	case c.Name() == "MPI_Start":
		if pc := ps.live[c.Word("request")]; pc != nil {
			pc.starts++
		}
	case c.Name() == "MPI_Startall":
		for _, h := range c.Words("array_of_requests") {
			if pc := ps.live[h]; pc != nil {
				pc.starts++
			}
		}
	case c.Name() == "MPI_Request_free":
		delete(ps.live, c.Word("request"))
	}
}

// PersistentOf returns, for the initialization init of a persistent
// collective the rank made, the key of its communicator, its position among
// the rank's initializations there and how many times the rank started it;
// k is -1 if it is not among the latest.
func (x *Index) PersistentOf(init *trace.Call) (key string, k, starts int) {
	if pc := x.pers.byOff[init.Offset]; pc != nil && init.Offset != trace.Unknown {
		return pc.key, pc.k, pc.starts
	}
	return "", -1, 0
}

// Persistent returns the rank's k-th initialization of a persistent
// collective on the communicator with key key, and how many times it
// started it; known is false when the rank made fewer, init is nil when
// it is no longer among the latest.
func (x *Index) Persistent(key string, k int) (init *trace.Call, starts int, known bool) {
	on := x.pers.on[key]
	if on == nil || k >= on.n || k < 0 {
		return nil, 0, false
	}
	if i := k - (on.n - len(on.inits)); i >= 0 {
		return on.inits[i].init, on.inits[i].starts, true
	}
	return nil, 0, true
}
