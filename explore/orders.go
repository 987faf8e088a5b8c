package explore

import (
	"encoding/binary"
	"hash/fnv"
	"strings"

	"mpivet/trace"
)

// Completion orders that need no replay.
//
// A Waitany, Waitsome, Testany or Testsome event's alternatives are other
// requests it could have returned (first): receives whose messages had
// arrived, not sent after the event (anyAlts). Their matches are fixed
// already: a receive with a named source has one sender and the MPI's
// non-overtaking order; a wildcard receive among them matched when its
// message arrived, and which message it matched is its own event, whose
// alternatives the search explores as such (its Late messages). So what an
// alternative changes is only the order in which the program learns of
// completions it will learn of anyway, with the same data in the same
// buffers: it can change what the program does next only through what the
// program computes from the order (which index it handles first).
//
// The search therefore replays one other order of such an event and
// compares what its rank does next with what it did in the run the replay
// comes from: the calls after the event, up to the rank's next wildcard
// receive or probe, at most windowCalls of them, each by its name, call site
// (its offset in the page, as the layer's divergence check compares them:
// randomisation moves whole pages) and the arguments that say whom it
// talks to and what (peer, tag, count, root). Completion calls and probes
// are left out: how often a polling loop calls them depends on timing, as
// for the divergence check (layer/src/divergence). If they are the same,
// the other orders of every event of that call site in the same context
// are marked equivalent and not replayed; if not, the order matters there,
// and every order the bounds allow is replayed.
//
// The context of an event is its rank, its call site, the length of its
// request array, and the last contextCalls calls its rank made before it
// (compared as above, but with their tags taken relative to the first tag
// among them): where the rank is in its pattern of communication.
// The iterations of a regular exchange share one context (the calls that
// posted the requests, and those of the iteration before), whatever the
// Waitsome call of the iteration, also where the tags number the
// iterations or steps (tag = it: the same pattern, shifted); the first
// iterations, and any that post other requests, talk to other ranks or
// use tags in another pattern, have contexts of their own, each tested
// with a replay of its own. The window after the event is not part
// of the context: the last iterations of a loop, whose windows reach the
// calls after the loop, are judged with the others.
//
// What this can miss, and what still sees it:
//   - an order that changes only data, never an MPI call in the window
//     (a sum accumulated in another order, rounded differently): no replay
//     can tell such a difference from MPI calls anyway; the program's own
//     checks see it in the orders replayed (an abort, an exit status, a
//     crash is a finding), and the buffer checker (buffer-reuse) watches
//     every access to a pending request's buffer in every run it checks,
//     whatever the order, so an access that depends on the order is seen
//     when the order tried makes it.
//   - an order that makes a difference only past the window (more than
//     windowCalls calls later, or after the next wildcard event, whose own
//     alternatives are explored instead) or only in some of the events of
//     one context (a behaviour that depends on the iteration count, or on
//     data, and on the order together, after the same calls): the replay
//     of one event stands for all of them. --completion-orders=all replays
//     every order the bounds allow.
//   - other orders of the tested event itself: one other order that leads
//     to the same calls stands for all of them (all return the same
//     requests, with the same data, only in another order).
const (
	windowCalls  = 32
	contextCalls = 8
)

// ordersMatter returns the context and window hashes of the reducible
// Waitany-family events of one process: event number -> (context, after).
// An event is reducible unless a wildcard receive the rank started before
// it was still unmatched when it completed (its match, not only its
// completion order, could then depend on the event).
func ordersMatter(p *trace.Process, events map[uint64]bool) map[uint64][2]uint64 {
	if len(events) == 0 {
		return nil
	}
	reducible := map[uint64]bool{}
	started, latest := false, uint64(0) // a wildcard receive started so far, and the largest clock of one (^0: unmatched)
	for _, w := range p.Wild {
		if events[w.Event] && (!started || latest < w.Clock) {
			reducible[w.Event] = true
		}
		if w.Kind == trace.WildRecv {
			c := w.Clock
			if !w.Matched {
				c = ^uint64(0)
			}
			started, latest = true, max(latest, c)
		}
	}
	return windowsOf(p, reducible)
}

// windows hashes, for each event in want, the last contextCalls calls of
// p before it (its context) and the window after it, in one pass over its
// log.
func windows(p *trace.Process, want map[uint64]bool) map[uint64][2]uint64 {
	at := map[uint64]*trace.Wildcard{} // by the offset of the call that started it
	for _, w := range p.Wild {
		if w.Offset != trace.Unknown {
			at[w.Offset] = w
		}
	}
	out := map[uint64][2]uint64{}
	type open struct {
		event uint64
		h     *callHash
		n     int
	}
	var opens []open
	var last [contextCalls]pastCall // the last calls, a ring
	seen := 0
	for c := range p.Calls() {
		if w, ok := at[c.Offset]; ok {
			if w.Kind != trace.WildAny { // the window ends at a wildcard receive or probe
				for _, o := range opens {
					out[o.event] = [2]uint64{out[o.event][0], o.h.sum()}
				}
				opens = opens[:0]
			}
			if want[w.Event] {
				out[w.Event] = [2]uint64{contextSum(last[:], seen), 0}
				opens = append(opens, open{event: w.Event, h: newCallHash()})
			}
			continue
		}
		if !comparable(c) {
			continue
		}
		last[seen%contextCalls] = pastCallOf(c)
		seen++
		kept := opens[:0]
		for _, o := range opens {
			o.h.add(c)
			if o.n++; o.n >= windowCalls {
				out[o.event] = [2]uint64{out[o.event][0], o.h.sum()}
				continue
			}
			kept = append(kept, o)
		}
		opens = kept
	}
	for _, o := range opens { // the log ended
		out[o.event] = [2]uint64{out[o.event][0], o.h.sum()}
	}
	return out
}

// pastCall is a call of a context: its hash without its tags, and its
// tags.
type pastCall struct {
	h    uint64
	tags [len(tagFields)]int64
	has  [len(tagFields)]bool
}

func pastCallOf(c *trace.Call) pastCall {
	one := newCallHash()
	one.addBut(c, true)
	p := pastCall{h: one.sum()}
	for i, f := range tagFields {
		if c.HasField(f) {
			p.tags[i], p.has[i] = c.Int(f), true
		}
	}
	return p
}

// contextSum hashes the last min(seen, len(ring)) calls of ring, oldest
// first, their tags relative to the first tag among them (MPI_ANY_TAG and
// other negative values as they are).
func contextSum(ring []pastCall, seen int) uint64 {
	h := fnv.New64a()
	var b [8]byte
	base, based := int64(0), false
	for i := max(0, seen-len(ring)); i < seen; i++ {
		c := &ring[i%len(ring)]
		binary.LittleEndian.PutUint64(b[:], c.h)
		h.Write(b[:])
		for k, t := range c.tags {
			if !c.has[k] {
				continue
			}
			if t >= 0 && !based {
				base, based = t, true
			}
			if t >= 0 {
				t -= base
			} else {
				t = -1<<40 + t // apart from every relative tag
			}
			binary.LittleEndian.PutUint64(b[:], uint64(t))
			h.Write(b[:])
		}
	}
	return h.Sum64()
}

// after hashes the window of one event of p (the replay's side of the
// comparison); false if the event is not in p's log.
func after(p *trace.Process, event uint64) (uint64, bool) {
	if p == nil || p.WildEvent(event) == nil || p.WildEvent(event).Offset == trace.Unknown {
		return 0, false
	}
	h, ok := windowsOf(p, map[uint64]bool{event: true})[event]
	return h[1], ok
}

// comparable reports whether c is compared: not a completion call or a
// probe, whose number depends on timing.
func comparable(c *trace.Call) bool {
	return c.Def != nil && !c.Def.Has("completion") && !c.Def.Has("probe")
}

// callHash is an FNV-1a hash of calls: name, call site within its page,
// and the arguments that say whom the call talks to and what.
type callHash struct {
	h interface {
		Write([]byte) (int, error)
		Sum64() uint64
	}
}

func newCallHash() *callHash { return &callHash{fnv.New64a()} }

var (
	talkFields = []string{"dest", "source", "tag", "sendtag", "recvtag", "count", "sendcount", "recvcount", "root"}
	tagFields  = [...]string{"tag", "sendtag", "recvtag"}
)

func (h *callHash) add(c *trace.Call) { h.addBut(c, false) }

// addBut adds c, without its tags if noTags.
func (h *callHash) addBut(c *trace.Call, noTags bool) {
	var b [8]byte
	h.h.Write([]byte(c.Def.Name))
	binary.LittleEndian.PutUint64(b[:], c.PC&0xfff)
	h.h.Write(b[:])
	for _, f := range talkFields {
		if noTags && strings.HasSuffix(f, "tag") {
			continue
		}
		if c.HasField(f) {
			binary.LittleEndian.PutUint64(b[:], c.Word(f))
			h.h.Write(b[:])
		}
	}
}

func (h *callHash) sum() uint64 { return h.h.Sum64() }

// contextKey is the context of event w of rank (see above): 0 is never one.
func contextKey(rank int, site string, w *trace.Wildcard, before uint64) uint64 {
	h := fnv.New64a()
	var b [8]byte
	for _, v := range []uint64{uint64(rank), uint64(w.Tag), before} {
		binary.LittleEndian.PutUint64(b[:], v)
		h.Write(b[:])
	}
	h.Write([]byte(site))
	if k := h.Sum64(); k != 0 {
		return k
	}
	return 1
}

// Context states (explorer.equiv).
const (
	untested   = iota
	sameCalls  // an order replayed led to the same calls: the others are not replayed
	otherCalls // it did not: every order is replayed
)

// equivalent reports whether item it need not run: another order of an
// event in its context was replayed and led to the same calls.
func (x *explorer) equivalent(it *item) bool {
	return it.ctx != 0 && x.equiv[it.ctx] == sameCalls
}

// skip leaves out item it as equivalent (reach has counted it reached),
// with what was run ahead for it.
func (x *explorer) skip(it *item) {
	x.equivalents++
	if it.site != nil {
		it.site.Equivalent++
	}
	x.drop(it)
}

// drop forgets item it, left out, with what was run ahead for it.
func (x *explorer) drop(it *item) {
	if t := it.task; t != nil {
		it.task = nil
		if t.finished {
			delete(x.ahead, t)
			if x.o.Parallel.Discard != nil {
				x.o.Parallel.Discard(t.out)
			}
		} else {
			t.orphan = true // discarded when it finishes (wait)
		}
	}
	it.ds, it.b, it.pl = nil, nil, nil
}

// compare tests the context of item it, run as child, if untested: the
// first replay of a checkable other order decides for the context.
func (x *explorer) compare(it *item, child *Interleaving) {
	if it.ctx == 0 || x.equiv[it.ctx] != untested || child.Run == nil || child.Infeasible || child.Diverged || child.TimedOut {
		return
	}
	if x.equiv == nil {
		x.equiv = map[uint64]int8{}
	}
	x.equiv[it.ctx] = otherCalls
	for _, p := range child.Run.Procs {
		if p.Rank == it.rank {
			if h, ok := afterOf(p, it.event); ok && h == it.after {
				x.equiv[it.ctx] = sameCalls
			}
		}
	}
	if x.equiv[it.ctx] == sameCalls {
		x.skipContext(it.ctx)
	}
}

// skipContext leaves out at once the items of context ctx planned so far
// (those planned later are left out when the search reaches them), so that
// what is queued is what is left to run.
func (x *explorer) skipContext(ctx uint64) {
	var empty []*level
	for _, lv := range x.levels {
		for _, it := range lv.items[lv.next:] {
			if !it.reached && it.ctx == ctx {
				x.reach(lv, it)
				x.skip(it)
			}
		}
		if lv.left == 0 {
			empty = append(empty, lv)
		}
	}
	for _, lv := range empty {
		x.over(lv)
	}
}

// afterOf and windowsOf are after and windows; tests of the search,
// whose runs have no logs, give them windows of their own.
var (
	afterOf   = after
	windowsOf = windows
)
