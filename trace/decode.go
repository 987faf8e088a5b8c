package trace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"mpivet/api"
)

var le = binary.LittleEndian

// ErrNotLog is returned for a file that is not an mpivet log.
var ErrNotLog = errors.New("not an mpivet log")

// ReadLog decodes one rank's log. The file is mapped, not read: a log is a
// sparse file much larger than its records, and may still be growing.
func ReadLog(path string) (*Process, error) {
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
	data, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	defer syscall.Munmap(data)
	return Decode(path, data)
}

// Decode decodes a log already in memory.
func Decode(path string, data []byte) (*Process, error) {
	if len(data) < 8 || string(data[:8]) != "MPIVET01" {
		return nil, fmt.Errorf("%s: %w", path, ErrNotLog)
	}
	p := &Process{File: path, Rank: -1, Size: -1, Level: -1, Consts: map[uint64][]string{}, ConstVal: map[string]uint64{}}
	base := filepath.Base(path)
	if parts := strings.Split(strings.TrimSuffix(strings.TrimPrefix(base, "p."), ".log"), "."); len(parts) >= 2 {
		p.Host = strings.Join(parts[:len(parts)-1], ".")
		fmt.Sscan(parts[len(parts)-1], &p.Pid)
	}
	d := &decoder{p: p}
	off := uint64(8)
	defer func() { p.End = int64(off) }()
	for off+8 <= uint64(len(data)) {
		h := le.Uint64(data[off:])
		size, id, kind := h&0xffffffff, int(h>>32&0xffff), int(h>>48&0xff)
		if h == 0 || size < 8 || size%8 != 0 || off+size > uint64(len(data)) {
			break
		}
		d.words = d.words[:0]
		for i := off + 8; i < off+size; i += 8 {
			d.words = append(d.words, le.Uint64(data[i:]))
		}
		switch kind {
		case api.KindEntry:
			if id >= len(api.MPI.Calls) {
				return nil, fmt.Errorf("%s: record at %d: unknown call %d (layer and mpivet differ in version?)", path, off, id)
			}
			d.entry(api.MPI.Calls[id], off)
		case api.KindBrief:
			if id < len(api.MPI.Calls) && len(d.words) >= 1 {
				d.brief(api.MPI.Calls[id], off)
			}
		case api.KindExit:
			d.exit()
		case api.KindMeta:
			d.meta(id)
		}
		off += size
	}
	return p, nil
}

// A decoder decodes the records of one log in order.
type decoder struct {
	p      *Process
	words  []uint64 // the record being decoded; reused, as nothing keeps it
	arrays arena
	// A Waitany-family event of a poll (Testany, Testsome) is logged by
	// the clock protocol while the poll runs, before the poll's own entry
	// record, which the layer appends only once the poll has returned
	// something (layer/src/record/record.h, Polls): the event's Offset is not
	// known to the layer, and is the next entry record's.
	poll *Wildcard
}

// entry decodes the entry record of a call of kind def at off.
func (d *decoder) entry(def *api.Call, off uint64) {
	p := d.p
	c := &Call{Def: def, Seq: len(p.Calls), Offset: off}
	if len(d.words) > 0 {
		c.PC = d.words[0]
		c.in = d.arrays.fields(def.In, d.words[1:])
	}
	p.Calls = append(p.Calls, c)
	if d.poll != nil && def.Poll() {
		d.poll.Offset = off
	}
	d.poll = nil
}

// brief decodes the brief record of a blocking point-to-point call
// (api.Call.Brief): the call site and who matches whom; its other fields
// are unknown. It counts as returned: the rank's last call is the state
// page's (Current), which says whether it did.
func (d *decoder) brief(def *api.Call, off uint64) {
	p, w := d.p, d.words
	c := &Call{Def: def, Seq: len(p.Calls), Offset: off, PC: w[0], Returned: true, Brief: true,
		in: d.arrays.fields(def.In, nil), out: unknownOut(def)}
	k, bf := 1, def.BriefIn()
	for i, f := range def.In {
		if len(bf) > 0 && bf[0].Name == f.Name && k < len(w) {
			c.in[i] = w[k]
			k, bf = k+1, bf[1:]
		}
	}
	p.Calls = append(p.Calls, c)
	d.poll = nil
}

// exit decodes an exit record: the entry record's offset, the return
// code, the outputs.
func (d *decoder) exit() {
	w := d.words
	if len(w) < 2 {
		return
	}
	if c := d.p.CallAt(w[0]); c != nil && !c.Returned {
		c.Returned, c.RC = true, int32(w[1])
		c.out = d.arrays.fields(c.Def.Out, w[2:])
	}
}

// meta decodes a meta record (api.Meta*): those that describe a call
// here, the others by decodeMeta.
func (d *decoder) meta(id int) {
	p, w := d.p, d.words
	switch {
	case id == api.MetaColl && len(w) >= 6:
		if c := p.CallAt(w[0]); c != nil && !c.Returned {
			f := w[1]
			c.more().data = &CollData{Send: f&api.CollSend != 0, Recv: f&api.CollRecv != 0, Totals: f&api.CollTotals != 0, NoCount: f&api.CollNoCount != 0,
				SendSig: w[2], SendN: w[3], RecvSig: w[4], RecvN: w[5]}
		}
	case id == api.MetaComm && len(p.Calls) > 0:
		p.Calls[len(p.Calls)-1].more().comm = decodeComm(w)
	default:
		p.decodeMeta(id, w)
		if id == api.MetaChoice && len(w) > 0 && w[0] < uint64(len(p.Wild)) && p.Wild[w[0]].Offset == Unknown {
			d.poll = p.Wild[w[0]]
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
// allocations instead of one or two small ones per call.
type arena struct{ free []uint64 }

// alloc returns n words from the arena (a new slice if a is nil).
func (a *arena) alloc(n int) []uint64 {
	if n == 0 {
		return nil
	}
	if a == nil {
		return make([]uint64, n)
	}
	if n > cap(a.free)-len(a.free) {
		a.free = make([]uint64, 0, max(1<<14, n))
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
		if len(w) == 0 || int(w[0]) > len(w)-1 {
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
