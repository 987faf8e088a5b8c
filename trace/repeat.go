package trace

import (
	"mpivet/api"
)

// An expander reads a log's records in order with its repeat records
// expanded (api.KindRepeat, layer/src/record/fold.c): a repeat record says
// that the records before it came again, some number of times, which the
// layer did not write. The expander gives each record its virtual offset,
// where it would be had nothing been folded (the offsets the layer's
// records point at), and sets the entry offset a repeated exit, MetaColl,
// MetaRMA, MetaFile or MetaView record starts with to its repetition's
// entry. Only the repeated records' bytes are kept (one repetition), never
// the repetitions: memory does not grow with them.
type expander struct {
	c     *cursor
	v     uint64 // virtual offset of the next record
	entry uint64 // virtual offset of the latest entry record
	phys  uint64 // log offset of the latest record read from the log
	// The repeat being expanded: its repeated records' bytes (tmpl, from
	// log offset tbase), the expansions under way (nested repeats inside),
	// and how many records are left to give (-1: all of them).
	tmpl  []byte
	tbase uint64
	stack []frame
	left  int64
	// skipTo, when set (not Unknown), lets whole repetitions that end
	// before it go without giving their records (CallAt); skipped counts
	// the calls they held.
	skipTo  uint64
	skipped int
	given   uint64 // records given from repetitions
	// settle, when set, lets whole repetitions of a repeat not nested in
	// another go without giving their records: at the end of each of its
	// repetitions it returns a digest of what the reader keeps (false:
	// none to give now). Once a repetition left the digest as it found
	// it, the repetitions after it but the last are counted (skipped, as
	// for skipTo), not given.
	settle func() (uint64, bool)
	// skip, when set, is asked before repetitions are counted so: the
	// virtual offsets they span, and how many; it returns how many of
	// them (the first ones) are counted, the others are given.
	skip   func(from, to, reps uint64) uint64
	folded uint64 // repetitions counted so
	shift  uint64 // virtual bytes they held, since the reader last took them (skipped: their calls)
}

// A frame is a repeat being expanded: its template's bytes [start, end),
// the next record's position, the repetitions left (this one included);
// for the outer one, what one repetition holds (virtual bytes, records,
// calls) and the reader's digest at the start of this repetition.
type frame struct {
	start, end, pos, reps uint64
	virt, records, calls  uint64
	digest                uint64
	has                   bool
	tries                 int // digests asked for at its repetitions' ends
}

// maxTries is how many repetitions of a loop a reader is asked about: one
// that every repetition changes (it keeps more each time) is not asked
// again, its digest (which may cost what it keeps) not taken at every
// repetition.
const maxTries = 8

func newExpander(c *cursor, v uint64) *expander {
	return &expander{c: c, v: v, entry: Unknown, left: -1, skipTo: Unknown}
}

// expanding reports whether the latest record came from a repetition (not
// at a log offset of its own).
func (e *expander) expanding() bool { return len(e.stack) > 0 }

// hasRef reports whether a record's first word is its call's entry offset.
func hasRef(kind, id int) bool {
	return kind == api.KindExit || (kind == api.KindMeta &&
		(id == api.MetaColl || id == api.MetaRMA || id == api.MetaFile || id == api.MetaView))
}

// next reads the next record into words, as cursor.next does, and returns
// its virtual offset.
func (e *expander) next(words *[]uint64) (off uint64, kind, id int, ok bool) {
	for {
		if len(e.stack) > 0 {
			if off, kind, id, ok := e.repeated(words); ok {
				return off, kind, id, true
			}
			continue
		}
		off, kind, id, ok = e.c.next(words)
		if !ok {
			return 0, 0, 0, false
		}
		if kind == api.KindRepeat {
			e.open(off, *words)
			continue
		}
		e.phys = off
		off = e.v
		e.v += uint64(8 + 8*len(*words))
		if kind == api.KindEntry {
			e.entry = off
		}
		return off, kind, id, true
	}
}

// open starts expanding the repeat record at log offset off, of words w.
func (e *expander) open(off uint64, w []uint64) {
	if len(w) < api.RepeatWords || w[api.RepeatLen] == 0 || w[api.RepeatLen] > off-8 || w[api.RepeatLen]%8 != 0 {
		return
	}
	n := w[api.RepeatLen]
	count, part := w[api.RepeatCount]>>api.RepeatShift, w[api.RepeatCount]&(1<<api.RepeatShift-1)
	if part > 0 && e.followed() {
		// The layer wrote the unfinished repetition's records out after
		// the repeat record: the count word no longer changes.
		count, part = e.countNow(off)>>api.RepeatShift, 0
	}
	if part >= w[api.RepeatRecords] {
		part = 0
	}
	if e.skipTo != Unknown && count > 0 && w[api.RepeatVirtual] > 0 {
		// Whole repetitions before the call asked for are counted, not read.
		k := min(count, (e.skipTo-min(e.skipTo, e.v))/w[api.RepeatVirtual])
		e.v += k * w[api.RepeatVirtual]
		if e.entry != Unknown {
			e.entry += k * w[api.RepeatVirtual]
		}
		e.skipped += int(k * w[api.RepeatCalls])
		count -= k
	}
	if count == 0 && part == 0 {
		return
	}
	tmpl := make([]byte, n)
	if m, _ := e.c.r.ReadAt(tmpl, int64(off-n)); uint64(m) < n || !consistent(tmpl, w) {
		return
	}
	e.tmpl, e.tbase, e.left = tmpl, off-n, -1
	reps := count
	if part > 0 {
		reps++
		e.left = int64(count*w[api.RepeatRecords] + part)
	}
	e.stack = append(e.stack[:0], frame{start: off - n, end: off, pos: off - n, reps: reps,
		virt: w[api.RepeatVirtual], records: w[api.RepeatRecords], calls: w[api.RepeatCalls]})
	if e.settle != nil {
		// The repeated records were just given from the log: the
		// reader's state after a first repetition.
		f := &e.stack[0]
		f.digest, f.has = e.settle()
	}
}

// settled asks the reader, at the end of a repetition of the outer repeat
// f, whether the repetition changed what it keeps; if not, the ones after
// it but the last are counted, not given: the last is given, so that what
// the reader keeps of the loop's calls has the offsets of its last
// iteration.
func (e *expander) settled(f *frame) {
	if e.settle == nil || len(e.stack) != 1 || f.virt == 0 || f.tries >= maxTries {
		return
	}
	f.tries++
	d, ok := e.settle()
	if !ok {
		f.has = false
		return
	}
	if f.has && d == f.digest && f.reps > 2 {
		e.leave(f, f.reps-2)
	}
	f.digest, f.has = d, true
}

// leave counts, not gives, up to k repetitions of the outer repeat f
// after the one that just ended, as many as the reader agrees to.
func (e *expander) leave(f *frame, k uint64) {
	if e.skip != nil {
		k = min(k, e.skip(e.v, e.v+k*f.virt, k))
	}
	if k > 0 {
		e.v += k * f.virt
		if e.entry != Unknown {
			e.entry += k * f.virt
		}
		e.skipped += int(k * f.calls)
		e.shift += k * f.virt
		if e.left > 0 {
			e.left -= int64(k * f.records)
		}
		f.reps -= k
		e.folded += k
	}
}

// consistent reports whether a repeat record's words w say what its
// repeated records tmpl hold: their virtual bytes, records and calls (a
// damaged log's repeat is not expanded).
func consistent(tmpl []byte, w []uint64) bool {
	var virt, records, calls uint64
	for o := uint64(0); o < uint64(len(tmpl)); {
		h := le.Uint64(tmpl[o:])
		size, kind := h&0xffffffff, int(h>>48&0xff)
		if size < 8 || size%8 != 0 || o+size > uint64(len(tmpl)) {
			return false
		}
		if kind == api.KindRepeat {
			if size != 8+8*api.RepeatWords || le.Uint64(tmpl[o+8:]) > o {
				return false
			}
			c := le.Uint64(tmpl[o+8+8*api.RepeatCount:]) >> api.RepeatShift
			virt += c * le.Uint64(tmpl[o+8+8*api.RepeatVirtual:])
			records += c * le.Uint64(tmpl[o+8+8*api.RepeatRecords:])
			calls += c * le.Uint64(tmpl[o+8+8*api.RepeatCalls:])
		} else {
			virt, records = virt+size, records+1
			if kind == api.KindEntry || kind == api.KindBrief {
				calls++
			}
		}
		o += size
	}
	return virt == w[api.RepeatVirtual] && records == w[api.RepeatRecords] && calls == w[api.RepeatCalls] && calls > 0
}

// followed reports whether a record follows the one just read.
func (e *expander) followed() bool {
	if !e.c.have(8) {
		return false
	}
	return le.Uint64(e.c.buf[e.c.off-e.c.at:]) != 0
}

// countNow reads the count word of the repeat record at off again.
func (e *expander) countNow(off uint64) uint64 {
	var b [8]byte
	if n, _ := e.c.r.ReadAt(b[:], int64(off+8+8*api.RepeatCount)); n < 8 {
		return 0
	}
	return le.Uint64(b[:])
}

// repeated gives the next record of the repeat being expanded; false when
// what it read was no record to give (the end of a repetition, a nested
// repeat).
func (e *expander) repeated(words *[]uint64) (off uint64, kind, id int, ok bool) {
	f := &e.stack[len(e.stack)-1]
	if f.pos+8 > f.end || e.left == 0 {
		if f.reps > 1 && e.left != 0 {
			e.settled(f)
			f.reps--
			f.pos = f.start
		} else if e.left == 0 {
			e.stack = e.stack[:0]
		} else {
			e.stack = e.stack[:len(e.stack)-1]
		}
		return 0, 0, 0, false
	}
	b := e.tmpl[f.pos-e.tbase:]
	h := le.Uint64(b)
	size := h & 0xffffffff
	if h == 0 || size < 8 || size%8 != 0 || f.pos+size > f.end {
		e.stack = e.stack[:0]
		return 0, 0, 0, false
	}
	at := f.pos
	f.pos += size
	w := (*words)[:0]
	for i := uint64(8); i < size; i += 8 {
		w = append(w, le.Uint64(b[i:]))
	}
	*words = w
	kind, id = int(h>>48&0xff), int(h>>32&0xffff)
	if kind == api.KindRepeat {
		if len(w) >= api.RepeatWords && len(e.stack) < 16 {
			n, c := w[api.RepeatLen], w[api.RepeatCount]>>api.RepeatShift
			if c > 0 && n > 0 && n <= at-f.start {
				e.stack = append(e.stack, frame{start: at - n, end: at, pos: at - n, reps: c})
			}
		}
		return 0, 0, 0, false
	}
	if hasRef(kind, id) && len(w) > 0 {
		w[0] = e.entry
	}
	off = e.v
	e.v += size
	if kind == api.KindEntry {
		e.entry = off
	}
	if e.left > 0 {
		e.left--
	}
	if e.given++; e.given%(1<<16) == 0 && e.c.stop != nil && e.c.stop() {
		panic(stopped{}) // as a cursor does every MiB it reads
	}
	return off, kind, id, true
}
