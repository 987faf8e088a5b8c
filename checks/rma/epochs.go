package rma

import (
	"fmt"
	"sort"
	"strings"

	"mpivet/api"
	"mpivet/trace"
)

// epochCall follows a call on a live window: epochs opened and closed,
// accesses made and completed, synchronisations.
func (s *scan) epochCall(cl call, e *epochs) {
	c, p, w := cl.c, cl.p, cl.w(e)
	// Judged from the epochs before the call, whatever the MPI then did:
	// a misuse the MPI aborts or hangs on is found all the same.
	wrong := s.misuse(cl, e)
	if !c.Returned || c.RC != 0 && opens(c.Def) {
		// Blocked in it (or crashed), or an epoch or operation the MPI
		// refused: what it opens or closes did not happen (a refused
		// closing call is taken as closing: its misuse, if any, is
		// reported, and what the MPI then holds open is its own), but a
		// start or post names its peers (a start may wait for a post
		// that never comes).
		switch c.Name() {
		case "MPI_Win_start":
			s.pair(s.starts, cl)
		case "MPI_Win_post":
			s.pair(s.posts, cl)
		}
		return
	}
	if wrong {
		return
	}
	if !isComm(c.Def) {
		e.seen = nil // what the call completes or opens ends the repeats (repeated)
	}
	switch name := c.Name(); name {
	case "MPI_Win_fence":
		e.complete(cl, func(*access) bool { return true })
		e.fenced, e.fenceUsed = !s.assertion(p, c, "MPI_MODE_NOSUCCEED"), false
		e.gen++
		var opening *call
		if fs := w.fences[p.Rank]; len(fs) > 0 {
			opening = fs[len(fs)-1]
		}
		s.closers[[2]uint64{uint64(p.Rank), c.Offset}] = [2]*call{opening, &cl}
		w.fences[p.Rank] = append(w.fences[p.Rank], &cl)
		s.openers[[2]uint64{uint64(p.Rank), c.Offset}] = exposure{w: w, fence: len(w.fences[p.Rank])}
		s.addSync(p, sync{at: cl.idx, kind: syncColl, id: fmt.Sprintf("w:%s#fence%d", w.key, len(w.fences[p.Rank])), members: w.members})
	case "MPI_Win_lock", "MPI_Win_unlock", "MPI_Win_lock_all", "MPI_Win_unlock_all", "MPI_Win_flush", "MPI_Win_flush_all",
		"MPI_Win_flush_local", "MPI_Win_flush_local_all":
		s.passive(cl, e)
	case "MPI_Win_post":
		s.post(cl, e)
	case "MPI_Win_start":
		s.start(cl, e)
	case "MPI_Win_complete":
		e.complete(cl, func(a *access) bool { return !a.lock && has(e.targets, a.target) && a.gen >= 0 })
		s.addSync(p, sync{at: cl.idx, kind: syncComplete, peers: e.targets})
		e.start, e.targets = nil, nil
	case "MPI_Win_wait", "MPI_Win_test":
		if name == "MPI_Win_test" && c.Int("flag") == 0 {
			return
		}
		s.addSync(p, sync{at: cl.idx, kind: syncWait, peers: e.origins})
		s.closers[[2]uint64{uint64(p.Rank), c.Offset}] = [2]*call{e.post, &cl}
		e.post, e.origins = nil, nil
	default:
		if isComm(c.Def) {
			s.communicate(cl, e)
		}
	}
}

// opens reports whether d opens an epoch or starts an operation.
func opens(d *api.Call) bool {
	switch d.Name {
	case "MPI_Win_lock", "MPI_Win_lock_all", "MPI_Win_start", "MPI_Win_post":
		return true
	}
	return isComm(d)
}

// passive follows the calls of passive-target epochs: locks, unlocks and
// flushes.
func (s *scan) passive(cl call, e *epochs) {
	c, p, w := cl.c, cl.p, e.w
	target := func() int { return w.worldOf(c.Int("rank")) }
	switch name := c.Name(); name {
	case "MPI_Win_lock":
		t := target()
		l, _ := p.Const("MPI_LOCK_EXCLUSIVE")
		e.locks[t], e.excl[t] = &cl, uint64(c.Int("lock_type")) == l
	case "MPI_Win_unlock":
		t := target()
		e.complete(cl, func(a *access) bool { return a.target == t && a.lock && e.lockAll == nil })
		delete(e.locks, t)
		delete(e.excl, t)
	case "MPI_Win_lock_all":
		e.lockAll = &cl
	case "MPI_Win_unlock_all":
		e.complete(cl, func(a *access) bool { return a.lock && e.locks[a.target] == nil })
		e.lockAll = nil
	case "MPI_Win_flush", "MPI_Win_flush_all":
		all := name == "MPI_Win_flush_all"
		t := -1
		if !all {
			t = target()
		}
		e.complete(cl, func(a *access) bool { return a.lock && (all || a.target == t) })
	case "MPI_Win_flush_local", "MPI_Win_flush_local_all":
		// complete at the origin only: at the target too for the
		// operations whose result it delivers (origin.go)
		all := name == "MPI_Win_flush_local_all"
		t := -1
		if !all {
			t = target()
		}
		e.complete(cl, func(a *access) bool { return a.lock && (all || a.target == t) && fetches(a.c.Name()) })
	}
}

// fetches reports whether an operation delivers a result read at the target.
func fetches(name string) bool {
	switch name {
	case "MPI_Get", "MPI_Rget", "MPI_Get_accumulate", "MPI_Rget_accumulate", "MPI_Fetch_and_op", "MPI_Compare_and_swap":
		return true
	}
	return false
}

// w is the window of the epochs (a method for symmetry of reading).
func (cl call) w(e *epochs) *window { return e.w }

// assertion reports whether the call's assertion has the named bit.
func (s *scan) assertion(p *trace.Process, c *trace.Call, name string) bool {
	v, ok := p.Const(name)
	return ok && v != 0 && uint64(c.Int("assertion"))&v != 0
}

func (s *scan) post(cl call, e *epochs) {
	e.post, e.origins = &cl, group(cl)
	s.openers[[2]uint64{uint64(cl.p.Rank), cl.c.Offset}] = exposure{w: e.w, post: &cl}
	s.pair(s.posts, cl)
	s.addSync(cl.p, sync{at: cl.idx, kind: syncPost, peers: e.origins})
}

func (s *scan) start(cl call, e *epochs) {
	e.start, e.targets = &cl, group(cl)
	s.pair(s.starts, cl)
	s.addSync(cl.p, sync{at: cl.idx, kind: syncStart, peers: e.targets})
}

// pair notes a post or start for each rank of its group.
func (s *scan) pair(m map[[2]int][]*call, cl call) {
	for _, q := range group(cl) {
		k := [2]int{cl.p.Rank, q}
		m[k] = append(m[k], &cl)
	}
}

// complete marks the pending accesses that match as completed by cl.
func (e *epochs) complete(cl call, match func(*access) bool) {
	kept := e.pending[:0]
	for _, a := range e.pending {
		if match(a) {
			a.done, a.doneAt = &cl, e.gen
		} else {
			kept = append(kept, a)
		}
	}
	for i := len(kept); i < len(e.pending); i++ {
		e.pending[i] = nil
	}
	e.pending = kept
}

// communicate follows a one-sided operation: is it in an epoch, and what
// does it touch.
func (s *scan) communicate(cl call, e *epochs) {
	c, p, w := cl.c, cl.p, e.w
	if null, ok := p.Const("MPI_PROC_NULL"); ok && c.Int("target_rank") == int64(null) {
		return
	}
	t := w.worldOf(c.Int("target_rank"))
	if t < 0 {
		return // out of range: the MPI says so (mpi-error)
	}
	a := &access{call: cl, w: w, origin: p.Rank, target: t, gen: e.gen, doneAt: maxInt}
	switch {
	case e.locks[t] != nil:
		a.lock, a.excl = true, e.excl[t]
	case e.lockAll != nil:
		a.lock = true
	case e.start != nil && has(e.targets, t):
		a.start = e.start
	default: // e.fenced: misuse said so
		a.fence = len(w.fences[p.Rank])
		e.fenceUsed = true
	}
	if s.repeated(e, a) {
		return
	}
	if n := c.Name(); (n == "MPI_Rget" || n == "MPI_Rget_accumulate") && c.Returned {
		s.rgets[[2]uint64{uint64(p.Rank), c.Word("request")}] = a
	}
	e.pending = append(e.pending, a)
	s.accesses = append(s.accesses, a)
	s.addSync(p, sync{at: cl.idx, kind: syncAccess, access: a})
}

// free follows MPI_Win_free: every epoch must be closed, every operation
// completed.
func (s *scan) free(cl call, e *epochs) {
	e.w.freed[cl.p.Rank] = true
	whats, where := openEpochs(e)
	for i, what := range whats {
		s.report(fmt.Sprintf("window freed while %s is still open", what), cl, "MPI_Win_free called here", s.loc(where[i], "epoch opened here"))
	}
	if len(whats) == 0 && len(e.pending) > 0 {
		a := e.pending[0]
		s.report(fmt.Sprintf("window freed with %s, no MPI_Win_fence completed it", plural(len(e.pending), a.c.Name())), cl, "MPI_Win_free called here", s.loc(&a.call, "operation started here"))
	}
	s.addSync(cl.p, sync{at: cl.idx, kind: syncColl, id: "w:" + e.w.key + "#free", members: e.w.members})
}

func plural(n int, name string) string {
	if n == 1 {
		return "an operation of " + name + " that"
	}
	return fmt.Sprintf("%d operations (the first of %s) that", n, name)
}

// finalize reports the epochs still open on windows never freed.
func (s *scan) finalize(cl call, open []*epochs) {
	for _, e := range open {
		whats, where := openEpochs(e)
		for i, what := range whats {
			s.report(fmt.Sprintf("%s is never closed before MPI_Finalize", upper(what)), *where[i], "epoch opened here", s.loc(&cl, "MPI_Finalize called with the epoch open"))
		}
	}
}

// hang reports the epochs still open on a rank whose records end without
// MPI_Finalize: a lock never released or an access epoch never completed
// keeps other ranks waiting, which is how a run hangs on them.
func (s *scan) hang(p *trace.Process, open []*epochs) {
	last := p.Last()
	if last == nil || !(s.pass.In.TimedOut || s.pass.In.Stalled) {
		return // it crashed, or another rank did: program-failure says so
	}
	if s.pass.In.Interrupted || p.Overflow {
		return // stopped by its user or budget, or its records end before it did: not a hang
	}
	for _, e := range open {
		whats, where := openEpochs(e)
		for i, what := range whats {
			if !last.Returned && last.HasField("win") && last.Word("win") == e.handle && closes(last.Name(), where[i].c.Name()) {
				continue // waiting for others to let it close the epoch: they are the cause
			}
			if !last.Returned && last.HasField("win") && last.Word("win") == e.handle && relocks(last, where[i].c) {
				continue // blocked taking the lock again: reported at that call
			}
			msg := fmt.Sprintf("%s is never closed", upper(what))
			if !last.Returned {
				msg += fmt.Sprintf(": rank %d is blocked in %s with the epoch open", p.Rank, last.Name())
			}
			s.report(msg, *where[i], "epoch opened here", s.loc(&call{p, last, -1}, "the rank's last MPI call"))
		}
	}
}

// relocks reports whether call takes again the lock opener took.
func relocks(call, opener *trace.Call) bool {
	return call.Name() == "MPI_Win_lock" && opener.Name() == "MPI_Win_lock" && call.Int("rank") == opener.Int("rank")
}

// closes reports whether call closes the epochs opener opens.
func closes(call, opener string) bool {
	return map[string]string{"MPI_Win_lock": "MPI_Win_unlock", "MPI_Win_lock_all": "MPI_Win_unlock_all",
		"MPI_Win_start": "MPI_Win_complete", "MPI_Win_post": "MPI_Win_wait"}[opener] == call
}

func upper(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// mismatches reports fences called a different number of times by the
// members of a window, and PSCW groups that do not name each other.
func (s *scan) mismatches() {
	for _, w := range s.order {
		counts, same := map[int]int{}, true
		var ranks []int
		for r := range w.created {
			if !w.freed[r] {
				same = false // ended before freeing it: the run says why
			}
			counts[r] = len(w.fences[r])
			ranks = append(ranks, r)
		}
		sort.Ints(ranks)
		for _, r := range ranks {
			if same && counts[r] != counts[ranks[0]] {
				var parts []string
				for _, q := range ranks {
					parts = append(parts, fmt.Sprintf("rank %d %d times", q, counts[q]))
				}
				cl := w.created[r]
				s.report(fmt.Sprintf("the members of the window call MPI_Win_fence a different number of times (%s)", strings.Join(parts, ", ")), *cl, "window created here")
				break
			}
		}
	}
	s.pscwMismatch(s.starts, s.posts, "MPI_Win_start", "MPI_Win_post", "a target", "an origin")
	s.pscwMismatch(s.posts, s.starts, "MPI_Win_post", "MPI_Win_start", "an origin", "a target")
}

// pscwMismatch reports the calls of one side (mine, keyed (me, peer)) that
// no call of the other side (theirs, keyed (peer, me)) answers.
func (s *scan) pscwMismatch(mine, theirs map[[2]int][]*call, my, their, peerRole, meRole string) {
	var keys [][2]int
	for k := range mine {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i][0] < keys[j][0] || keys[i][0] == keys[j][0] && keys[i][1] < keys[j][1]
	})
	for _, k := range keys {
		if s.procs[k[1]] == nil {
			continue
		}
		n := len(theirs[[2]int{k[1], k[0]}])
		if cs := mine[k]; len(cs) > n {
			s.report(fmt.Sprintf("%s names rank %d as %s, but rank %d's %s does not name rank %d as %s (%d against %d)",
				my, k[1], peerRole, k[1], their, k[0], meRole, len(cs), n), *cs[n], "called here")
		}
	}
}
