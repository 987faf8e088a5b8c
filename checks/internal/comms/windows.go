package comms

import (
	"fmt"
	"strings"

	"mpivet/trace"
)

// Windows follows one rank's windows, fed its calls in order (Step): the
// key each window has on every member (its communicator's key and its
// position among the windows made on that communicator), its members, the
// window collectives the rank made on it (MPI_Win_fence, MPI_Win_free),
// its PSCW synchronisations counted by peer, and the lock epochs it holds.
// The wait state reads them to tell what a rank blocked in a
// synchronisation call waits for. It keeps counts, and the latest Recent
// window collectives per window: not every call of a long run.
type Windows struct {
	p       *trace.Process
	key     map[uint64]string // window handle -> key
	members map[string][]int  // world ranks, by rank in the window
	made    map[string]int    // windows made on each communicator
	colls   map[string]*recent
	// posts[k][o]: posts on window k naming origin o; starts[k][t] and
	// completes[k][t]: starts naming target t, and the completes of those
	// access epochs.
	posts, starts, completes map[string]map[int]int
	lastPost, lastStart      map[string][]int // the group of the latest post, start
	// locks[k][t]: the rank holds a lock on target t of window k (true:
	// exclusive), from the return of its MPI_Win_lock to the return of its
	// MPI_Win_unlock; lockAll[k]: an MPI_Win_lock_all epoch likewise.
	locks   map[string]map[int]bool
	lockAll map[string]bool
}

func newWindows(p *trace.Process) *Windows {
	return &Windows{p: p, key: map[uint64]string{}, members: map[string][]int{}, made: map[string]int{},
		colls: map[string]*recent{}, posts: map[string]map[int]int{}, starts: map[string]map[int]int{},
		completes: map[string]map[int]int{}, lastPost: map[string][]int{}, lastStart: map[string][]int{},
		locks: map[string]map[int]bool{}, lockAll: map[string]bool{}}
}

// IsWinCreate reports whether a call makes a window: a collective over
// its communicator.
func IsWinCreate(name string) bool {
	return strings.HasPrefix(name, "MPI_Win_create") || strings.HasPrefix(name, "MPI_Win_allocate")
}

// Step follows call c; x places its communicator as of c.
func (w *Windows) Step(c *trace.Call, x *Tracker) {
	if !c.Def.Has("rma") {
		return
	}
	if IsWinCreate(c.Name()) {
		if c.Returned && c.RC == 0 {
			ck := x.Key(c.Word("comm"))
			k := fmt.Sprintf("%s/win%d", ck, w.made[ck])
			w.made[ck]++
			w.key[c.Word("win")], w.members[k] = k, x.Members(c.Word("comm"))
		}
		return
	}
	k, ok := w.key[c.Word("win")]
	if !ok || c.Returned && c.RC != 0 {
		return // a window the records do not show made, or a call that failed: it did nothing
	}
	switch c.Name() {
	case "MPI_Win_fence", "MPI_Win_free":
		r := w.colls[k]
		if r == nil {
			r = &recent{}
			w.colls[k] = r
		}
		if len(r.calls) == Recent {
			copy(r.calls, r.calls[1:])
			r.calls = r.calls[:Recent-1]
		}
		r.calls, r.n = append(r.calls, c.Keep()), r.n+1
	case "MPI_Win_post":
		w.lastPost[k] = w.group(c)
		count(w.posts, k, w.lastPost[k])
	case "MPI_Win_start":
		w.lastStart[k] = w.group(c)
		count(w.starts, k, w.lastStart[k])
	case "MPI_Win_complete":
		count(w.completes, k, w.lastStart[k])
	default:
		w.passive(c, k)
	}
}

func count(m map[string]map[int]int, k string, g []int) {
	if m[k] == nil {
		m[k] = map[int]int{}
	}
	for _, r := range g {
		m[k][r]++
	}
}

// passive follows lock epochs: held from the lock's return to the unlock's.
func (w *Windows) passive(c *trace.Call, k string) {
	if !c.Returned || c.RC != 0 {
		return
	}
	switch c.Name() {
	case "MPI_Win_lock":
		if w.locks[k] == nil {
			w.locks[k] = map[int]bool{}
		}
		excl, _ := w.p.Const("MPI_LOCK_EXCLUSIVE")
		w.locks[k][w.Target(c)] = uint64(c.Int("lock_type")) == excl
	case "MPI_Win_unlock":
		delete(w.locks[k], w.Target(c))
	case "MPI_Win_lock_all":
		w.lockAll[k] = true
	case "MPI_Win_unlock_all":
		delete(w.lockAll, k)
	}
}

// group returns the world ranks of a PSCW call's group, as the layer
// recorded them.
func (w *Windows) group(c *trace.Call) []int {
	ws := w.p.RMA[c.Offset]
	if len(ws) < 1 || uint64(len(ws)) < 1+ws[0] {
		return nil
	}
	g := make([]int, 0, ws[0])
	for _, v := range ws[1 : 1+ws[0]] {
		g = append(g, int(int64(v)))
	}
	return g
}

// Key returns the key of window handle h (false: not known).
func (w *Windows) Key(h uint64) (string, bool) {
	k, ok := w.key[h]
	return k, ok
}

// Members returns the world ranks of window k's members.
func (w *Windows) Members(k string) []int { return w.members[k] }

// Target returns the world rank of the target of a passive-target call
// (field rank), -1 if it cannot be placed.
func (w *Windows) Target(c *trace.Call) int {
	ms := w.members[w.key[c.Word("win")]]
	if r := c.Int("rank"); r >= 0 && r < int64(len(ms)) {
		return ms[r]
	}
	return -1
}

// Collectives returns how many window collectives the rank made on window
// k, and Collective the k-th of them (nil: not among the latest).
func (w *Windows) Collectives(k string) int {
	if r := w.colls[k]; r != nil {
		return r.n
	}
	return 0
}

func (w *Windows) Collective(k string, i int) *trace.Call {
	r := w.colls[k]
	if r == nil || i >= r.n || i < r.n-len(r.calls) || i < 0 {
		return nil
	}
	return r.calls[i-(r.n-len(r.calls))]
}

// Posts, Starts and Completes count the rank's posts on window k naming
// origin o, its starts naming target t, and the completes of those.
func (w *Windows) Posts(k string, o int) int     { return w.posts[k][o] }
func (w *Windows) Starts(k string, t int) int    { return w.starts[k][t] }
func (w *Windows) Completes(k string, t int) int { return w.completes[k][t] }

// LastPost and LastStart return the groups of the rank's latest post and
// start on window k.
func (w *Windows) LastPost(k string) []int  { return w.lastPost[k] }
func (w *Windows) LastStart(k string) []int { return w.lastStart[k] }

// Holds reports whether the rank holds a lock on target t of window k
// that conflicts with a lock of the other kind: any lock conflicts with an
// exclusive one, an exclusive one with any (MPI_Win_lock_all: shared
// locks on every target; t -1: any target).
func (w *Windows) Holds(k string, t int, exclusive bool) bool {
	if w.lockAll[k] && exclusive {
		return true
	}
	for target, excl := range w.locks[k] {
		if (t < 0 || target == t) && (excl || exclusive) {
			return true
		}
	}
	return false
}
