package trace

import (
	"fmt"
	"mpivet/api"
	"strings"
)

// metaString decodes a string of a meta record: its length, then its bytes.
func metaString(w []uint64) string {
	if len(w) == 0 {
		return ""
	}
	b := make([]byte, 0, len(w)*8)
	for _, x := range w[1:] {
		b = le.AppendUint64(b, x)
	}
	if w[0] < uint64(len(b)) { // (a damaged length may be any word)
		b = b[:w[0]]
	}
	return string(b)
}

// decodeMeta decodes a meta record about the process (api.Meta*) into p.
// Records of kinds it does not know are skipped: an older mpivet reads a
// newer layer's log.
func (p *Process) decodeMeta(id int, w []uint64) {
	if id >= 0 && id < len(metaDecoders) && metaDecoders[id] != nil {
		metaDecoders[id](p, w)
	}
}

// metaDecoders decode the meta records about the process, by id; each
// checks the record's length first (a torn or older record is skipped).
var metaDecoders = [...]func(p *Process, w []uint64){
	api.MetaProcess:   (*Process).metaProcess,
	api.MetaConstants: (*Process).metaConstants,
	api.MetaMaps:      func(p *Process, w []uint64) { p.Maps = append(parseMaps(metaString(w)), p.pySites()...) },
	api.MetaPySite:    (*Process).metaPySite,
	api.MetaSignal:    (*Process).metaSignal,
	api.MetaOverflow: func(p *Process, w []uint64) {
		p.Overflow = true
		if len(w) >= 1 {
			p.WriteErrno = int(w[0])
		}
	},
	api.MetaBuffer:      (*Process).metaBuffer,
	api.MetaDiverged:    (*Process).metaDiverged,
	api.MetaWatch:       (*Process).metaWatch,
	api.MetaClocks:      (*Process).metaClocks,
	api.MetaWildcard:    (*Process).metaWildcard,
	api.MetaMatched:     (*Process).metaMatched,
	api.MetaChoice:      (*Process).metaChoice,
	api.MetaArrival:     (*Process).metaArrival,
	api.MetaTypes:       (*Process).metaTypes,
	api.MetaDeclared:    (*Process).metaDeclared,
	api.MetaUnreceived:  (*Process).metaUnreceived,
	api.MetaLate:        (*Process).metaLate,
	api.MetaHeld:        (*Process).metaHeld,
	api.MetaError:       (*Process).metaError,
	api.MetaArgument:    (*Process).metaArgument,
	api.MetaHeap:        (*Process).metaHeap,
	api.MetaRMA:         (*Process).metaRMA,
	api.MetaThreadLevel: (*Process).metaThreadLevel,
	api.MetaThread:      (*Process).metaThread,
	api.MetaFileError: func(p *Process, w []uint64) {
		if n := len(p.Errors); n > 0 {
			p.Errors[n-1].OnFile, p.Errors[n-1].File = true, metaString(w)
		}
	},
	api.MetaRMAValue: func(p *Process, w []uint64) {
		if len(w) >= 5 {
			p.RMAValues = append(p.RMAValues, RMAValue{Fence: w[0], Origin: int(int64(w[1])), Put: w[2], Off: int64(w[3]), Bytes: int64(w[4])})
		}
	},
	api.MetaDeterminism: func(p *Process, w []uint64) {
		if len(w) >= 8 {
			p.Determinism = &Determinism{Seed: w[0], K: w[1], Wildcards: w[2], Polls: w[3], Relaxed: w[4],
				Control: w[5], Uncovered: w[6], LogicalTime: w[7]}
		}
	},
}

func (p *Process) metaProcess(w []uint64) {
	if len(w) >= 5 {
		p.Rank, p.Size, p.Pid, p.Level = int(int64(w[0])), int(int64(w[1])), int(w[2]), int(int64(w[3]))
		p.Host = metaString(w[4:])
	}
}

// metaConstants: a bitmap of the constants the MPI defines, then their values.
func (p *Process) metaConstants(w []uint64) {
	n := len(api.MPI.Consts)
	words := (n + 63) / 64
	if len(w) < words+n {
		return
	}
	for i, name := range api.MPI.Consts {
		if w[i/64]>>(i%64)&1 == 0 {
			continue
		}
		v := w[words+i]
		p.Consts[v] = append(p.Consts[v], name)
		p.ConstVal[name] = v
	}
}

func (p *Process) metaSignal(w []uint64) {
	if len(w) >= 3 {
		p.Signal = &Signal{Number: int(uint32(w[0])), Thread: w[0] >> 32, PC: w[1], Addr: w[2], Callers: append([]uint64(nil), w[3:]...)}
		if p.Signal.Handled() {
			p.Caught = p.Signal
		}
	}
}

func (p *Process) metaBuffer(w []uint64) {
	if len(w) >= 8 && w[3] < uint64(len(api.MPI.Calls)) && w[7] <= uint64(len(w)-8) {
		a := BufferAccess{Kind: int(w[0]), Addr: w[1], Op: w[2], Call: api.MPI.Calls[w[3]],
			Request: w[4], Other: w[5], Init: w[6], PCs: append([]uint64(nil), w[8:8+w[7]]...)}
		if t := w[8+w[7]:]; len(t) >= 3 { // the thread (older layers wrote none)
			a.Thread = thread(t)
		}
		p.Buffers = append(p.Buffers, a)
	}
}

func (p *Process) metaDiverged(w []uint64) {
	if len(w) < 6 {
		return
	}
	d := &Divergence{Index: w[0], WantPC: w[2], GotPC: w[4], ParentOffset: w[5]}
	if w[1] < uint64(len(api.MPI.Calls)) {
		d.Want = api.MPI.Calls[w[1]]
	}
	if w[3] < uint64(len(api.MPI.Calls)) {
		d.Got = api.MPI.Calls[w[3]]
	}
	p.Diverged = d
}

func (p *Process) metaWatch(w []uint64) {
	if len(w) >= 2 {
		p.Watch = &Watch{Started: w[0], Watched: w[1]}
	}
}

func (p *Process) metaClocks(w []uint64) {
	if len(w) >= 3 {
		p.Clocks = &Clocks{Mode: int(w[0]), World: int(w[1]), Off: metaString(w[2:])}
	}
}

// WildEvent returns p's wildcard event e, or nil.
func (p *Process) WildEvent(e uint64) *Wildcard {
	if e < uint64(len(p.Wild)) && p.Wild[e].Event == e {
		return p.Wild[e]
	}
	if i, ok := p.wildAt[e]; ok {
		return p.Wild[i]
	}
	if p.wildAt == nil && e>>32 != 0 { // events listed by hand, not read from a log
		for _, w := range p.Wild {
			if w.Event == e {
				return w
			}
		}
	}
	return nil
}

func (p *Process) metaWildcard(w []uint64) {
	if len(w) < 8 {
		return
	}
	e := &Wildcard{Event: w[0], Kind: int(w[1]), Comm: w[2], Tag: int64(w[3]), Forced: int64(w[4]),
		Offset: w[5], Quiet: w[6] != 0, PC: w[7], World: -1}
	t := uint32(w[0] >> 32)
	next := p.wild0
	if t != 0 {
		next = p.wildNext[t] | uint64(t)<<32
	}
	if last := p.WildEvent(w[0]); last != nil && w[0]+1 == next && !last.Matched {
		// a forced polling event was logged before it happened, and its
		// number went to another event (the replay diverged)
		*last = *e
		return
	}
	if w[0] != next {
		return
	}
	if t == 0 {
		p.wild0++
	}
	if t == 0 && len(p.wildAt) == 0 {
		p.Wild = append(p.Wild, e)
		return
	}
	if p.wildAt == nil {
		p.wildAt, p.wildNext = map[uint64]int{}, map[uint32]uint64{}
	}
	p.wildAt[w[0]] = len(p.Wild)
	p.Wild = append(p.Wild, e)
	if t != 0 {
		p.wildNext[t]++
	}
}

func (p *Process) metaMatched(w []uint64) {
	if len(w) >= 6 && p.WildEvent(w[0]) != nil {
		e := p.WildEvent(w[0])
		e.Matched, e.Source, e.World, e.MTag, e.Clock, e.Cancelled = w[5] == 0, int64(w[1]), int(int64(w[2])), int64(w[3]), w[4], w[5] != 0
	}
}

func (p *Process) metaChoice(w []uint64) {
	if len(w) < 3 || p.WildEvent(w[0]) == nil || w[1] > uint64(len(w))-3 { // (no sum that a damaged word overflows)
		return
	}
	e, k := p.WildEvent(w[0]), w[1]
	e.Chosen = nil
	for _, i := range w[2 : 2+k] {
		e.Chosen = append(e.Chosen, int64(i))
	}
	rest := w[2+k:]
	if nc := rest[0]; nc <= (uint64(len(rest))-1)/2 {
		for j := uint64(0); j < nc; j++ {
			e.Cands = append(e.Cands, Cand{Index: int64(rest[1+2*j]), Serial: rest[2+2*j]})
		}
	}
}

func (p *Process) metaArrival(w []uint64) {
	if len(w) >= 3 {
		if p.Arrivals == nil {
			p.Arrivals = map[uint64]Arrival{}
		}
		p.Arrivals[w[0]] = Arrival{Clock: w[1], World: int(int64(w[2]))}
	}
}

func (p *Process) metaTypes(w []uint64) {
	if len(w) >= 7 {
		p.Types = append(p.Types, TypeMismatch{SendSig: w[0], RecvSig: w[1], World: int(int64(w[2])), Tag: int64(w[3]),
			SendPC: w[4], RecvPC: w[5], Bytes: int(w[6])})
	}
}

func (p *Process) metaDeclared(w []uint64) {
	if len(w) >= 9 && w[0] < uint64(len(api.MPI.Calls)) {
		p.Declared = append(p.Declared, Declared{Call: api.MPI.Calls[w[0]], Param: int(int64(w[1])), Addr: w[2],
			Count: int64(w[3]), Sig: w[4], Named: w[5] == 1, Type: w[6], PC: w[7], CFA: w[8]})
		d := &p.Declared[len(p.Declared)-1]
		for i := 9; i+1 < len(w); i += 2 {
			d.Callers = append(d.Callers, Frame{PC: w[i], CFA: w[i+1]})
		}
	}
}

func (p *Process) metaUnreceived(w []uint64) {
	if len(w) >= 7 {
		p.Unreceived = append(p.Unreceived, Unreceived{World: int(int64(w[0])), Source: int64(w[1]), Tag: int64(w[2]),
			Comm: w[3], SendPC: w[4], Bytes: int(w[5]), Freed: w[6] == 1})
	}
}

func (p *Process) metaLate(w []uint64) {
	if len(w) >= 8 {
		p.Late = append(p.Late, Late{Source: int64(w[0]), World: int(int64(w[1])), Tag: int64(w[2]), Comm: w[3], Clock: w[4], Before: w[5], Offset: w[6], PC: w[7]})
	}
}

// metaHeld keeps a hold-back as it begins, and marks it released by the
// record that ends it.
func (p *Process) metaHeld(w []uint64) {
	if len(w) < 3 {
		return
	}
	if w[2] != 0 {
		for i := len(p.Holds) - 1; i >= 0; i-- {
			if h := &p.Holds[i]; h.Pos == w[0] && h.Release == w[1] && !h.Released {
				h.Released = true
				return
			}
		}
		return
	}
	p.Holds = append(p.Holds, Hold{Pos: w[0], Release: w[1]})
}

func (p *Process) metaError(w []uint64) {
	if len(w) >= 4 && w[0] < uint64(len(api.MPI.Calls)) {
		p.Errors = append(p.Errors, Error{Call: api.MPI.Calls[w[0]], RC: int64(w[1]), Class: int64(w[2]), PC: w[3], Fatal: len(w) >= 5 && w[4] == 1})
	}
}

func (p *Process) metaArgument(w []uint64) {
	if len(w) < 8 || w[0] >= uint64(len(api.MPI.Calls)) {
		return
	}
	c := api.MPI.Calls[w[0]]
	a := Argument{Call: c, Param: int(int64(w[1])), Rule: int(w[2]), Value: int64(w[3]), Limit: int64(w[4]),
		Other: int(int64(w[5])), OtherValue: int64(w[6]), PC: w[7]}
	if a.Param < 0 || a.Param >= len(c.Params) || a.Other >= len(c.Params) {
		return
	}
	p.Arguments = append(p.Arguments, a)
}

func (p *Process) metaHeap(w []uint64) {
	if len(w) < 12 || w[1] >= uint64(len(api.MPI.Calls)) || w[0] < api.HeapOverrun || w[0] > api.HeapFreeWindow {
		return
	}
	c := api.MPI.Calls[w[1]]
	h := Heap{What: int(w[0]), Call: c, Param: int(int64(w[2])), PC: w[3], Buf: w[4], Lo: w[5], Hi: w[6],
		Start: w[7], Size: w[8], AllocPC: w[9], FreePC: w[10], Other: w[11]}
	if h.Param >= len(c.Params) || h.Param < -2 || (h.Param == -2 && h.What != api.HeapFreePending && h.What != api.HeapFreeWindow) {
		return
	}
	p.Heap = append(p.Heap, h)
}

func (p *Process) metaThreadLevel(w []uint64) {
	n := uint64(len(api.MPI.Calls))
	if len(w) < 9 || w[1] >= n {
		return
	}
	t := ThreadLevel{What: int(w[0]), Call: api.MPI.Calls[w[1]], PC: w[2], Thread: thread(w[3:6]), Inside: int(w[8])}
	if w[6] < n {
		t.Other, t.OtherPC = api.MPI.Calls[w[6]], w[7]
	}
	p.ThreadLevels = append(p.ThreadLevels, t)
}

func (p *Process) metaRMA(w []uint64) {
	if len(w) >= 2 {
		if p.RMA == nil {
			p.RMA = map[uint64][]uint64{}
		}
		// Most operations repeat a few spans (the same datatypes): one
		// copy of each, shared (readers do not change them).
		if p.rmaSpans == nil {
			p.rmaSpans = map[string][]uint64{}
		}
		k := fmt.Sprint(w[1:])
		ws, ok := p.rmaSpans[k]
		if !ok {
			ws = append([]uint64(nil), w[1:]...)
			p.rmaSpans[k] = ws
		}
		p.RMA[w[0]] = ws
	}
}

// parseMaps parses /proc/PID/maps text into its executable mappings.
func parseMaps(s string) []Mapping {
	var ms []Mapping
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			continue
		}
		var m Mapping
		if _, err := fmt.Sscanf(f[0], "%x-%x", &m.Start, &m.End); err != nil {
			continue
		}
		fmt.Sscanf(f[2], "%x", &m.Offset)
		m.Path = strings.Join(f[5:], " ")
		ms = append(ms, m)
	}
	return ms
}

// metaPySite: a Python call site (api.MetaPySite), kept among the maps so
// that every lookup of a call site finds its source line.
func (p *Process) metaPySite(w []uint64) {
	if len(w) < 5 {
		return
	}
	if w[3] > uint64(len(w))*8 { // a damaged length
		return
	}
	site, cpc, line, nfile := w[0], w[1], int(w[2]), int(w[3])
	fw := 1 + (nfile+7)/8
	if len(w) < 4+fw {
		return
	}
	file := metaString(w[3 : 3+fw])
	fn := metaString(w[3+fw:])
	p.Maps = append(p.Maps, Mapping{Start: site - pySiteSpan, End: site + pySiteSpan, Path: file,
		Py: &PySite{File: file, Line: line, Function: fn, CPC: cpc}})
}

// pySiteSpan: a site's mapping covers the site and the byte before it (a
// return address is looked up at the call instruction, one byte before).
const pySiteSpan = 8

// pySites returns the Python call sites among the maps.
func (p *Process) pySites() []Mapping {
	var out []Mapping
	for _, m := range p.Maps {
		if m.Py != nil {
			out = append(out, m)
		}
	}
	return out
}
