// Package trace reads the per-rank logs that the interposition layer writes
// (format: layer/src/record/record.h) and the exit records of the rank supervisor, and
// turns them into the calls and process facts the checks consume.
//
// A log may be read while its rank is still running (for timeouts, and later
// for deadlock detection) or after the rank was killed: a record is visible
// only once its header is stored, so the log always ends at a whole record.
package trace

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"

	"mpivet/api"
)

// Unknown is the value the layer records for an output it could not read.
const Unknown = ^uint64(0)

// Value is one decoded field.
type Value struct {
	Word  uint64   // scalar fields
	Words []uint64 // array fields
}

// Call is one MPI call made by a rank, from its entry record and, if the call
// returned, its exit record.
type Call struct {
	Def      *api.Call
	Comm     *Comm  // the communicator the call created, with its members
	Seq      int    // position among this rank's logged calls (-1: known from the state page only)
	Offset   uint64 // of its entry record in the log
	PC       uint64 // call site (return address into the caller)
	In       []Value
	Out      []Value
	Returned bool
	RC       int64
	Data     *CollData // the type signatures a collective was given (C callers only)
	// Brief: known from a brief record (api.Call.Brief), which keeps only
	// the call site and the fields api.Call.BriefIn; the others read as
	// Unknown.
	Brief bool
}

// CollData is what one rank gives a collective, in type signatures
// (layer/src/signatures/signature.c): a side is significant on this rank when its flag
// is set; its count is in periods of its signature, or, for vector variants
// (Totals), summed over the per-rank counts.
type CollData struct {
	Send, Recv       bool
	Totals           bool // counts are sums over the per-rank count arrays
	NoCount          bool // counts are per neighbour: compare signatures only
	SendSig, RecvSig uint64
	SendN, RecvN     uint64
}

// Name is the MPI function name.
func (c *Call) Name() string { return c.Def.Name }

func (c *Call) field(name string) (Value, api.Field, bool) {
	for i, f := range c.Def.In {
		if f.Name == name {
			return c.In[i], f, true
		}
	}
	if c.Returned {
		for i, f := range c.Def.Out {
			if f.Name == name {
				return c.Out[i], f, true
			}
		}
	}
	return Value{}, api.Field{}, false
}

// Word returns the scalar field name (Unknown if absent).
func (c *Call) Word(name string) uint64 {
	v, _, ok := c.field(name)
	if !ok {
		return Unknown
	}
	return v.Word
}

// Int returns the scalar field name as a signed integer.
func (c *Call) Int(name string) int64 { return int64(c.Word(name)) }

// Words returns the array field name.
func (c *Call) Words(name string) []uint64 {
	v, _, _ := c.field(name)
	return v.Words
}

// HasField reports whether the call records field name (for outputs: and returned).
func (c *Call) HasField(name string) bool {
	_, _, ok := c.field(name)
	return ok
}

// Comm is a communicator created at run time: the world ranks of its
// members, in communicator rank order (and of its remote group, for an
// intercommunicator).
type Comm struct {
	Handle uint64
	World  []int
	Remote []int // nil for an intracommunicator
}

// Signal is a crash signal the layer saw in the rank.
type Signal struct {
	Number  int
	PC      uint64   // the interrupted instruction (from the signal's context)
	Addr    uint64   // the faulting address
	Callers []uint64 // return addresses of the frames that called it, innermost first
}

// Error is an error an MPI call returned to the program.
type Error struct {
	Call  *api.Call
	RC    int64
	Class int64 // MPI error class
	PC    uint64
	Fatal bool // raised to MPI_ERRORS_ARE_FATAL: the call did not return, the job ends
}

// BufferAccess is an access the program made to the buffer of a pending
// nonblocking operation, or an operation started on a buffer that overlaps
// a pending one's (Kind api.AccessOverlap).
type BufferAccess struct {
	Kind    int
	Addr    uint64    // the address accessed (overlap: the first shared byte)
	Op      uint64    // log offset of the call that started the operation
	Call    *api.Call // that call
	Request uint64
	Other   uint64   // overlap: log offset of the other operation's start
	Init    uint64   // persistent operation: log offset of its init call (^0 otherwise)
	PCs     []uint64 // the faulting instruction, then the return addresses of its callers
}

// Clocks says how the rank tracked causality (the clock protocol).
// Watch says how many nonblocking operations a rank started and how many
// of them the buffer checker watched: past its cost budget it leaves some of
// those of hot call sites unwatched (layer/src/buffers, watching).
type Watch struct {
	Started, Watched uint64
}

type Clocks struct {
	Mode  int    // 0: off, 1: Lamport clocks, 2: vector clocks
	World int    // the rank in MPI_COMM_WORLD
	Off   string // why the protocol is off, when it is
}

// Wildcard kinds.
const (
	WildRecv  = 1 // a receive with MPI_ANY_SOURCE
	WildProbe = 2 // a probe with MPI_ANY_SOURCE
	WildAny   = 3 // a Waitany, Testany, Waitsome or Testsome over several live requests
)

// Wildcard is a nondeterministic event of one rank: a receive or probe from
// MPI_ANY_SOURCE, or a Waitany-family call choosing among several requests
// (WildAny), numbered in the order the rank started them.
//
// For WildAny, Source is the first index returned, Chosen all of them, Tag
// the length of the request array, and Cands the receives in the array that
// could have been returned instead, if their messages (Process.Arrivals) were
// not sent after the event.
type Wildcard struct {
	Event     uint64
	Kind      int
	Comm      uint64 // the rank's serial number of the communicator
	Tag       int64  // as the program wrote it (may be MPI_ANY_TAG)
	Forced    int64  // the source (index) a guided replay imposed, or MPI_ANY_SOURCE
	Offset    uint64 // log offset of the call that started it (^0: not logged)
	PC        uint64 // its call site
	Quiet     bool   // started between MPI_Pcontrol(0) and MPI_Pcontrol(1): not explored
	Matched   bool
	Cancelled bool
	Source    int64 // matched source, a rank of Comm
	World     int   // its rank in MPI_COMM_WORLD (-1 if unknown)
	MTag      int64 // matched tag
	Clock     uint64
	Chosen    []int64
	Cands     []Cand
}

// Cand is a receive a Waitany-family event did not return: its index in the
// request array, and the rank's serial number of its operation.
type Cand struct {
	Index  int64
	Serial uint64
}

// Arrival is the message a candidate receive took: the sender's clock (its
// component for this rank, with vector clocks) and world rank.
type Arrival struct {
	Clock uint64
	World int
}

// Late is a message that arrived after some of the rank's wildcard events
// had matched, with a clock that does not rule out that it could have matched
// one of them instead (seed 000, Definition 5.1).
type Late struct {
	Source int64
	World  int
	Tag    int64
	Comm   uint64
	Clock  uint64 // the sender's clock (its component for this rank, with vector clocks)
	Before uint64 // wildcard events the rank started before posting the receive that took it
	Offset uint64 // that receive's entry record
	PC     uint64 // the call site of the call that took it
}

// TypeMismatch is a message received with a datatype whose type signature
// differs from the send's (layer/src/signatures/signature.c and api.Sig* define the signature words).
type TypeMismatch struct {
	SendSig, RecvSig uint64
	World            int // the sender's world rank
	Tag              int64
	SendPC           uint64 // the send's call site, in the sender's address space
	RecvPC           uint64 // the receive's call site
	Bytes            int    // size of the message
}

// Divergence is where a guided replay of a rank stopped following the run it
// replays (layer/src/divergence): at its Index-th compared call it made
// Got at GotPC where the parent run made Want at WantPC (an address in the
// parent process). ParentOffset is that call's entry record in the parent's
// log.
type Divergence struct {
	Index        uint64
	Want, Got    *api.Call // nil if the id is unknown
	WantPC       uint64
	GotPC        uint64
	ParentOffset uint64
}

// Unreceived is a message sent to this rank that no receive matched: the
// layer found it waiting when the program could no longer receive it.
type Unreceived struct {
	World  int   // the sender's world rank
	Source int64 // ... its rank in Comm
	Tag    int64
	Comm   uint64 // the communicator, as this rank's handle
	SendPC uint64 // the send's call site, in the sender's address space (0: unknown, without the clock protocol)
	Bytes  int
	Freed  bool // found when the program freed Comm (else at MPI_Finalize)
}

// Mapping is an executable mapping of the process, for symbolisation.
type Mapping struct {
	Start, End, Offset uint64
	Path               string
}

// Process is everything recorded about one rank.
type Process struct {
	File       string // log path
	Host       string
	Pid        int
	Rank       int // -1 until the process initialised MPI
	Size       int
	Level      int // thread support level provided; -1 before MPI is initialised
	Consts     map[uint64][]string
	ConstVal   map[string]uint64
	Maps       []Mapping
	Calls      []*Call
	Signal     *Signal
	Errors     []Error // errors MPI calls returned to the program, or raised to the fatal handler
	Buffers    []BufferAccess
	Watch      *Watch // how many operations the buffer checker watched (nil: none started, or no MPI_Finalize)
	Clocks     *Clocks
	Wild       []*Wildcard // by event number
	Late       []Late
	Arrivals   map[uint64]Arrival // by Cand.Serial
	Types      []TypeMismatch
	Unreceived []Unreceived
	Overflow   bool
	Diverged   *Divergence // a guided replay made another call than its parent run did
	Exit       *Exit       // from the supervisor; nil if it left none (killed)
	Stderr     string      // what the rank wrote on its standard error (first MiB)
	End        int64       // end of the last whole record in the log
	// From the state page: the call the rank's first MPI thread is in, or
	// made last (logged or not); the same for every thread that called MPI
	// (Threads[0] == Current); and how many MPI calls the rank completed.
	Current  *Call
	Threads  []*Call
	Progress uint64
	// Suspended is set by the run driver on a live rank whose process gave
	// no evidence of waiting while the run stalled (stopped, or not
	// scheduled: Held): the call it is in says nothing about whether it
	// can return, so it counts as running.
	Suspended bool
	// Polls counts the polls (api.Call.Poll) the rank's threads made that
	// returned having done nothing: the layer counts them in the state page
	// instead of logging them.
	Polls uint64
}

// Const returns the value of a predefined constant and whether the MPI defines it.
func (p *Process) Const(name string) (uint64, bool) {
	v, ok := p.ConstVal[name]
	return v, ok
}

// CallAt returns the call whose entry record is at log offset off, or nil.
func (p *Process) CallAt(off uint64) *Call {
	i := sort.Search(len(p.Calls), func(i int) bool { return p.Calls[i].Offset >= off })
	if i < len(p.Calls) && p.Calls[i].Offset == off {
		return p.Calls[i]
	}
	return nil
}

// Last returns the last call the rank made (the one it may still be in), or nil.
func (p *Process) Last() *Call {
	if p.Current != nil {
		return p.Current
	}
	if len(p.Calls) == 0 {
		return nil
	}
	return p.Calls[len(p.Calls)-1]
}

// Initialized reports whether the rank initialised MPI (by whatever binding).
func (p *Process) Initialized() bool {
	if p.Level >= 0 {
		return true
	}
	for _, c := range p.Calls {
		if c.Def.Has("init") && c.Returned {
			return true
		}
	}
	return false
}

// Finalized reports whether the rank returned from MPI_Finalize.
func (p *Process) Finalized() bool { return p.finalizeCall(true) != nil }

// FinalizeCall returns the rank's MPI_Finalize call, or nil.
func (p *Process) FinalizeCall() *Call { return p.finalizeCall(false) }

func (p *Process) finalizeCall(returned bool) *Call {
	for i := len(p.Calls) - 1; i >= 0; i-- {
		c := p.Calls[i]
		if c.Def.Has("finalize") && (c.Returned || !returned) {
			return c
		}
	}
	return nil
}

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
	// A Waitany-family event of a poll (Testany, Testsome) is logged by
	// the clock protocol while the poll runs, before the poll's own entry
	// record, which the layer appends only once the poll has returned
	// something (layer/src/record/record.h, Polls): the event's Offset is not
	// known to the layer, and is the next entry record's.
	var poll *Wildcard
	var words []uint64 // the record being decoded; reused, as nothing keeps it
	var arrays arena
	off := uint64(8)
	defer func() { p.End = int64(off) }()
	for off+8 <= uint64(len(data)) {
		h := le.Uint64(data[off:])
		size, id, kind := h&0xffffffff, int(h>>32&0xffff), int(h>>48&0xff)
		if h == 0 || size < 8 || size%8 != 0 || off+size > uint64(len(data)) {
			break
		}
		words = words[:0]
		for i := off + 8; i < off+size; i += 8 {
			words = append(words, le.Uint64(data[i:]))
		}
		switch kind {
		case api.KindEntry:
			if id >= len(api.MPI.Calls) {
				return nil, fmt.Errorf("%s: record at %d: unknown call %d (layer and mpivet differ in version?)", path, off, id)
			}
			c := &Call{Def: api.MPI.Calls[id], Seq: len(p.Calls), Offset: off}
			if len(words) > 0 {
				c.PC = words[0]
				c.In = arrays.fields(c.Def.In, words[1:])
			}
			p.Calls = append(p.Calls, c)
			if poll != nil && c.Def.Poll() {
				poll.Offset = off
			}
			poll = nil
		case api.KindBrief:
			// A blocking point-to-point call (api.Call.Brief): the call
			// site and who matches whom; its other fields are unknown.
			// It counts as returned: the rank's last call is the state
			// page's (Current), which says whether it did.
			if id >= len(api.MPI.Calls) || len(words) < 1 {
				break
			}
			d := api.MPI.Calls[id]
			c := &Call{Def: d, Seq: len(p.Calls), Offset: off, PC: words[0], Returned: true, Brief: true,
				In: decodeFields(d.In, nil), Out: decodeFields(d.Out, nil)}
			k, bf := 1, d.BriefIn()
			for i, f := range d.In {
				if len(bf) > 0 && bf[0].Name == f.Name && k < len(words) {
					c.In[i] = Value{Word: words[k]}
					k, bf = k+1, bf[1:]
				}
			}
			p.Calls = append(p.Calls, c)
			poll = nil
		case api.KindExit:
			if len(words) < 2 {
				break
			}
			if c := p.CallAt(words[0]); c != nil && !c.Returned {
				c.Returned, c.RC = true, int64(words[1])
				c.Out = arrays.fields(c.Def.Out, words[2:])
			}
		case api.KindMeta:
			if id == api.MetaColl && len(words) >= 6 {
				if c := p.CallAt(words[0]); c != nil && !c.Returned {
					f := words[1]
					c.Data = &CollData{Send: f&api.CollSend != 0, Recv: f&api.CollRecv != 0, Totals: f&api.CollTotals != 0, NoCount: f&api.CollNoCount != 0,
						SendSig: words[2], SendN: words[3], RecvSig: words[4], RecvN: words[5]}
				}
				break
			}
			if id == api.MetaComm && len(p.Calls) > 0 {
				p.Calls[len(p.Calls)-1].Comm = decodeComm(words)
				break
			}
			p.decodeMeta(id, words)
			if id == api.MetaChoice && len(words) > 0 && words[0] < uint64(len(p.Wild)) && p.Wild[words[0]].Offset == Unknown {
				poll = p.Wild[words[0]]
			}
		}
		off += size
	}
	return p, nil
}

// decodeFields decodes the fields fs from the words w of a record.
func decodeFields(fs []api.Field, w []uint64) []Value { return (*arena)(nil).fields(fs, w) }

// An arena holds the array values of a log's records: a few large
// allocations instead of one or two small ones per call.
type arena struct{ free []uint64 }

// words returns a copy of ws from the arena (a new slice if a is nil).
func (a *arena) words(ws ...uint64) []uint64 {
	if len(ws) == 0 {
		return nil
	}
	if a == nil {
		return append([]uint64(nil), ws...)
	}
	if len(ws) > cap(a.free)-len(a.free) {
		a.free = make([]uint64, 0, max(1<<12, len(ws)))
	}
	a.free = append(a.free, ws...)
	return a.free[len(a.free)-len(ws) : len(a.free) : len(a.free)]
}

// fields decodes the fields fs from the words w of a record, its arrays
// kept in a.
func (a *arena) fields(fs []api.Field, w []uint64) []Value {
	vals := make([]Value, len(fs))
	k := 0
	next := func() uint64 {
		if k < len(w) {
			k++
			return w[k-1]
		}
		return Unknown
	}
	for i, f := range fs {
		switch f.Kind {
		case api.FHandles, api.FInts:
			n := int(next())
			if n < 0 || n > len(w)-k {
				n = 0
			}
			vals[i].Words = a.words(w[k : k+n]...)
			vals[i].Word = uint64(n)
			k += n
		case api.FStatus:
			vals[i].Words = a.words(next(), next())
			vals[i].Word = vals[i].Words[0]
		default:
			vals[i].Word = next()
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

func metaString(w []uint64) string {
	if len(w) == 0 {
		return ""
	}
	n := int(w[0])
	b := make([]byte, 0, len(w)*8)
	for _, x := range w[1:] {
		b = le.AppendUint64(b, x)
	}
	if n > len(b) {
		n = len(b)
	}
	return string(b[:n])
}

func (p *Process) decodeMeta(id int, w []uint64) {
	switch id {
	case api.MetaProcess:
		if len(w) >= 5 {
			p.Rank, p.Size, p.Pid, p.Level = int(int64(w[0])), int(int64(w[1])), int(w[2]), int(int64(w[3]))
			p.Host = metaString(w[4:])
		}
	case api.MetaConstants:
		// a bitmap of the constants the MPI defines, then their values
		n := len(api.MPI.Consts)
		words := (n + 63) / 64
		if len(w) < words+n {
			break
		}
		for i, name := range api.MPI.Consts {
			if w[i/64]>>(i%64)&1 == 0 {
				continue
			}
			v := w[words+i]
			p.Consts[v] = append(p.Consts[v], name)
			p.ConstVal[name] = v
		}
	case api.MetaMaps:
		p.Maps = parseMaps(metaString(w))
	case api.MetaSignal:
		if len(w) >= 3 {
			p.Signal = &Signal{Number: int(w[0]), PC: w[1], Addr: w[2], Callers: append([]uint64(nil), w[3:]...)}
		}
	case api.MetaOverflow:
		p.Overflow = true
	case api.MetaBuffer:
		if len(w) >= 8 && int(w[3]) < len(api.MPI.Calls) && w[7] <= uint64(len(w)-8) {
			p.Buffers = append(p.Buffers, BufferAccess{Kind: int(w[0]), Addr: w[1], Op: w[2], Call: api.MPI.Calls[w[3]],
				Request: w[4], Other: w[5], Init: w[6], PCs: append([]uint64(nil), w[8:8+w[7]]...)})
		}
	case api.MetaDiverged:
		if len(w) >= 6 {
			d := &Divergence{Index: w[0], WantPC: w[2], GotPC: w[4], ParentOffset: w[5]}
			if w[1] < uint64(len(api.MPI.Calls)) {
				d.Want = api.MPI.Calls[w[1]]
			}
			if w[3] < uint64(len(api.MPI.Calls)) {
				d.Got = api.MPI.Calls[w[3]]
			}
			p.Diverged = d
		}
	case api.MetaWatch:
		if len(w) >= 2 {
			p.Watch = &Watch{Started: w[0], Watched: w[1]}
		}
	case api.MetaClocks:
		if len(w) >= 3 {
			p.Clocks = &Clocks{Mode: int(w[0]), World: int(w[1]), Off: metaString(w[2:])}
		}
	case api.MetaWildcard:
		if n := uint64(len(p.Wild)); len(w) >= 8 && n > 0 && w[0] == n-1 && !p.Wild[n-1].Matched {
			// a forced polling event was logged before it happened, and its
			// number went to another event (the replay diverged)
			p.Wild = p.Wild[:n-1]
		}
		if len(w) >= 8 && w[0] == uint64(len(p.Wild)) {
			p.Wild = append(p.Wild, &Wildcard{Event: w[0], Kind: int(w[1]), Comm: w[2], Tag: int64(w[3]), Forced: int64(w[4]),
				Offset: w[5], Quiet: w[6] != 0, PC: w[7], World: -1})
		}
	case api.MetaMatched:
		if len(w) >= 6 && w[0] < uint64(len(p.Wild)) {
			e := p.Wild[w[0]]
			e.Matched, e.Source, e.World, e.MTag, e.Clock, e.Cancelled = w[5] == 0, int64(w[1]), int(int64(w[2])), int64(w[3]), w[4], w[5] != 0
		}
	case api.MetaChoice:
		if len(w) >= 2 && w[0] < uint64(len(p.Wild)) && uint64(len(w)) >= 3+w[1] {
			e, k := p.Wild[w[0]], w[1]
			e.Chosen = nil
			for _, i := range w[2 : 2+k] {
				e.Chosen = append(e.Chosen, int64(i))
			}
			rest := w[2+k:]
			if nc := rest[0]; uint64(len(rest)) >= 1+2*nc {
				for j := uint64(0); j < nc; j++ {
					e.Cands = append(e.Cands, Cand{Index: int64(rest[1+2*j]), Serial: rest[2+2*j]})
				}
			}
		}
	case api.MetaArrival:
		if len(w) >= 3 {
			if p.Arrivals == nil {
				p.Arrivals = map[uint64]Arrival{}
			}
			p.Arrivals[w[0]] = Arrival{Clock: w[1], World: int(int64(w[2]))}
		}
	case api.MetaTypes:
		if len(w) >= 7 {
			p.Types = append(p.Types, TypeMismatch{SendSig: w[0], RecvSig: w[1], World: int(int64(w[2])), Tag: int64(w[3]),
				SendPC: w[4], RecvPC: w[5], Bytes: int(w[6])})
		}
	case api.MetaUnreceived:
		if len(w) >= 7 {
			p.Unreceived = append(p.Unreceived, Unreceived{World: int(int64(w[0])), Source: int64(w[1]), Tag: int64(w[2]),
				Comm: w[3], SendPC: w[4], Bytes: int(w[5]), Freed: w[6] == 1})
		}
	case api.MetaLate:
		if len(w) >= 8 {
			p.Late = append(p.Late, Late{Source: int64(w[0]), World: int(int64(w[1])), Tag: int64(w[2]), Comm: w[3], Clock: w[4], Before: w[5], Offset: w[6], PC: w[7]})
		}
	case api.MetaError:
		if len(w) >= 4 && int(w[0]) < len(api.MPI.Calls) {
			p.Errors = append(p.Errors, Error{Call: api.MPI.Calls[w[0]], RC: int64(w[1]), Class: int64(w[2]), PC: w[3], Fatal: len(w) >= 5 && w[4] == 1})
		}
	}
}

// readState reads the state page. A slot read while its thread writes it is
// read again; one left half-written by a rank that died is taken as it is.
func (p *Process) readState(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	for slot := 0; slot < api.StateSlots; slot++ {
		c, progress, polls, ok := p.readSlot(f, int64(slot*api.StateWords*8))
		if !ok {
			break
		}
		p.Progress += progress
		p.Polls += polls
		if c != nil {
			p.Threads = append(p.Threads, c)
		}
	}
	if len(p.Threads) > 0 {
		p.Current = p.Threads[0]
	}
}

func (p *Process) readSlot(f *os.File, at int64) (*Call, uint64, uint64, bool) {
	buf := make([]byte, api.StateWords*8)
	var w [api.StateWords]uint64
	for try := 0; try < 100; try++ {
		if n, _ := f.ReadAt(buf, at); n < len(buf) {
			return nil, 0, 0, false
		}
		for i := range w {
			w[i] = le.Uint64(buf[i*8:])
		}
		if w[api.StateSeq]%2 == 0 {
			if n, _ := f.ReadAt(buf[:8], at); n == 8 && le.Uint64(buf) == w[api.StateSeq] {
				break
			}
		}
	}
	status := w[api.StateStatus]
	if status == 0 {
		return nil, 0, 0, false
	}
	var c *Call
	if ref := w[api.StateLogRef]; ref != Unknown {
		c = p.CallAt(ref)
	} else {
		h := w[api.StateRecord]
		size, id := h&0xffffffff, int(h>>32&0xffff)
		n := int(size/8) - 1
		if id < len(api.MPI.Calls) && n >= 1 && api.StateRecord+1+n <= api.StatePolls {
			words := w[api.StateRecord+1 : api.StateRecord+1+n]
			c = &Call{Def: api.MPI.Calls[id], Seq: -1, Offset: Unknown, PC: words[0], In: decodeFields(api.MPI.Calls[id].In, words[1:])}
		}
	}
	if c != nil && status == 2 && !c.Returned {
		c.Returned, c.RC = true, int64(w[api.StateRC])
		c.Out = decodeFields(c.Def.Out, nil)
	}
	return c, w[api.StateProgress], w[api.StatePolls], true
}

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

// Run is everything recorded in one run directory.
type Run struct {
	Dir   string
	Procs []*Process // sorted by rank (processes without a rank last)
}

// Rank returns the process of a world rank, or nil.
func (r *Run) Rank(rank int) *Process {
	for _, p := range r.Procs {
		if p.Rank == rank {
			return p
		}
	}
	return nil
}

// ReadRun reads all logs and exit records of a run directory.
func ReadRun(dir string) (*Run, error) {
	logs, _ := filepath.Glob(filepath.Join(dir, "p.*.log"))
	exits, _ := filepath.Glob(filepath.Join(dir, "p.*.exit"))
	r := &Run{Dir: dir}
	byName := map[string]*Process{}
	// The logs are decoded in parallel, as many at a time as there are
	// processors: after a run, the user waits for this.
	procs, errs := make([]*Process, len(logs)), make([]error, len(logs))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, l := range logs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			p, err := ReadLog(l)
			if errors.Is(err, ErrNotLog) {
				// Killed while its layer was starting: a process with no records.
				p, err = Decode(l, []byte("MPIVET01"))
			}
			procs[i], errs[i] = p, err
		}()
	}
	wg.Wait()
	for i, l := range logs {
		if errs[i] != nil {
			return nil, errs[i]
		}
		r.Procs = append(r.Procs, procs[i])
		byName[strings.TrimSuffix(filepath.Base(l), ".log")] = procs[i]
	}
	for _, p := range r.Procs {
		base := strings.TrimSuffix(p.File, ".log")
		p.readState(base + ".state")
		if b, err := os.ReadFile(base + ".err"); err == nil {
			p.Stderr = string(b)
		}
	}
	for _, e := range exits {
		x, err := ReadExit(e)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(e), ".exit")
		if p := byName[name]; p != nil {
			p.Exit = x
		} else {
			// The process left no log: it never got the layer loaded
			// (exec failed, or not a dynamically linked program).
			r.Procs = append(r.Procs, &Process{File: e, Host: x.Host, Pid: x.Pid, Rank: -1, Size: -1, Level: -1, Exit: x})
		}
	}
	sort.SliceStable(r.Procs, func(i, j int) bool {
		a, b := r.Procs[i], r.Procs[j]
		if (a.Rank < 0) != (b.Rank < 0) {
			return a.Rank >= 0
		}
		if a.Rank != b.Rank {
			return a.Rank < b.Rank
		}
		return a.Pid < b.Pid
	})
	return r, nil
}

// Progress is a cheap look at a live run, from its state pages only: the
// MPI calls completed so far by all ranks, and how many processes are inside
// an MPI call or running outside MPI (finished ones count in neither).
type Progress struct {
	Calls   uint64
	InMPI   int
	Outside int
	// Syncs counts, for each running process on another host (whose pages
	// may be stale here), how often its supervisor wrote them back to the
	// shared run directory.
	Syncs map[string]uint64
}

// SyncedSince reports whether every process of before that still runs has
// written its pages back at least n more times since.
func (pr Progress) SyncedSince(before map[string]uint64, n uint64) bool {
	for k, c := range before {
		if now, ok := pr.Syncs[k]; ok && now < c+n {
			return false
		}
	}
	return true
}

// TestRemote reports whether tests asked (MPIVET_TEST_REMOTE=1) to treat
// every rank as running on another host, so that the write-back protocol
// for shared run directories is exercised on one machine.
func TestRemote() bool { return os.Getenv("MPIVET_TEST_REMOTE") == "1" }

// ReadProgress reads the state pages of a run directory.
func ReadProgress(dir string) Progress {
	var pr Progress
	states, _ := filepath.Glob(filepath.Join(dir, "p.*.state"))
	buf := make([]byte, 8*(api.StateProgress+1))
	host, _ := os.Hostname()
	for _, s := range states {
		remote := !strings.HasPrefix(filepath.Base(s), "p."+host+".") || TestRemote()
		if _, err := os.Stat(strings.TrimSuffix(s, ".state") + ".exit"); err == nil {
			continue // finished
		}
		if remote {
			if pr.Syncs == nil {
				pr.Syncs = map[string]uint64{}
			}
			var c uint64
			if b, err := os.ReadFile(strings.TrimSuffix(s, ".state") + ".sync"); err == nil && len(b) >= 8 {
				c = le.Uint64(b)
			}
			pr.Syncs[s] = c
		}
		f, err := os.Open(s)
		if err != nil {
			continue
		}
		in := false
		for slot := 0; slot < api.StateSlots; slot++ {
			if n, _ := f.ReadAt(buf, int64(slot*api.StateWords*8)); n < len(buf) {
				break
			}
			pr.Calls += le.Uint64(buf[api.StateProgress*8:])
			in = in || le.Uint64(buf[api.StateStatus*8:]) == 1
		}
		f.Close()
		if in {
			pr.InMPI++
		} else {
			pr.Outside++
		}
	}
	return pr
}
