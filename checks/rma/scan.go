package rma

import (
	"fmt"
	"sort"
	"strings"

	"mpivet/api"
	"mpivet/check"
	"mpivet/checks/internal/comms"
	"mpivet/trace"
)

// window is one window, the same on every member.
type window struct {
	key      string        // the communicator's key and the window's position among those created on it
	comm     string        // the communicator's key
	members  []int         // world ranks, by rank in the window
	created  map[int]*call // creation, by world rank
	dispUnit map[int]int64 // by world rank
	dynamic  bool          // MPI_Win_create_dynamic: displacements are addresses
	fences   map[int][]*call
	freed    map[int]bool
}

// call is a call of a rank.
type call struct {
	p   *trace.Process
	c   *trace.Call
	idx int // among the rank's calls
}

// epochs are a rank's open epochs on one window.
type epochs struct {
	w         *window
	handle    uint64
	fenced    bool          // an epoch opened by MPI_Win_fence
	fenceUsed bool          // and an operation of the rank made it an access epoch
	locks     map[int]*call // target world rank -> MPI_Win_lock
	excl      map[int]bool
	lockAll   *call
	start     *call
	targets   []int // of the start
	post      *call
	origins   []int // of the post
	pending   []*access
	gen       int // synchronisation generation (fences and barrier-like collectives on its communicator)
	inFence0  bool
	seen      map[repeatKey]*access // the accesses since the last call on the window that was not one (repeated)
}

// access is one one-sided operation.
type access struct {
	call
	w      *window
	origin int // world ranks
	target int
	lo, hi int64      // target bytes
	blocks [][2]int64 // the bytes of a derived target datatype, when recorded
	write  bool
	atomic bool   // an accumulate-class operation
	op     string // its operation, for accumulates
	typ    string // the target datatype, if predefined
	elem   string // the one basic type of the target datatype's type map ("": several, or not known)
	esize  int64  // its extent: the stride of its elements (0: not recorded)
	excl   bool   // in an exclusive lock epoch
	lock   bool   // in a passive-target epoch
	gen    int
	done   *call // what completed it at the target (nil: nothing did)
	doneAt int   // the generation it was completed in (maxInt: never)
	vc     []int // vector clock when it started
	doneVC int   // its origin's clock when it completed
	fence  int   // in a fence epoch: the origin's fences on the window before it (0: not in one)
	start  *call // in a PSCW access epoch: its MPI_Win_start
	again  *call // the first repeat of it left out (repeated): a Put repeated in one epoch races with itself
	// fetched: 1 + the index of the call that completed the request of an
	// MPI_Rget or MPI_Rget_accumulate (0: none): its result arrived, so it
	// read the target (origin.go)
	fetched int
}

// exposure is an exposure epoch of a target, named by the call that opened
// it: the k-th fence on a window (fence k), or a post.
type exposure struct {
	w     *window
	fence int
	post  *call
}

// scan follows every rank's window calls.
type scan struct {
	pass     *check.Pass
	wins     map[string]*window
	order    []*window
	accesses []*access
	syncs    map[*trace.Process][]sync // synchronisations, per rank in call order
	posts    map[[2]int][]*call        // (target, origin) -> posts naming origin
	starts   map[[2]int][]*call        // (origin, target) -> starts naming target
	procs    map[int]*trace.Process
	// repeats: the operations left out as repeats of an earlier one
	// (repeated), by (origin, entry offset), for the target's records of
	// what a Put wrote (values.go)
	repeats map[[2]uint64]*access
	closers map[[2]uint64][2]*call // (rank, entry offset) of a fence or wait -> the call opening its epoch, itself
	openers map[[2]uint64]exposure // (rank, entry offset) of a fence or post -> the exposure epoch it opens
	rgets   map[[2]uint64]*access  // (rank, request) -> the MPI_Rget or MPI_Rget_accumulate pending on it
	locals  []*local               // the targets' accesses between calls (passive.go)
	polled  map[polledByte]bool    // bytes loaded after MPI_Win_sync (passive.go)
}

func newScan(pass *check.Pass) *scan {
	return &scan{pass: pass, wins: map[string]*window{}, syncs: map[*trace.Process][]sync{},
		posts: map[[2]int][]*call{}, starts: map[[2]int][]*call{}, procs: map[int]*trace.Process{}, repeats: map[[2]uint64]*access{},
		closers: map[[2]uint64][2]*call{}, openers: map[[2]uint64]exposure{}, rgets: map[[2]uint64]*access{}}
}

const maxInt = int(^uint(0) >> 1)

// isComm reports whether c is a communication call (MPI_Put ...).
func isComm(d *api.Call) bool { return d.Has("rma") && d.Param("target_disp") >= 0 }

// rank follows rank p's window calls.
func (s *scan) rank(p *trace.Process) {
	s.procs[p.Rank] = p
	// One pass over the rank's calls (streamed from its log): the
	// communicators as of each call, and the rank's position among its
	// collectives on each, are followed as it goes.
	x := comms.NewTracker(p)
	colls := map[string]int{}
	byHandle := map[uint64]*epochs{}
	made := map[string]int{}
	var open []*epochs
	i := -1
	recs := passiveRecords(p)
	var after *trace.Call // the latest call, when accesses follow it
	for c := range p.Calls() {
		i++
		if after != nil {
			s.placeLocal(p, after, i-1, recs[after.Offset], byHandle)
			after = nil
		}
		if recs[c.Offset] != nil {
			after = c.Keep()
		}
		d := c.Def
		key := x.Key(c.Word("comm"))
		if d.Has("coll") && c.HasField("comm") && !d.Has("finalize") {
			colls[key]++
		}
		if d.Has("coll") && c.HasField("comm") && fullSync(d.Name) && c.Returned {
			s.addSync(p, sync{at: i, kind: syncColl, id: fmt.Sprintf("c:%s#%d", key, colls[key]-1), members: x.All(c.Word("comm"))})
			for _, e := range open {
				if e.w.comm == key {
					e.gen++
				}
			}
		}
		x.Created(c)
		if d.Has("completion") && c.Returned && len(s.rgets) > 0 {
			s.fetched(p, c, i)
		}
		if !d.Has("rma") && !d.Has("finalize") {
			continue
		}
		cl := call{p, c.Keep(), i} // kept by the epochs, windows and accesses
		if !d.Has("rma") {
			if d.Has("finalize") {
				s.finalize(cl, open)
				return
			}
			continue
		}
		if strings.HasPrefix(d.Name, "MPI_Win_create") || strings.HasPrefix(d.Name, "MPI_Win_allocate") {
			if !c.Returned || c.RC != 0 {
				continue
			}
			e := s.create(cl, key, x.Members(c.Word("comm")), made)
			byHandle[c.Word("win")] = e
			open = append(open, e)
			continue
		}
		e := byHandle[c.Word("win")]
		if e == nil {
			continue // a window the records do not show created
		}
		if d.Name == "MPI_Win_free" {
			s.free(cl, e)
			delete(byHandle, c.Word("win"))
			for j, o := range open {
				if o == e {
					open = append(open[:j:j], open[j+1:]...)
					break
				}
			}
			continue
		}
		s.epochCall(cl, e)
	}
	if after != nil {
		s.placeLocal(p, after, i, recs[after.Offset], byHandle)
	}
	s.hang(p, open)
}

// fullSync reports whether a blocking collective lets no member leave
// before every member entered: those whose every member receives from
// every other.
func fullSync(name string) bool {
	switch name {
	case "MPI_Barrier", "MPI_Allreduce", "MPI_Allgather", "MPI_Allgatherv", "MPI_Alltoall", "MPI_Alltoallv",
		"MPI_Alltoallw", "MPI_Reduce_scatter", "MPI_Reduce_scatter_block":
		return true
	}
	return false
}

// create follows a window's creation.
func (s *scan) create(cl call, comm string, members []int, made map[string]int) *epochs {
	c, p := cl.c, cl.p
	key := fmt.Sprintf("%s/win%d", comm, made[comm])
	made[comm]++
	w := s.wins[key]
	if w == nil {
		w = &window{key: key, comm: comm, members: members, created: map[int]*call{},
			dispUnit: map[int]int64{}, fences: map[int][]*call{}, freed: map[int]bool{}, dynamic: c.Name() == "MPI_Win_create_dynamic"}
		s.wins[key] = w
		s.order = append(s.order, w)
	}
	w.created[p.Rank] = &cl
	w.dispUnit[p.Rank] = 1
	if c.HasField("disp_unit") {
		w.dispUnit[p.Rank] = c.Int("disp_unit")
	}
	s.addSync(p, sync{at: cl.idx, kind: syncColl, id: "w:" + key + "#create", members: w.members})
	return &epochs{w: w, handle: c.Word("win"), locks: map[int]*call{}, excl: map[int]bool{}}
}

// worldOf returns the world rank of window rank r (-1: none).
func (w *window) worldOf(r int64) int {
	if r < 0 || r >= int64(len(w.members)) {
		return -1
	}
	return w.members[r]
}

// group returns the world ranks of a PSCW call's group, as the layer
// recorded them.
func group(cl call) []int {
	ws := cl.p.RMA[cl.c.Offset]
	if len(ws) < 1 || uint64(len(ws)) < 1+ws[0] {
		return nil
	}
	var g []int
	for _, v := range ws[1 : 1+ws[0]] {
		g = append(g, int(int64(v)))
	}
	return g
}

func has(rs []int, r int) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// report reports an rma-epoch finding at cl, with further locations.
func (s *scan) report(msg string, cl call, note string, more ...check.Location) {
	at := s.pass.At(cl.p, cl.c)
	at.Note = note
	s.pass.Report(check.Finding{Kind: "rma-epoch", Message: msg, Locations: append([]check.Location{at}, more...)})
}

// loc is the location of cl with a note.
func (s *scan) loc(cl *call, note string) check.Location {
	l := s.pass.At(cl.p, cl.c)
	l.Note = note
	return l
}

// openEpochs describes the epochs e has open (passive-target and PSCW
// ones), with where each was opened.
func openEpochs(e *epochs) (whats []string, where []*call) {
	var ts []int
	for t := range e.locks {
		ts = append(ts, t)
	}
	sort.Ints(ts)
	for _, t := range ts {
		whats = append(whats, fmt.Sprintf("the lock on rank %d taken by MPI_Win_lock", t))
		where = append(where, e.locks[t])
	}
	if e.lockAll != nil {
		whats, where = append(whats, "the epoch of MPI_Win_lock_all"), append(where, e.lockAll)
	}
	if e.start != nil {
		whats, where = append(whats, fmt.Sprintf("the access epoch of MPI_Win_start (targets %v)", e.targets)), append(where, e.start)
	}
	if e.post != nil {
		whats, where = append(whats, fmt.Sprintf("the exposure epoch of MPI_Win_post (origins %v)", e.origins)), append(where, e.post)
	}
	return whats, where
}
