// Package tracetest writes rank logs in the layer's record format from Go,
// so that the record reader and the checks can be tested without an MPI.
package tracetest

import (
	"encoding/binary"
	"fmt"

	"mpivet/api"
	"mpivet/trace"
)

// Log builds one rank's log.
type Log struct {
	buf []byte
	// Thread is the number of the thread that writes the records appended
	// from now on (the top byte of their headers).
	Thread uint8
	// vdelta: virtual offset - offset in buf of the next record (Repeat)
	vdelta uint64
}

// Consts are predefined handle values used by tests (Open MPI-like).
var Consts = map[string]uint64{
	"MPI_COMM_WORLD": 0x1000, "MPI_COMM_NULL": 0x1008, "MPI_REQUEST_NULL": 0x2000,
	"MPI_INT": 0x3000, "MPI_DATATYPE_NULL": 0x3008, "MPI_ANY_SOURCE": ^uint64(0) - 1, "MPI_ANY_TAG": ^uint64(0),
	"MPI_PROC_NULL": ^uint64(0), // MPICH's values: -2 and -1
	"MPI_SUM":       0x4000, "MPI_BAND": 0x4008, "MPI_DOUBLE": 0x3010,
}

// New starts a log for a rank, with its process and constants records.
func New(rank, size int) *Log {
	l := &Log{buf: []byte("MPIVET01")}
	host := []byte("testhost")
	w := []uint64{uint64(rank), uint64(size), 100 + uint64(rank), 0, uint64(len(host))}
	var hb [8]byte
	copy(hb[:], host)
	w = append(w, binary.LittleEndian.Uint64(hb[:]))
	l.record(api.KindMeta, api.MetaProcess, w)
	n := len(api.MPI.Consts)
	words := (n + 63) / 64
	consts := make([]uint64, words+n)
	for i, name := range api.MPI.Consts {
		if v, ok := Consts[name]; ok {
			consts[i/64] |= 1 << (i % 64)
			consts[words+i] = v
		}
	}
	l.record(api.KindMeta, api.MetaConstants, consts)
	return l
}

// record appends a record and returns its (virtual) offset.
func (l *Log) record(kind, id int, words []uint64) uint64 {
	off := uint64(len(l.buf))
	h := uint64(8+8*len(words)) | uint64(id)<<32 | uint64(kind)<<48 | uint64(l.Thread)<<56
	l.buf = binary.LittleEndian.AppendUint64(l.buf, h)
	for _, w := range words {
		l.buf = binary.LittleEndian.AppendUint64(l.buf, w)
	}
	return off + l.vdelta
}

// Pos is where the next record goes in the log's bytes (for Repeat).
func (l *Log) Pos() uint64 { return uint64(len(l.buf)) }

// Repeat appends a repeat record (api.KindRepeat), as the layer's fold.c
// writes one: the records written since Pos was from come count more
// times, and part records of one more repetition (which only a repeat
// record that ends the log may say).
func (l *Log) Repeat(from uint64, count, part uint64) {
	le := binary.LittleEndian
	start, end := from, uint64(len(l.buf))
	var virt, records, calls uint64
	for o := start; o < end; {
		h := le.Uint64(l.buf[o:])
		size, kind := h&0xffffffff, int(h>>48&0xff)
		if kind == api.KindRepeat {
			c := le.Uint64(l.buf[o+8+8*api.RepeatCount:]) >> api.RepeatShift
			virt += c * le.Uint64(l.buf[o+8+8*api.RepeatVirtual:])
			records += c * le.Uint64(l.buf[o+8+8*api.RepeatRecords:])
			calls += c * le.Uint64(l.buf[o+8+8*api.RepeatCalls:])
		} else {
			virt, records = virt+size, records+1
			if kind == api.KindEntry || kind == api.KindBrief {
				calls++
			}
		}
		o += size
	}
	l.record(api.KindRepeat, 0, []uint64{end - start, virt, records, calls, count<<api.RepeatShift | part})
	l.vdelta += count*virt - (8 + 8*api.RepeatWords)
	if part > 0 {
		l.vdelta = 1 << 62 // nothing may follow
	}
}

// encode lays out fields from a map of values: uint64 or int for scalars,
// []uint64 for arrays, [2]int64 for a status. Missing fields are zero.
func encode(fs []api.Field, vals map[string]any) []uint64 {
	var w []uint64
	for _, f := range fs {
		v := vals[f.Name]
		switch f.Kind {
		case api.FHandles, api.FInts:
			arr, _ := v.([]uint64)
			w = append(w, uint64(len(arr)))
			w = append(w, arr...)
		case api.FStatus:
			st, _ := v.([2]int64)
			w = append(w, uint64(st[0]), uint64(st[1]))
		default:
			switch x := v.(type) {
			case nil:
				w = append(w, 0)
			case int:
				w = append(w, uint64(int64(x)))
			case uint64:
				w = append(w, x)
			default:
				panic(fmt.Sprintf("field %s: unsupported value %T", f.Name, v))
			}
		}
	}
	return w
}

// Call appends a call at call site pc and returns the offset of its entry
// record. out nil means the call never returned.
func (l *Log) Call(name string, pc uint64, in, out map[string]any) uint64 {
	c := api.MPI.ByName[name]
	if c == nil {
		panic("no call " + name)
	}
	off := l.record(api.KindEntry, c.ID, append([]uint64{pc}, encode(c.In, in)...))
	if out != nil {
		rc, _ := out["rc"].(int)
		l.record(api.KindExit, c.ID, append([]uint64{off, uint64(rc)}, encode(c.Out, out)...))
	}
	return off
}

// Exit appends the exit record of the call whose entry record is at off,
// written by Call with a nil out: a call that returns once other threads'
// records follow its entry.
func (l *Log) Exit(name string, off uint64, out map[string]any) {
	c := api.MPI.ByName[name]
	rc, _ := out["rc"].(int)
	l.record(api.KindExit, c.ID, append([]uint64{off, uint64(rc)}, encode(c.Out, out)...))
}

// CollCall is Call for a collective, with the record of the type
// signatures the rank gave it (api.MetaColl: flags, send signature and
// periods, receive signature and periods) between entry and exit.
func (l *Log) CollCall(name string, pc uint64, in, out map[string]any, data ...uint64) uint64 {
	c := api.MPI.ByName[name]
	if c == nil {
		panic("no call " + name)
	}
	off := l.record(api.KindEntry, c.ID, append([]uint64{pc}, encode(c.In, in)...))
	l.record(api.KindMeta, api.MetaColl, append([]uint64{off}, data...))
	if out != nil {
		rc, _ := out["rc"].(int)
		l.record(api.KindExit, c.ID, append([]uint64{off, uint64(rc)}, encode(c.Out, out)...))
	}
	return off
}

// Buffer appends a buffer-access record (api.MetaBuffer) for the operation
// started by the call whose entry record is at op.
func (l *Log) Buffer(kind int, addr, op uint64, call string, req, other uint64, pcs ...uint64) {
	w := []uint64{uint64(kind), addr, op, uint64(api.MPI.ByName[call].ID), req, other, ^uint64(0), uint64(len(pcs))}
	l.record(api.KindMeta, api.MetaBuffer, append(w, pcs...))
}

// NewComm appends the record of the members (world ranks) of the
// communicator handle that the last call created (api.MetaComm).
func (l *Log) NewComm(handle uint64, world ...int) {
	w := []uint64{handle, 0, uint64(len(world))}
	for _, r := range world {
		w = append(w, uint64(r))
	}
	l.record(api.KindMeta, api.MetaComm, w)
}

// Meta appends a meta record (api.Meta*) of the given words.
func (l *Log) Meta(id int, words ...uint64) {
	l.record(api.KindMeta, id, words)
}

// Unreceived appends the record of a message sent by world rank world
// (rank source of comm) that no receive matched (api.MetaUnreceived).
func (l *Log) Unreceived(world int, source, tag int64, comm, sendPC uint64, bytes int, freed bool) {
	f := uint64(0)
	if freed {
		f = 1
	}
	l.record(api.KindMeta, api.MetaUnreceived, []uint64{uint64(int64(world)), uint64(source), uint64(tag), comm, sendPC, uint64(bytes), f})
}

// Bytes returns the log.
func (l *Log) Bytes() []byte { return l.buf }

// Process decodes the log.
func (l *Log) Process() *trace.Process {
	p, err := trace.Decode(fmt.Sprintf("p.testhost.%d.log", len(l.buf)), l.buf)
	if err != nil {
		panic(err)
	}
	return p
}

// Loop appends n iterations of body to l, folded as the layer folds them:
// period iterations written, repeated, and the rest written out.
func (l *Log) Loop(n, period int, body func(l *Log, i int)) {
	i := 0
	for ; i < min(period, n); i++ {
		body(l, i)
	}
	if reps := (n - i) / period; reps > 0 && period > 0 {
		from := l.Pos()
		for ; i < 2*period; i++ {
			body(l, i)
		}
		l.Repeat(from, uint64(reps-1), 0)
		i = period + reps*period
	}
	for ; i < n; i++ {
		body(l, i)
	}
}
