package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"mpivet/api"
)

var le = binary.LittleEndian

// ErrNotLog is returned for a file that is not an mpivet log.
var ErrNotLog = errors.New("not an mpivet log")

// ReadLog decodes one rank's log: everything about the process (its meta
// records) and a summary of its calls, not the calls themselves, which
// Process.Calls reads again from the file, one at a time. The file is read
// through a bounded buffer, not mapped: a log is a sparse file much larger
// than its records, may still be growing, and its pages would count in
// mpivet's memory.
func ReadLog(path string) (*Process, error) { return readLog(path, nil) }

// readLog is ReadLog whose reading ends where it is once stop returns true
// (asked every MiB): the process then ends there, as a log that reached
// its size bound does (Overflow), and Cut says so.
func readLog(path string, stop func() bool) (*Process, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() < 8 {
		return nil, fmt.Errorf("%s: %w", path, ErrNotLog)
	}
	return decode(path, f, st.Size(), nil, stop)
}

// Decode decodes a log already in memory (which the process keeps, to read
// its calls from).
func Decode(path string, data []byte) (*Process, error) {
	return decode(path, bytes.NewReader(data), int64(len(data)), data, nil)
}

func decode(path string, r io.ReaderAt, size int64, data []byte, stop func() bool) (p *Process, err error) {
	var magic [8]byte
	if n, _ := r.ReadAt(magic[:], 0); n < 8 || string(magic[:]) != "MPIVET01" {
		return nil, fmt.Errorf("%s: %w", path, ErrNotLog)
	}
	p = &Process{File: path, Rank: -1, Size: -1, Level: -1, Consts: map[uint64][]string{}, ConstVal: map[string]uint64{},
		data: data, pinned: map[uint64]*Call{}}
	base := filepath.Base(path)
	if parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(base, "p."), ".log"), "."); len(parts) >= 2 {
		p.Host = strings.Join(parts[:len(parts)-1], ".")
		fmt.Sscan(parts[len(parts)-1], &p.Pid)
	}
	d := &decoder{p: p, metas: true, only: Unknown}
	// The first reading keeps counts, the last call and what the meta
	// records about the process say: a repetition without such a record
	// changes nothing but the counts.
	d.digest = func() uint64 { return d.metaN }
	d.emit = func(c *Call) bool {
		p.NumCalls++
		if c.Def.Has("init") && c.Returned {
			p.initReturned = true
		}
		if c.Def.Has("abort") {
			p.abort = c
		}
		if c.Def.Has("rma") {
			p.Windows = true
		}
		if c.Def.Has("finalize") {
			p.finalize = c
			if c.Returned {
				p.finalized = c
			}
		}
		p.last = c
		return true
	}
	cur := newCursor(r, 8, uint64(size))
	cur.stop = stop
	cur.sum, cur.crc, cur.summed = true, crc32.Update(0, castagnoli, magic[:]), 8
	end, err := readStoppable(d, cur, p)
	p.NumCalls += d.jumped
	p.End = int64(end)
	cur.addSum()
	p.Sum = cur.crc
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	// The calls the summary keeps are the ones CallAt returns: one object
	// per call, whoever asks.
	for _, c := range []*Call{p.last, p.finalize, p.finalized, p.abort} {
		if c != nil {
			p.pinned[c.Offset] = c
		}
	}
	return p, nil
}

// readStoppable runs d over cur; a stop of the cursor ends the process
// where the reading got to (p.Cut, p.Overflow), not the reading with an
// error.
func readStoppable(d *decoder, cur *cursor, p *Process) (end uint64, err error) {
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(stopped); !ok {
				panic(v)
			}
			p.Cut, p.Overflow = true, true
			end, err = cur.off, nil
			if d.src != nil {
				p.vend = d.src.v
			}
		}
	}()
	return d.run(cur)
}

// A decoder decodes the records of a log in order, and hands its calls to
// emit in the order of their entry records, each once its exit record
// (or the end of the log) is read. It keeps only the calls not handed on
// yet: with one thread calling MPI, the last call or two.
type decoder struct {
	p     *Process
	metas bool   // decode the meta records about the process (the first reading)
	only  uint64 // if not Unknown: decode only the call at this offset (CallAt)
	seq   int    // Seq of the next call
	// nextMark: the first reading notes a checkpoint at the first call
	// read from the log (not from a repetition) from this Seq on.
	nextMark int
	words    []uint64 // the record being decoded; reused, as nothing keeps it
	arrays   arena
	emit     func(*Call) bool // false: stop reading
	// window holds the calls read but not handed on, in order; last is
	// the offset of the latest entry record (a communicator record
	// describes the call it follows).
	window []*Call
	last   uint64
	stop   bool
	src    *expander
	// digest, when set, is the reader's (Process.CallsFolded): whole
	// repetitions that change nothing it keeps are counted, not given
	// (expander.settle); jumped counts the calls they held.
	digest func() uint64
	leave  func(from, to, reps uint64) uint64
	jumped int
	metaN  uint64 // meta records about the process decoded (the first reading)
	// A Waitany-family event of a poll (Testany, Testsome) is logged by
	// the clock protocol while the poll runs, before the poll's own entry
	// record, which the layer appends only once the poll has returned
	// something (layer/src/record/record.h, Polls): the event's Offset is not
	// known to the layer, and is the next entry record's.
	poll *Wildcard
}

// run decodes the records c reads, and returns the end of the last whole
// record.
func (d *decoder) run(c *cursor) (uint64, error) {
	return d.runFrom(newExpander(c, c.off), c)
}

// runFrom is run, reading the records through e (over c).
func (d *decoder) runFrom(e *expander, c *cursor) (uint64, error) {
	d.src = e
	if d.digest != nil {
		e.settle, e.skip = d.settled, d.leave
	}
	var n uint64
	defer func() { d.p.read.Add(n) }()
	for !d.stop {
		off, kind, id, ok := e.next(&d.words)
		if !ok {
			break
		}
		n++
		if e.skipped > 0 {
			d.seq += e.skipped
			if e.skipTo == Unknown {
				d.jumped += e.skipped
			}
			d.moved(e.skipped, e.shift)
			e.skipped, e.shift = 0, 0
		}
		switch kind {
		case api.KindEntry:
			if id >= len(api.MPI.Calls) {
				return c.off, fmt.Errorf("record at %d: unknown call %d (layer and mpivet differ in version?)", off, id)
			}
			d.entry(api.MPI.Calls[id], off, c.thread)
		case api.KindBrief:
			if id < len(api.MPI.Calls) && len(d.words) >= 1 {
				d.brief(api.MPI.Calls[id], off, c.thread)
			}
		case api.KindExit:
			d.exit(off)
		case api.KindMeta:
			d.meta(id, c.thread)
		}
	}
	if c.err != nil {
		return c.off, c.err
	}
	for len(d.window) > 0 && !d.stop {
		d.release()
	}
	if d.metas {
		d.p.vend = e.v
	}
	return c.off, nil
}

// settled returns the reader's digest at the end of a repetition (false:
// a call CallAt gave is not handed on yet, or a poll's event waits for
// its call). The calls not handed on yet (the one a repetition ends in,
// whose exit record the next holds) are the same at the end of each
// repetition: moved moves them to the last.
func (d *decoder) settled() (uint64, bool) {
	for _, c := range d.window {
		if d.isPinned(c) {
			return 0, false
		}
	}
	if d.poll != nil {
		return 0, false
	}
	return d.digest(), true
}

// moved moves the calls not handed on yet past the repetitions left out
// (calls of them, virtual bytes): to their place in the last.
func (d *decoder) moved(calls int, virt uint64) {
	if virt == 0 {
		return
	}
	for _, c := range d.window {
		c.Offset += virt
		c.Seq += calls
	}
	if d.last != Unknown && d.last != 0 {
		d.last += virt
	}
}

// release hands the first call of the window on.
func (d *decoder) release() {
	c := d.window[0]
	d.window[0] = nil
	d.window = d.window[1:]
	if len(d.window) == 0 {
		d.window = d.window[:0:0] // let the array go
	}
	if !d.emit(c) {
		d.stop = true
	}
}

// add puts call c, just read, in the window, and hands on the calls before
// it that have returned.
func (d *decoder) add(c *Call) {
	d.last = c.Offset
	for len(d.window) > 0 && d.window[0].Returned && !d.stop {
		d.release()
	}
	d.window = append(d.window, c)
}

// find returns the call of the window whose entry record is at off.
func (d *decoder) find(off uint64) *Call {
	for i := len(d.window) - 1; i >= 0; i-- {
		if d.window[i].Offset == off {
			return d.window[i]
		}
	}
	return nil
}

// skip reports whether the call at off is not to be decoded (CallAt
// decodes one), and counts it.
func (d *decoder) skip(off uint64) bool {
	if d.only == Unknown || d.only == off {
		return false
	}
	d.seq++
	d.last = off
	if len(d.window) > 0 && d.window[0].Returned {
		d.release() // the call asked for, and a later entry seen
	}
	return true
}

// entry decodes the entry record of a call of kind def at off.
func (d *decoder) entry(def *api.Call, off uint64, thread uint8) {
	if d.poll != nil && def.Poll() {
		d.poll.Offset = off
	}
	d.poll = nil
	if d.skip(off) {
		return
	}
	if c := d.pinned(off); c != nil {
		d.add(c)
		return
	}
	d.mark(off)
	c := &Call{Def: def, Seq: d.seq, Offset: off, Thread: thread}
	d.seq++
	if len(d.words) > 0 {
		c.PC = d.words[0]
		c.in = d.arrays.fields(def.In, d.words[1:])
	}
	d.add(c)
}

// mark notes a checkpoint at the call at off, in the first reading.
func (d *decoder) mark(off uint64) {
	if d.metas && d.seq >= d.nextMark && !d.src.expanding() {
		d.p.marks = append(d.p.marks, mark{off, d.seq, d.src.phys})
		d.nextMark = d.seq + markEvery
	}
}

// pinned returns the object CallAt gave for the call at off, if any: a
// call read again is that object, complete already.
func (d *decoder) pinned(off uint64) *Call {
	if d.only != Unknown {
		return nil
	}
	d.p.mu.Lock()
	c := d.p.pinned[off]
	d.p.mu.Unlock()
	if c != nil {
		d.seq++
	}
	return c
}

// isPinned reports whether c is a call CallAt gave, which is complete and
// may be read by others: the records about it are not decoded again.
func (d *decoder) isPinned(c *Call) bool {
	if d.only != Unknown {
		return false
	}
	d.p.mu.Lock()
	defer d.p.mu.Unlock()
	return d.p.pinned[c.Offset] == c
}

// brief decodes the brief record of a blocking point-to-point call
// (api.Call.Brief): the call site and who matches whom; its other fields
// are unknown. It counts as returned: the rank's last call is the state
// page's (Current), which says whether it did.
func (d *decoder) brief(def *api.Call, off uint64, thread uint8) {
	d.poll = nil
	if d.skip(off) {
		return
	}
	if c := d.pinned(off); c != nil {
		d.add(c)
		return
	}
	w := d.words
	d.mark(off)
	c := &Call{Def: def, Seq: d.seq, Offset: off, PC: w[0], Returned: true, Brief: true, Thread: thread,
		in: d.arrays.fields(def.In, nil), out: unknownOut(def)}
	d.seq++
	k, bf := 1, def.BriefIn()
	for i, f := range def.In {
		if len(bf) > 0 && bf[0].Name == f.Name && k < len(w) {
			c.in[i] = w[k]
			k, bf = k+1, bf[1:]
		}
	}
	d.add(c)
}

// exit decodes an exit record: the entry record's offset, the return
// code, the outputs.
func (d *decoder) exit(off uint64) {
	w := d.words
	if len(w) < 2 {
		return
	}
	if c := d.find(w[0]); c != nil && !c.Returned && !d.isPinned(c) {
		c.Returned, c.RC, c.ExitAt = true, int32(w[1]), off
		c.out = d.arrays.fields(c.Def.Out, w[2:])
	}
}

// meta decodes a meta record (api.Meta*): those that describe a call
// here, the others (in the first reading only) by decodeMeta.
func (d *decoder) meta(id int, thread uint8) {
	p, w := d.p, d.words
	switch {
	case id == api.MetaColl && len(w) >= 6:
		if c := d.find(w[0]); c != nil && !c.Returned && !d.isPinned(c) {
			f := w[1]
			c.more().data = &CollData{Send: f&api.CollSend != 0, Recv: f&api.CollRecv != 0, Totals: f&api.CollTotals != 0, NoCount: f&api.CollNoCount != 0,
				SendSig: w[2], SendN: w[3], RecvSig: w[4], RecvN: w[5]}
		}
	case (id == api.MetaFile && len(w) >= 3) || (id == api.MetaView && len(w) >= 4):
		if c := d.find(w[0]); c != nil && !c.Returned && !d.isPinned(c) {
			if id == api.MetaFile {
				c.more().file = &File{Amode: int64(w[1]), Name: metaString(w[2:])}
			} else {
				c.more().file = &File{View: true, EtypeSig: w[1], EtypeSize: int64(w[2]), Datarep: metaString(w[3:])}
			}
		}
	case id == api.MetaComm:
		if c := d.find(d.last); c != nil && !d.isPinned(c) {
			c.more().comm = decodeComm(w)
		}
	case d.metas:
		if id != api.MetaColl && id != api.MetaFile && id != api.MetaView {
			d.metaN++ // (a signature too short to decode says nothing)
		}
		n := len(p.Buffers)
		p.decodeMeta(id, w)
		if len(p.Buffers) > n { // a buffer access: placed after the latest call
			p.Buffers[n].After = d.last
		}
		if id == api.MetaDiverged && p.Diverged != nil {
			p.Diverged.Thread = thread // written by the thread that diverged
		}
		if id == api.MetaSignal && p.Signal != nil && p.Signal.Thread&api.SignalCalledMPI != 0 {
			p.Signal.ThreadNo = int(thread) // the handler writes it in the thread it interrupted
		}
		if id == api.MetaChoice && len(w) > 0 {
			if e := p.WildEvent(w[0]); e != nil && e.Offset == Unknown {
				d.poll = e
			}
		}
	}
}

// decodeFields decodes the fields fs from the words w of a record.
func decodeFields(fs []api.Field, w []uint64) []uint64 { return (*arena)(nil).fields(fs, w) }

// unknownOuts holds, per call kind, the outputs of a call known only from a
// brief record: all Unknown, shared by its calls (nothing writes them).
var unknownOuts sync.Map // *api.Call → []uint64

func unknownOut(d *api.Call) []uint64 {
	if v, ok := unknownOuts.Load(d); ok {
		return v.([]uint64)
	}
	v, _ := unknownOuts.LoadOrStore(d, decodeFields(d.Out, nil))
	return v.([]uint64)
}

// An arena holds the decoded fields of a log's records: a few large
// allocations instead of one or two small ones per call. A call a reader
// keeps keeps its chunk: they are small (Call.Keep copies a call out).
type arena struct{ free []uint64 }

// arenaWords is the size of an arena's chunks (16 KiB).
const arenaWords = 2048

// alloc returns n words from the arena (a new slice if a is nil).
func (a *arena) alloc(n int) []uint64 {
	if n == 0 {
		return nil
	}
	if a == nil {
		return make([]uint64, n)
	}
	if n > cap(a.free)-len(a.free) {
		a.free = make([]uint64, 0, max(arenaWords, n))
	}
	a.free = a.free[:len(a.free)+n]
	return a.free[len(a.free)-n : len(a.free) : len(a.free)]
}

// fields decodes the fields fs from the words w of a record into the
// compact form of Call (a word per field, then the arrays), kept in a.
// Fields missing from w read as Unknown, arrays as empty.
func (a *arena) fields(fs []api.Field, w []uint64) []uint64 {
	if len(fs) == 0 {
		return nil
	}
	// First pass: the words per field, and how many the arrays take.
	n, k := len(fs), 0
	next := func() uint64 {
		if k < len(w) {
			k++
			return w[k-1]
		}
		return Unknown
	}
	for _, f := range fs {
		switch f.Kind {
		case api.FHandles, api.FInts:
			m := int(next())
			if m < 0 || m > len(w)-k {
				m = 0
			}
			n, k = n+m, k+m
		case api.FStatus:
			next()
			next()
			n += 2
		default:
			next()
		}
	}
	vals := a.alloc(n)
	at := len(fs)
	k = 0
	for i, f := range fs {
		switch f.Kind {
		case api.FHandles, api.FInts:
			m := int(next())
			if m < 0 || m > len(w)-k {
				m = 0
			}
			vals[i] = uint64(m)
			copy(vals[at:], w[k:k+m])
			at, k = at+m, k+m
		case api.FStatus:
			vals[at], vals[at+1] = next(), next()
			vals[i] = vals[at]
			at += 2
		default:
			vals[i] = next()
		}
	}
	return vals
}

func decodeComm(w []uint64) *Comm {
	ranks := func(w []uint64) ([]int, []uint64) {
		if len(w) == 0 || w[0] > uint64(len(w)-1) {
			return nil, nil
		}
		n := int(w[0])
		out := make([]int, n)
		for i := range out {
			out[i] = int(int64(w[1+i]))
		}
		return out, w[1+n:]
	}
	if len(w) < 3 {
		return nil
	}
	c := &Comm{Handle: w[0]}
	rest := w[2:]
	c.World, rest = ranks(rest)
	if w[1] != 0 {
		c.Remote, _ = ranks(rest)
		if c.Remote == nil {
			c.Remote = []int{}
		}
	}
	return c
}
