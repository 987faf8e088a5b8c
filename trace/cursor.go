package trace

import (
	"bytes"
	"hash/crc32"
	"io"
	"iter"
	"os"
	"sort"
)

// A cursor reads the records of a log in order through a buffer of bounded
// size (the largest record, at least bufSize): reading a long run's calls
// takes memory for the calls a reader keeps, not for the log.
type cursor struct {
	stop     func() bool // Run.StopWhen
	r        io.ReaderAt
	buf      []byte
	at       uint64 // log offset of buf[0]
	off, end uint64 // next record; end of what may be read
	err      error
	thread   uint8 // the thread number in the last record's header
	// sum: the CRC32C of the records read so far is kept in crc (the
	// first reading), summed up to offset summed.
	sum    bool
	crc    uint32
	summed uint64
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// addSum adds the records read since the last call, which are in buf, to
// the sum.
func (c *cursor) addSum() {
	if c.sum && c.off > c.summed {
		c.crc = crc32.Update(c.crc, castagnoli, c.buf[c.summed-c.at:c.off-c.at])
		c.summed = c.off
	}
}

const bufSize = 1 << 20

func newCursor(r io.ReaderAt, off, end uint64) *cursor {
	return &cursor{r: r, off: off, end: end, at: off}
}

// have makes buf hold the n bytes at the cursor's offset; false if the log
// ends before.
func (c *cursor) have(n uint64) bool {
	if c.off+n > c.end {
		return false
	}
	if c.off >= c.at && c.off+n <= c.at+uint64(len(c.buf)) {
		return true
	}
	if c.stop != nil && c.stop() {
		panic(stopped{})
	}
	c.addSum()
	size := max(min(bufSize, c.end-c.off), n) // no more than the log holds: a small log is read again for each call asked for (CallAt)
	if uint64(cap(c.buf)) < size {
		c.buf = make([]byte, size)
	}
	c.buf = c.buf[:min(uint64(cap(c.buf)), c.end-c.off)]
	m, err := c.r.ReadAt(c.buf, int64(c.off))
	c.at, c.buf = c.off, c.buf[:m]
	if uint64(m) < n {
		if err != nil && err != io.EOF {
			c.err = err
		}
		return false
	}
	return true
}

// next reads the record at the cursor into words (reused), and returns its
// offset, kind and id. It stops at the end, or at a record that is not
// whole (a rank writes a record's header last).
func (c *cursor) next(words *[]uint64) (off uint64, kind, id int, ok bool) {
	if !c.have(8) {
		return 0, 0, 0, false
	}
	h := le.Uint64(c.buf[c.off-c.at:])
	size := h & 0xffffffff
	if h == 0 || size < 8 || size%8 != 0 || !c.have(size) {
		return 0, 0, 0, false
	}
	b := c.buf[c.off-c.at : c.off-c.at+size]
	w := (*words)[:0]
	for i := uint64(8); i < size; i += 8 {
		w = append(w, le.Uint64(b[i:]))
	}
	*words = w
	off = c.off
	c.off += size
	c.thread = uint8(h >> 56)
	return off, int(h >> 48 & 0xff), int(h >> 32 & 0xffff), true
}

// cursor reads p's log from offset off, stopping as p's run says
// (Run.StopWhen).
func (p *Process) cursor(r io.ReaderAt, off uint64) *cursor {
	c := newCursor(r, off, uint64(p.End))
	c.stop = p.stop
	return c
}

// open returns what the process's log is read from, and how to close it.
func (p *Process) open() (io.ReaderAt, func(), error) {
	if p.data != nil {
		return bytes.NewReader(p.data), func() {}, nil
	}
	f, err := os.Open(p.File)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// Calls returns the rank's logged calls, in the order of their entry
// records, reading them again from its log: each call is decoded as the
// loop reaches it and is garbage once the loop drops it. A reader keeps
// what it needs; memory then grows with what readers keep, not with the
// length of the run. (A rank whose log cannot be read again, removed
// since, has no calls; with several threads calling MPI, a call is handed
// on once the calls before it returned.)
func (p *Process) Calls() iter.Seq[*Call] {
	return func(yield func(*Call) bool) {
		p.decode(&decoder{p: p, only: Unknown, emit: yield})
	}
}

// decode runs d over the rank's log from its start, read again (nothing if
// the log holds no record or cannot be read any more).
func (p *Process) decode(d *decoder) {
	if p.End <= 8 {
		return
	}
	r, done, err := p.open()
	if err != nil {
		return
	}
	defer done()
	d.run(p.cursor(r, 8))
}

// A Folding is a reader of a rank's calls that may leave out the
// repetitions of a folded loop (layer/src/record/fold.c) that change
// nothing it keeps (CallsFolded). The repetitions are the same calls but
// for their offsets and Seq.
type Folding interface {
	// Digest returns a digest of what the reader keeps as it is at the end
	// of a repetition: its sizes, keys and states, not the offsets of
	// calls, nor counts that every repetition adds the same to.
	Digest() uint64
	// Skip says that, a repetition having left the digest as it found it,
	// the reps repetitions after it, at virtual offsets [from, to), are
	// left out: the reader adds to its counts what reps more repetitions
	// like the last add. False: it wants them given (one of them holds a
	// call it must see).
	Skip(from, to uint64, reps int) bool
}

// A PartFolding is a Folding that may leave out fewer of the repetitions
// it is offered: SkipSome returns how many of the reps (the first ones) it
// leaves out, 0 for none; the rest are given, each asked about again.
type PartFolding interface {
	Folding
	SkipSome(from, to uint64, reps int) int
}

// CallsFolded is Calls for a reader that may leave out repetitions (f):
// once a repetition left its digest as it found it, the repetitions
// after it but the last are not given, if it agrees; the calls of the
// last come next, their Seq counting those left out (a call a
// repetition ends in is given as the last's). A reader whose state a
// repetition does not change ends as it would have after all of them,
// but for the offsets of what it keeps of them.
func (p *Process) CallsFolded(f Folding) iter.Seq[*Call] {
	return func(yield func(*Call) bool) {
		leave := func(from, to, reps uint64) uint64 {
			if f.Skip(from, to, int(reps)) {
				return reps
			}
			return 0
		}
		if pf, ok := f.(PartFolding); ok {
			leave = func(from, to, reps uint64) uint64 {
				return uint64(max(0, min(int(reps), pf.SkipSome(from, to, int(reps)))))
			}
		}
		p.decode(&decoder{p: p, only: Unknown, emit: yield, digest: f.Digest, leave: leave})
	}
}

// CallList returns all the rank's logged calls: memory in proportion to
// them, for tests and small runs.
func (p *Process) CallList() []*Call {
	var cs []*Call
	for c := range p.Calls() {
		cs = append(cs, c)
	}
	return cs
}

// CallAt returns the call whose entry record is at log offset off, or nil.
// It is read from the log the first time and kept: the records that point
// at calls (buffer accesses, wildcard events, the state page) are few, and
// every reader then gets the same object.
func (p *Process) CallAt(off uint64) *Call {
	if p == nil || off == Unknown || off < 8 || off >= p.vend {
		return nil
	}
	p.mu.Lock()
	c, ok := p.pinned[off]
	p.mu.Unlock()
	if ok {
		return c
	}
	c = p.readCall(off)
	p.mu.Lock()
	defer p.mu.Unlock()
	if old, ok := p.pinned[off]; ok {
		return old
	}
	if p.pinned == nil {
		p.pinned = map[uint64]*Call{}
	}
	p.pinned[off] = c
	return c
}

// readCall decodes the call at off, with its exit record: the log is read
// from the checkpoint before off (for its Seq) up to that exit record.
func (p *Process) readCall(off uint64) *Call {
	r, done, err := p.open()
	if err != nil {
		return nil
	}
	defer done()
	i := sort.Search(len(p.marks), func(i int) bool { return p.marks[i].off > off })
	from, phys, seq := uint64(8), uint64(8), 0
	if i > 0 {
		from, phys, seq = p.marks[i-1].off, p.marks[i-1].phys, p.marks[i-1].seq
	}
	var found *Call
	d := &decoder{p: p, only: off, seq: seq, emit: func(c *Call) bool { found = c; return false }}
	c := p.cursor(r, phys)
	e := newExpander(c, from)
	e.skipTo = off
	d.runFrom(e, c)
	return found
}

// mark is a checkpoint of the log: the entry record of the seq-th call,
// at virtual offset off, log offset phys (an entry record read from the
// log, not from a repetition).
type mark struct {
	off  uint64
	seq  int
	phys uint64
}

// markEvery is how many calls apart the checkpoints are (16 bytes each).
const markEvery = 4096
