// Package api is mpivet's description of the MPI API: which calls the
// interposition layer wraps, what each of their parameters means to a check,
// and how the layer lays out the records it writes for them.
//
// The description lives in mpi.api (embedded). The generator in internal/gen
// turns it into the C and Fortran wrappers of the layer; the trace package
// uses the same description to decode records. Keeping both on one table is
// what guarantees that the C writer and the Go reader agree: call IDs are the
// line order of the calls, and field layouts are derived here, once.
package api

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"
)

//go:embed mpi.api
var source string

// Role says what a parameter means to the record.
type Role int

const (
	Value   Role = iota // a value (int, MPI_Aint, handle) or an address, kept on entry
	Ignore              // not kept
	New                 // T* output handle created by the call (exit)
	Free                // T* handle released by the call (read on entry)
	Inout               // T* handle read on entry and again on exit (field NAME_out)
	Reqs                // request array of Len elements, read on entry and on exit (NAME_out)
	Out                 // int* output (exit)
	Index               // int* output index; 1-based in Fortran (exit)
	Indices             // int[] output of *Len indices; 1-based in Fortran (exit)
	Status              // MPI_Status* output: source, tag (exit)
	News                // T[] output array of up to Len handles created by the call (exit, NAME)
)

var roleNames = map[string]Role{"": Value, "ignore": Ignore, "new": New, "free": Free,
	"inout": Inout, "reqs": Reqs, "out": Out, "index": Index, "indices": Indices, "status": Status, "news": News}

// HandleKind is the kind of MPI object a handle refers to ("" for none).
type HandleKind string

// handleTypes maps MPI handle C types to their kind.
var handleTypes = map[string]HandleKind{
	"MPI_Comm": "comm", "MPI_Group": "group", "MPI_Datatype": "datatype", "MPI_Op": "op",
	"MPI_Request": "request", "MPI_Info": "info", "MPI_Errhandler": "errhandler", "MPI_Message": "message",
	"MPI_Win": "win", "MPI_File": "file",
}

// HandleTypes returns the C handle type of each handle kind.
func HandleTypes() map[HandleKind]string {
	m := map[HandleKind]string{}
	for t, k := range handleTypes {
		m[k] = t
	}
	return m
}

// Param is one parameter of a call.
type Param struct {
	Decl   string     // the C declaration as written, without the role
	Name   string     // parameter name
	Base   string     // base type without const, pointers and arrays, e.g. "MPI_Request"
	Ptrs   int        // number of '*'
	Array  bool       // declared with []
	Role   Role       // what the record keeps
	Len    string     // for Reqs and Indices: the parameter holding the length
	Handle HandleKind // kind of handle for handle types
}

// IsBuffer reports whether the parameter is a choice buffer (void*), which
// Fortran 2008 bindings pass as a descriptor in some MPIs.
// (The baseptr of MPI_Win_allocate and the buffer_addr of
// MPI_Buffer_detach are not: they are where the call stores an address, an
// address-sized integer or a TYPE(C_PTR) in Fortran, whose mpi_f08 bindings
// are then *_f08_, not *_f08ts_.)
func (p Param) IsBuffer() bool {
	return p.Base == "void" && p.Ptrs == 1 && !p.Array && p.Name != "baseptr" && p.Name != "buffer_addr"
}

// IsString reports whether the parameter is a C string (const char *: a
// file name, a data representation), a CHARACTER in Fortran, whose length
// the Fortran compiler passes as a hidden argument after the others.
func (p Param) IsString() bool { return p.Base == "char" && p.Ptrs == 1 && !p.Array }

// FieldKind is how a recorded field is encoded.
type FieldKind int

const (
	FInt     FieldKind = iota // one word, a signed integer
	FHandle                   // one word, a handle value
	FAddr                     // one word, an address
	FHandles                  // a length word, then that many handle words
	FInts                     // a length word, then that many signed integer words
	FStatus                   // two words: source, tag (-1 if unknown)
)

// Field is one recorded field of an entry or exit record.
type Field struct {
	Name   string
	Kind   FieldKind
	Handle HandleKind
	Param  int // index into Call.Params
}

// Call is one wrapped MPI call.
type Call struct {
	ID     int
	Name   string // e.g. "MPI_Isend"
	Params []Param
	Tags   map[string]bool
	Sync   string  // the synchronous-mode call that replaces this standard-mode send under zero buffering
	In     []Field // entry record fields (after the call-site word)
	Out    []Field // exit record fields (after the entry-offset and return-code words)
	brief  []Field // BriefIn
	// Large lists the parameters that the call's MPI 4.0 large-count twin
	// (NAME_c) declares wider ("large" lines of mpi.api): the twin has the
	// same call ID, records and checks as the call itself.
	Large []LargeParam
	// FortranNames are other names of the call's mpif.h and `use mpi`
	// bindings ("fortran-name" lines of mpi.api): procedures with the
	// call's Fortran arguments, one of them declared otherwise
	// (MPI_Win_allocate_cptr: baseptr a TYPE(C_PTR), an address-sized word
	// passed by reference as the INTEGER(KIND=MPI_ADDRESS_KIND) is).
	FortranNames []string
}

// LargeParam is a parameter of a call that its large-count twin declares
// with another (wider) type: MPI_Count counts, MPI_Aint displacement units.
type LargeParam struct {
	Name string // the parameter
	Type string // its type in the twin (of an array's elements, a pointer's target)
	Len  string // an array's length, when a parameter gives it (NAME[LEN])
}

// LargeName is the name of the call's large-count twin, "" if it has none.
func (c *Call) LargeName() string {
	if len(c.Large) == 0 {
		return ""
	}
	return c.Name + "_c"
}

// FortranLarge reports whether the Fortran wrappers cover c's large-count
// twin (the mpi_f08 *_large_ bindings): one whose wide parameters are
// scalars or arrays (INTEGER(KIND=MPI_COUNT_KIND) ... arrays, passed by
// reference as the C twin's). The twins that widen pointers
// (MPI_Buffer_detach_c's size) are wrapped in C only.
func (c *Call) FortranLarge() bool {
	for _, l := range c.Large {
		if i := c.Param(l.Name); i >= 0 && c.Params[i].Ptrs > 0 {
			return false
		}
	}
	return len(c.Large) > 0
}

// LargeType is the type of parameter p in the large-count twin: its own
// type if the twin does not widen it.
func (c *Call) LargeType(p Param) string {
	for _, l := range c.Large {
		if l.Name == p.Name {
			return l.Type
		}
	}
	return ""
}

// Has reports whether the call carries the tag.
func (c *Call) Has(tag string) bool { return c.Tags[tag] }

// Logged reports whether the layer appends the call to the rank's log. The
// log keeps the history the checks need: calls that create, free, start or
// complete MPI objects, collectives (whose order across ranks is checked),
// and the start and end of MPI. Every other call only updates the rank's
// state page, which always shows the current or last call (keeping every
// message in the log cost a ping-pong a third of its latency in page
// faults); of a Brief call the log keeps a brief record; polls that did
// nothing are counted in the state page (Poll).
func (c *Call) Logged() bool {
	for _, p := range c.Params {
		switch p.Role {
		case New, Free, Inout, Reqs, Indices, News:
			return true
		}
	}
	for _, t := range []string{"init", "finalize", "abort", "pcontrol", "completion", "start", "coll", "rma", "fcoll", "begin", "end"} {
		if c.Tags[t] {
			return true
		}
	}
	return false
}

// Brief reports whether the layer appends a brief record of the call
// (KindBrief) to the log while its whole entry record goes to the state
// page: the blocking point-to-point calls that are not Logged. Each is a
// match, which the offline zero-buffering replay (package checks/zerobuf)
// needs in order with the logged calls; the brief record keeps just the
// call site and BriefIn, a third of the whole record, and no exit record.
func (c *Call) Brief() bool {
	return c.Tags["p2p"] && c.Tags["blocking"] && !c.Logged()
}

// BriefIn are the fields of a brief record, after the call-site word: the
// scalar In fields that say who matches whom (peers, tags, communicator).
// (With each field's index in In.)
func (c *Call) BriefIn() []Field { return c.brief }

func briefIn(c *Call) []Field {
	var fs []Field
	for _, f := range c.In {
		switch f.Name {
		case "dest", "source", "tag", "sendtag", "recvtag", "comm":
			fs = append(fs, f)
		}
	}
	return fs
}

// Poll reports whether the call is a poll: a nonblocking Test or probe that
// may return having done nothing (flag false, or no request completed). The
// layer counts such a return in the state page instead of logging it: a
// program that polls a million times between two messages would otherwise
// fill its log with records that say nothing. What a poll that
// does something returns is logged as for any other call.
func (c *Call) Poll() bool {
	if c.Has("blocking") || !(c.Has("completion") || c.Has("probe") || c.Name == "MPI_Win_test") {
		return false
	}
	for _, f := range c.Out {
		if f.Name == "flag" || f.Name == "outcount" {
			return true
		}
	}
	return false
}

// Param returns the index of the named parameter, or -1.
func (c *Call) Param(name string) int {
	for i, p := range c.Params {
		if p.Name == name {
			return i
		}
	}
	return -1
}

// API is the parsed description.
type API struct {
	Calls  []*Call
	ByName map[string]*Call
	Consts []string // predefined handles and constants, in record order
}

var declRE = regexp.MustCompile(`^(.*?)\b([A-Za-z_][A-Za-z0-9_]*)\s*((?:\[[0-9]*\])*)$`)
var roleRE = regexp.MustCompile(`^([a-z]+)(?:\(([A-Za-z_0-9]+)\))?$`)

// Parse parses a description in the mpi.api format.
func Parse(text string) (*API, error) {
	a := &API{ByName: map[string]*Call{}}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "const ") {
			a.Consts = append(a.Consts, strings.Fields(line)[1:]...)
			continue
		}
		if strings.HasPrefix(line, "fortran-name ") {
			if err := a.parseFortranName(strings.Fields(line)[1:]); err != nil {
				return nil, fmt.Errorf("mpi.api:%d: %v", n+1, err)
			}
			continue
		}
		if strings.HasPrefix(line, "large ") {
			if err := a.parseLarge(strings.Fields(line)[1:]); err != nil {
				return nil, fmt.Errorf("mpi.api:%d: %v", n+1, err)
			}
			continue
		}
		c, err := parseCall(line)
		if err != nil {
			return nil, fmt.Errorf("mpi.api:%d: %v", n+1, err)
		}
		if a.ByName[c.Name] != nil {
			return nil, fmt.Errorf("mpi.api:%d: %s described twice", n+1, c.Name)
		}
		c.ID = len(a.Calls)
		c.brief = briefIn(c)
		a.Calls = append(a.Calls, c)
		a.ByName[c.Name] = c
	}
	return a, nil
}

// parseLarge parses the fields of a "large" line: a described call, then
// the parameters its large-count twin widens, each as NAME (to MPI_Count,
// or an array or pointer of MPI_Count) or NAME:TYPE (the type of the
// scalar, of the array's elements or of the pointer's target); an array
// whose length a parameter gives is NAME[LEN].
func (a *API) parseLarge(fs []string) error {
	if len(fs) < 2 {
		return fmt.Errorf("expected: large MPI_Name param[:TYPE] ...")
	}
	c := a.ByName[fs[0]]
	if c == nil {
		return fmt.Errorf("large: %s is not described above", fs[0])
	}
	if len(c.Large) > 0 {
		return fmt.Errorf("large: %s twice", c.Name)
	}
	for _, f := range fs[1:] {
		name, typ, ok := strings.Cut(f, ":")
		if !ok {
			typ = "MPI_Count"
		}
		name, n, _ := strings.Cut(strings.TrimSuffix(name, "]"), "[")
		i := c.Param(name)
		if i < 0 || !widened(c.Params[i]) || (n != "" && (!c.Params[i].Array || c.Param(n) < 0)) {
			return fmt.Errorf("large: %s: %q is not a parameter the twin can widen", c.Name, f)
		}
		c.Large = append(c.Large, LargeParam{Name: name, Type: typ, Len: n})
	}
	return nil
}

// parseFortranName parses the fields of a "fortran-name" line: a
// described call, then the other names of its mpif.h and `use mpi`
// bindings.
func (a *API) parseFortranName(fs []string) error {
	if len(fs) < 2 {
		return fmt.Errorf("expected: fortran-name MPI_Name MPI_Other ...")
	}
	c := a.ByName[fs[0]]
	if c == nil || c.Has("nofortran") {
		return fmt.Errorf("fortran-name: %s is not described above with Fortran bindings", fs[0])
	}
	for _, name := range fs[1:] {
		if !strings.HasPrefix(name, "MPI_") || a.ByName[name] != nil {
			return fmt.Errorf("fortran-name: %q is not another MPI name", name)
		}
		c.FortranNames = append(c.FortranNames, name)
	}
	return nil
}

// widened reports whether a large-count twin may declare p wider: a
// scalar or an array (a value), an output integer, a function (whose
// arguments are wider).
func widened(p Param) bool {
	switch {
	case p.Role == Out:
		return true
	case p.Role != Value:
		return false
	case p.Ptrs > 0:
		return strings.HasSuffix(p.Base, "_function")
	}
	return true
}

func parseCall(line string) (*Call, error) {
	open, close := strings.Index(line, "("), strings.LastIndex(line, ")")
	if open < 0 || close < open {
		return nil, fmt.Errorf("expected NAME(params) tags: %q", line)
	}
	c := &Call{Name: strings.TrimSpace(line[:open]), Tags: map[string]bool{}}
	for _, t := range strings.Fields(line[close+1:]) {
		if v, ok := strings.CutPrefix(t, "sync="); ok {
			c.Sync = v
			continue
		}
		c.Tags[t] = true
	}
	if ps := strings.TrimSpace(line[open+1 : close]); ps != "" {
		for _, decl := range strings.Split(ps, ",") {
			p, err := parseParam(strings.TrimSpace(decl))
			if err != nil {
				return nil, fmt.Errorf("%s: %v", c.Name, err)
			}
			c.Params = append(c.Params, p)
		}
	}
	for i, p := range c.Params {
		if p.Len != "" && c.Param(p.Len) < 0 {
			return nil, fmt.Errorf("%s: %s: no length parameter %q", c.Name, p.Name, p.Len)
		}
		// Where the program keeps a handle (the address of its variable,
		// or of its array and the size of an element) tells apart objects
		// whose handles are equal: both Open MPI and MPICH return one shared
		// handle for every send that completed at once.
		switch p.Role {
		case New, Free, Inout:
			c.In = append(c.In, Field{Name: p.Name + "_at", Kind: FAddr, Param: i})
		case Reqs, News:
			c.In = append(c.In, Field{Name: p.Name + "_at", Kind: FAddr, Param: i},
				Field{Name: p.Name + "_stride", Kind: FInt, Param: i})
		}
		if f, ok := field(p, i); ok {
			switch p.Role {
			case Inout:
				// The MPI may replace the handle (Open MPI does, when a
				// persistent request is started while active).
				c.In = append(c.In, f)
				f.Name += "_out"
				c.Out = append(c.Out, f)
			case Reqs:
				// Read again on exit: the requests the MPI set to
				// MPI_REQUEST_NULL are the ones that completed, whatever
				// index a binding reports.
				c.In = append(c.In, f)
				f.Name += "_out"
				c.Out = append(c.Out, f)
			case Value, Free:
				c.In = append(c.In, f)
			default:
				c.Out = append(c.Out, f)
			}
		}
	}
	return c, nil
}

func parseParam(decl string) (Param, error) {
	role := ""
	if i := strings.LastIndex(decl, ":"); i >= 0 {
		decl, role = strings.TrimSpace(decl[:i]), decl[i+1:]
	}
	m := declRE.FindStringSubmatch(decl)
	if m == nil {
		return Param{}, fmt.Errorf("cannot parse parameter %q", decl)
	}
	p := Param{Decl: decl, Name: m[2], Array: m[3] != ""}
	typ := strings.TrimSpace(m[1])
	p.Ptrs = strings.Count(typ, "*")
	typ = strings.TrimSpace(strings.ReplaceAll(typ, "*", ""))
	typ = strings.TrimSpace(strings.TrimPrefix(typ, "const "))
	p.Base = typ
	p.Handle = handleTypes[typ]
	rm := roleRE.FindStringSubmatch(role)
	if role == "" {
		rm = []string{"", "", ""}
	}
	if rm == nil {
		return Param{}, fmt.Errorf("%s: bad role %q", p.Name, role)
	}
	r, ok := roleNames[rm[1]]
	if !ok {
		return Param{}, fmt.Errorf("%s: unknown role %q", p.Name, rm[1])
	}
	p.Role, p.Len = r, rm[2]
	if (r == Reqs || r == Indices || r == News) != (p.Len != "") {
		return Param{}, fmt.Errorf("%s: role %q needs a length exactly when it is reqs, news or indices", p.Name, role)
	}
	if r == News && (p.Handle == "" || p.Ptrs != 0 || !p.Array) {
		return Param{}, fmt.Errorf("%s: news needs a handle array", p.Name)
	}
	if (r == New || r == Free || r == Inout) && (p.Handle == "" || p.Ptrs != 1) {
		return Param{}, fmt.Errorf("%s: role %q needs a pointer to a handle", p.Name, role)
	}
	if r == Reqs && p.Handle != "request" {
		return Param{}, fmt.Errorf("%s: reqs needs a request array", p.Name)
	}
	return p, nil
}

// field returns the record field for parameter i, if it is recorded.
func field(p Param, i int) (Field, bool) {
	f := Field{Name: p.Name, Param: i, Handle: p.Handle}
	switch p.Role {
	case Ignore:
		return f, false
	case Value:
		switch {
		case p.Ptrs == 0 && !p.Array && p.Handle != "":
			f.Kind = FHandle
		case p.Ptrs == 0 && !p.Array && (p.Base == "int" || p.Base == "MPI_Aint" || p.Base == "MPI_Offset" || p.Base == "MPI_Count"):
			f.Kind = FInt
		default:
			f.Kind, f.Handle = FAddr, ""
		}
	case New, Free, Inout:
		f.Kind = FHandle
	case Reqs, News:
		f.Kind = FHandles
	case Out, Index:
		f.Kind = FInt
	case Indices:
		f.Kind = FInts
	case Status:
		f.Kind = FStatus
	}
	return f, true
}

// MPI is the parsed built-in description. It is parsed at start-up; an error
// there is a bug in mpi.api that the package tests catch.
var MPI = mustParse()

func mustParse() *API {
	a, err := Parse(source)
	if err != nil {
		panic(err)
	}
	return a
}

// Record kinds, the third field of a record header. They are part of the
// record format shared with the layer (layer/src/generated/format.h,
// generated from these constants).
const (
	KindEntry = 1 // a call was entered: call-site word, then In fields
	KindExit  = 2 // a call returned: entry offset, return code, then Out fields
	KindMeta  = 3 // layer metadata; the call field holds a Meta* id
	KindBrief = 4 // a Brief call was entered: call-site word, then BriefIn fields (no exit record)
	// KindRepeat: the records before it repeat (layer/src/record/fold.c):
	// RepeatLen bytes of them, each repetition RepeatVirtual bytes of records
	// once expanded, RepeatRecords records and RepeatCalls calls; RepeatCount
	// holds count << RepeatShift | partial: how many more times they repeat
	// whole, and how many records of one more repetition (partial: only
	// when nothing follows the record in the log). Its call field is 0.
	KindRepeat = 5
)

// Words of a KindRepeat record.
const (
	RepeatLen     = 0
	RepeatVirtual = 1
	RepeatRecords = 2
	RepeatCalls   = 3
	RepeatCount   = 4
	RepeatWords   = 5
	RepeatShift   = 24
)

// State page layout (words), shared with the layer (generated/format.h): StateSlots
// slots of StateWords words, one per thread that calls MPI (in the order they
// first did), each a seqlock counter, then what the thread is doing.
const (
	StateSeq      = 0  // odd while being written
	StateStatus   = 1  // 0 no call yet, 1 inside a call, 2 returned, StatusDeciding
	StateLogRef   = 2  // offset of the call's entry record in the log, or ^0 if inline
	StateRC       = 3  // return code once returned
	StateProgress = 4  // number of MPI calls returned so far
	StateRecord   = 5  // inline entry record (header, words) of a call not logged, up to StatePolls
	StatePolls    = 63 // polls (Call.Poll) that returned having done nothing, which are not logged
	StateWords    = 64
	StateSlots    = 8
)

// After the slots, the thread table (words from StateThreads): the kernel
// thread id of each slot's thread (StateSlots words; 0 if unknown, or for
// the last slot, which later threads share), then at StateLibrary the count
// of threads the MPI's own code created (its progress threads) and their
// kernel ids, up to StateLibraryMax. The launcher reads them with
// /proc/PID/task (launch/threads.go): a thread of neither kind is the
// program's and has never called MPI. The state file is StateFileWords
// words.
const (
	StateThreads    = StateSlots * StateWords
	StateLibrary    = StateThreads + StateSlots
	StateLibraryMax = 62
	StateFileWords  = 2 * StateThreads
)

// StatusDeciding is the state page's status of a thread inside a call
// that waits for a deterministic decision (layer/src/determinism): the call
// returns by itself, or gives up waiting, so the rank is not blocked (the
// deadlock check must not take the wait for a deadlock).
const StatusDeciding = 3

// StatusEnded is the status of a thread that has ended (layer/src/record/
// joins.c): it no longer calls MPI, nor releases anyone. StatusJoining, with
// the state slot of another thread above its low byte (StatusJoining |
// slot<<8), is that of a thread that returned from MPI and waits in
// pthread_join for that thread, which has called MPI: it is blocked as long
// as that thread is.
const (
	StatusEnded   = 4
	StatusJoining = 5
)

// Meta record ids (record kind KindMeta), shared with the layer (generated/format.h).
const (
	MetaProcess     = 1  // rank, size, pid, thread level, then host name (string)
	MetaConstants   = 2  // bitmap of the API.Consts the MPI defines, then their values, in order
	MetaMaps        = 3  // executable mappings of the process (string, /proc/self/maps lines)
	MetaSignal      = 4  // signal number | thread flags (Signal*) << 32, faulting pc, fault address, callers' return addresses
	MetaOverflow    = 5  // the log reached its size limit, or (one word: the errno) its file system refused it room; later records are lost
	MetaError       = 7  // a call returned an error: call id, return code, error class, call site, 1 if the MPI's fatal handler ends the job
	MetaComm        = 6  // a communicator the last call created: handle, intercomm flag, n, world ranks..., [m, remote world ranks...]
	MetaClocks      = 9  // clock protocol: mode (0 off, 1 Lamport, 2 vector), world rank, why it is off (string)
	MetaWildcard    = 10 // a wildcard event starts: event number, kind, comm serial, tag, forced source or -1, entry record offset, flags
	MetaMatched     = 11 // the event matched: event number, source (comm rank), source world rank, tag, final clock, cancelled
	MetaLate        = 12 // a message that may be late: source, source world rank, tag, comm serial, clock, events before its receive, entry record offset
	MetaChoice      = 13 // a Waitany-family event returned: event number, n, indexes..., m, (index, receive serial)... of its candidates
	MetaArrival     = 14 // a candidate of such an event took its message: receive serial, message clock, source world rank
	MetaTypes       = 15 // a type mismatch: send signature, receive signature, source world rank, tag, send call site (in the sender), receive call site, bytes
	MetaColl        = 16 // what a rank gives a collective: entry record offset, flags, send signature, send periods, receive signature, receive periods
	MetaWatch       = 17 // buffer checker, at MPI_Finalize: nonblocking operations started, and those whose buffers were watched
	MetaUnreceived  = 18 // a message no receive matched, found at MPI_Finalize or MPI_Comm_free: source world rank, source (comm rank), tag, comm, its send's call site (0: unknown), bytes, 1 if its communicator was being freed
	MetaDeterminism = 25 // deterministic mode, at MPI_Finalize: seed, K, wildcard decisions, polls decided, relaxations, control messages, calls not covered, final logical time
	MetaDiverged    = 24 // a replay made another call than its parent run: calls compared, expected call id and site, actual call id and site, parent log offset
	MetaArgument    = 32 // an argument that breaks a rule (api.Arg*), found before the call: call id, parameter index, rule, value, limit, other parameter index or -1, its value, call site
	MetaPySite      = 31 // a Python interpreter's call site: its site (what records carry as their call site), the C return address of its first call, line, then file name and function name (strings)
	MetaRMA         = 33 // what the rma service adds to a one-sided call (layer/src/rma): entry record offset, then RMA* words
	MetaRMAValue    = 48 // the target's bytes of a Put differ at the closing fence from what its origin sent (layer/src/rma/values.c): fence entry record offset, origin world rank, the Put's entry record offset in the origin's log, target byte offset, bytes
	MetaThreads     = 47 // not written any more (a second thread calling MPI under MPI_THREAD_MULTIPLE used to end the rank); the number stays taken
	MetaThreadLevel = 49 // a call that breaks the thread level's promise (layer/src/record/levels.c): what (ThreadLevel*), call id, call site, thread id, 1 if the initial thread, OpenMP thread number or -1, the other thread's call id and site (^0: none found), threads inside MPI before it
	MetaFile        = 60 // an MPI_File_open (layer/src/mpiio), before the call: its entry record offset, amode, then the file name (string)
	MetaView        = 61 // an MPI_File_set_view, before the call: its entry record offset, the etype's signature and size, then the data representation (string)
	MetaFileError   = 62 // the file call whose MetaError precedes it is on the file opened by the MPI_File_open whose entry record is at this offset
	MetaDeclared    = 70 // a buffer a call gives with a count and datatype (layer/src/declared), once per call site, address and datatype: call id, parameter index, address, count (-1: per rank), the datatype's signature, 1 if predefined, its handle, call site, the calling function's CFA (0: not known), then for each of up to 4 functions above it the return address into it and its CFA
	MetaBuffer      = 8  // an access to a pending operation's buffer: kind, address, start offset, call id, request, other start offset, init offset, n, pcs...
	MetaHeld        = 73 // a thread's receive held back in a guided replay (layer/src/clocks/holds.c): the thread's position (numbered as a wildcard event), the event whose match releases it, 1 once released
	MetaHeap        = 63 // a buffer against the heap block that holds it, or a buffer in a data segment (layer/src/heap): Heap* kind, call id, parameter index or -1, call site, buffer address, first byte, one past the last, block start, block size, its allocation site, its free() site, other (Heap*)
)

// What a MetaHeap record says (its first word). For HeapFreePending the
// call site is the free()'s, the call the pending operation's, and the
// other word the log offset of the call that started it; for it and
// HeapFreeWindow the parameter index is -1 for a free(), -2 for a realloc().
const (
	HeapOverrun     = 1 // the bytes the buffer's count and datatype cover run out of the heap block it starts in
	HeapFreed       = 2 // the buffer starts in a heap block freed before the call
	HeapFreePending = 3 // free() of a heap block that holds a pending nonblocking operation's buffer
	HeapFreeWindow  = 5 // free() or a moving or shrinking realloc() of a heap block that holds the memory of a window (MPI_Win_create, MPI_Win_attach) not yet freed or detached: the call is the one that gave the memory, the other word its log offset
	HeapGlobal      = 4 // the buffer starts in a writable segment of the executable or a library (globals): the analysis compares it with the ELF symbols; no block words
)

// Who a thread is (layer/src/record/identity.c). A MetaThread record, at
// the first MPI call of a thread other than the first to make one: its number in the record headers (Call.Thread), its
// identity, then who it is as a MetaThreadLevel record says it (kernel id,
// 1 if the initial thread, OpenMP thread number or -1). An identity is the
// thread's path in the tree of the threads the program created, a byte a
// level (trace.ThreadPath): the same in every run. A wildcard event's
// number carries it in its high 32 bits.
const (
	MetaThread    = 52
	ThreadUnnamed = 1 << 31 // an identity not stable across runs: a thread the layer could not name, with its number in the low bits
)

// What a MetaThreadLevel record says the call broke.
const (
	ThreadLevelNotMain  = 1 // under MPI_THREAD_SINGLE or FUNNELED, a thread other than the main one called MPI
	ThreadLevelTwo      = 2 // under MPI_THREAD_SERIALIZED, two threads were inside MPI at once
	ThreadLevelInit     = 3 // a thread called MPI while another initialised it
	ThreadLevelFinalize = 4 // a thread called MPI while another finalised it
)

// Thread flags of a MetaSignal record (its first word's high half): which
// thread the signal interrupted. A crash in a thread the MPI library made,
// while the program's MPI_Finalize runs, is the library's (checks/failure).
const (
	SignalKnown     = 1 << 0 // the flags are recorded (older layers wrote none)
	SignalMain      = 1 << 1 // the process's initial thread
	SignalCalledMPI = 1 << 2 // a thread that called MPI through the layer
	SignalLibrary   = 1 << 3 // a thread created by the MPI library's own code (pthread_create called from it)
	SignalUnwound   = 1 << 4 // the callers were unwound (a record without it was written before unwinding)
	SignalSent      = 1 << 5 // sent (kill, tgkill, raise: si_code <= 0), not raised by a fault; its address word is the sender's pid
	SignalHandled   = 1 << 6 // handed to a handler the program installed (the rank may recover: not by itself a crash)
)

// Rules an argument breaks (MetaArgument), checked by the layer
// (layer/src/arguments) before the call reaches the MPI. The limit word of
// the record is what the rule compares with: the communicator's size
// (ArgRank, ArgRoot), MPI_TAG_UB (ArgTag), the datatype (ArgOpType).
const (
	ArgRank            = 1  // a peer rank out of range for the communicator
	ArgRoot            = 2  // a root out of range for the communicator
	ArgCount           = 3  // a negative count
	ArgTypeNull        = 4  // MPI_DATATYPE_NULL or no datatype handle
	ArgTypeUncommitted = 5  // a derived datatype used for communication before MPI_Type_commit
	ArgTypeFreed       = 6  // a datatype already freed by MPI_Type_free
	ArgCommNull        = 7  // MPI_COMM_NULL or no communicator handle
	ArgCommFreed       = 8  // a communicator already freed
	ArgTag             = 9  // a tag out of 0..MPI_TAG_UB (wildcards aside where allowed)
	ArgOpNull          = 10 // MPI_OP_NULL or no operation handle
	ArgOpFreed         = 11 // an operation already freed by MPI_Op_free
	ArgOpType          = 12 // a predefined operation not defined for the (predefined) datatype
	ArgBufferNull      = 13 // a NULL buffer with a non-zero count of a predefined datatype
	ArgOverlap         = 14 // the send and receive buffers overlap
	ArgInPlace         = 15 // MPI_IN_PLACE where the call does not allow it
	ArgOffset          = 16 // a negative file offset, size or displacement
	ArgAmode           = 17 // an access mode MPI_File_open refuses (limit: what is wrong, AmodeAccess ...)
	ArgFileNull        = 18 // MPI_FILE_NULL where a file is needed (a file closed through this handle)
	ArgFileClosed      = 19 // a file handle whose file was closed (through another copy of the handle)
	ArgAssert          = 20 // assertion bits not defined for the window call (limit: the bits it allows)
	ArgWinBase         = 21 // MPI_Win_create: a NULL base with a positive size (value: the size)
	ArgTypeArg         = 22 // a datatype constructor's argument out of its range (limit: TypeArg* | (index+1)<<8)
	ArgTypeFreePredef  = 23 // MPI_Type_free of a predefined datatype
	ArgTypeOverlap     = 24 // a datatype whose entries overlap, used to receive (limit: the count; other value: the byte offset written twice)
)

// What is wrong with a datatype constructor's argument: the low byte of the
// limit word of an ArgTypeArg record; the next bits hold the index of the
// array element plus one (0: not an array). The record's other parameter
// and value are what the argument is compared with, where there is one.
const (
	TypeArgNegative = 1 // negative (a count, a block length)
	TypeArgPositive = 2 // not positive (ndims, sizes, a darray's size, gsizes, psizes, dargs)
	TypeArgSubsize  = 3 // a subarray's subsize above its size (other: array_of_sizes[i])
	TypeArgStart    = 4 // a subarray's start out of 0..size-subsize (other value: that bound)
	TypeArgOrder    = 5 // neither MPI_ORDER_C nor MPI_ORDER_FORTRAN
	TypeArgRank     = 6 // a darray's rank out of 0..size-1 (other: size)
	TypeArgDistrib  = 7 // not MPI_DISTRIBUTE_BLOCK, _CYCLIC or _NONE
	TypeArgPsizes   = 8 // the product of a darray's psizes (the value) differs from its size (other)
	TypeArgBlock    = 9 // a block distribution's darg below what covers gsize over psize processes (other value: the least)
)

// What is wrong with an access mode (the limit word of an ArgAmode record).
const (
	AmodeAccess     = 1 // not exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY, MPI_MODE_RDWR
	AmodeReadCreate = 2 // MPI_MODE_RDONLY with MPI_MODE_CREATE or MPI_MODE_EXCL
	AmodeRdwrSeq    = 3 // MPI_MODE_RDWR with MPI_MODE_SEQUENTIAL
)

// Kinds of objects whose life the argument checks follow (the layer's
// generated table mpivet_call_a_kind: what a call creates or frees).
const (
	ObjComm     = 1
	ObjDatatype = 2
	ObjOp       = 3
	ObjFile     = 4
)

// Words of a MetaRMA record after the entry offset, shared with the layer
// (generated/format.h): for a communication call (MPI_Put ...), the target
// bytes its target datatype touches, relative to the target displacement in
// bytes (true lower bound, then the span: (count-1) x extent + true extent),
// and the same for the origin buffer, relative to its address, then the
// number of blocks of bytes of a derived target datatype of at most 32 of
// them (0: a predefined one, or more) and their (offset, length) pairs
// relative to the same displacement, then the handle of the one basic type
// of the target type map (0: several) and its extent; for
// MPI_Win_post and MPI_Win_start, the group's size and its members as ranks
// of MPI_COMM_WORLD.
const (
	RMATargetLB   = 0
	RMATargetSpan = 1
	RMAOriginLB   = 2
	RMAOriginSpan = 3
	RMAWords      = 4 // of a communication call
)

// Buffer access kinds (MetaBuffer), shared with the layer (generated/format.h).
const (
	AccessWriteSend = 1 // the program wrote a pending send buffer
	AccessReadRecv  = 2 // the program read a pending receive buffer
	AccessWriteRecv = 3 // the program wrote a pending receive buffer
	AccessOverlap   = 4 // an operation started on a buffer that overlaps a pending one's
	// The program wrote a pending send (receive) buffer somewhere between two
	// MPI calls: found by the buffer's contents changing on a page the layer
	// had stopped single-stepping (PCs: the two calls' sites).
	AccessWindowWriteSend = 5
	AccessWindowWriteRecv = 6
	// The target process loaded (stored) its own window memory during an
	// exposure epoch (layer/src/buffers/exposure.c): the first access of
	// that kind to a page in the epoch. Address, start offset = the call that
	// opened the epoch, request = the window handle, other = the byte offset
	// in the window.
	AccessTargetLoad  = 7
	AccessTargetStore = 8
	// The target process loaded (stored) its own window memory between two
	// MPI calls outside any active-target exposure epoch (a stretch watched
	// for passive-target epochs of other ranks): the first access of that
	// kind to a page in the stretch. Address, request = the window handle,
	// other = the byte offset in the window; the record's place in the log
	// (BufferAccess.After) says which calls came before it.
	AccessPassiveLoad  = 9
	AccessPassiveStore = 10
)

// Signature words (MetaTypes, MetaColl; layer/src/signatures): 0 unknown,
// SigMixed | hash for several basic types, else class << 8 | size of one
// basic type repeated, with one of these classes. The pair types
// (MPI_2INT ...) have class SigPair and their position in the layer's
// table in place of the size.
const (
	SigByte    = 1
	SigPacked  = 2
	SigChar    = 3
	SigInt     = 4
	SigUint    = 5
	SigFloat   = 6
	SigComplex = 7
	SigBool    = 8
	SigLogical = 9
	SigWchar   = 10
	SigPair    = 11
	SigMixed   = 1 << 63
)

// Flags of a MetaColl record: which sides of the collective are
// significant on the rank, and how their counts are given.
const (
	CollSend    = 1 // the send signature and periods are significant
	CollRecv    = 2 // the receive signature and periods are significant
	CollTotals  = 4 // counts are sums over the per-rank count arrays
	CollNoCount = 8 // counts are per neighbour: compare signatures only
)

// Flags of a call in the layer's per-call tables (mpivet_call_flags).
const (
	CallColl  = 1 // a collective (MPI_Finalize aside)
	CallVSend = 2 // per-rank send counts (sendcounts)
	CallVRecv = 4 // per-rank receive counts (recvcounts)
	// a persistent collective's initialization (collinit), whose request
	// MPI_Start starts as the nonblocking collective it describes
	CallCollInit = 8
)

// Wildcard event kinds: the kind of a MetaWildcard record and of a line of
// the decision file of a guided replay (layer/src/clocks).
const (
	WildRecv  = 1 // a receive with MPI_ANY_SOURCE
	WildProbe = 2 // a probe with MPI_ANY_SOURCE
	WildAny   = 3 // a Waitany, Testany, Waitsome or Testsome over several live requests
	// WildBuffer is a decision only: the standard-mode send numbered by the
	// line's event (the rank's MPI_Send and MPI_Isend calls from 0) is
	// buffered by the layer (layer/src/slack).
	WildBuffer = 4
	// WildHold is a decision only (several threads): the receives the
	// thread of the line's event posts at that position (its number of
	// wildcard events started, thread in the high bits) from the source
	// forced on the event in the line's source column, or from any
	// source, wait until that event has matched (layer/src/clocks/holds.c).
	WildHold = 5
)

// Clock modes, the first word of a MetaClocks record (0: the protocol is off).
const (
	ClocksOff     = 0
	ClocksLamport = 1
	ClocksVector  = 2
)

// ExitDiverged is the exit status of a rank of a guided replay that made
// another call than in the run replayed, after logging MetaDiverged
// (layer/src/divergence).
const ExitDiverged = 86

// The keys of RUNDIR/layer.conf, the run's settings for the layer, one
// key=value line each (layer/src/record/conf.h reads them).
const (
	ConfBuffering     = "buffering"     // zero: standard-mode sends become synchronous; infinite: the layer buffers them
	ConfBuffers       = "buffers"       // off, precise: the buffer checker
	ConfClocks        = "clocks"        // lamport, vector, off: the clock protocol
	ConfGDB           = "gdb"           // RANK: that rank waits for a debugger (replay --gdb)
	ConfHost          = "host"          // mpivet's host: supervisors elsewhere write their ranks' records back
	ConfSync          = "sync"          // always: write records back as if on another host (tests)
	ConfDecisions     = "decisions"     // PATH of the decision file of a guided replay
	ConfExpect        = "expect"        // PATH of the file a replay compares its calls with (divergence)
	ConfVader         = "vader"         // MECHANISM:EAGER_LIMIT of Open MPI's shared-memory transport (mpi.SharedMemory)
	ConfDeterministic = "deterministic" // SEED: deterministic mode (layer/src/determinism), with that schedule
	ConfArguments     = "arguments"     // off: no argument checks (layer/src/arguments)
	ConfThreads       = "threads"       // off: under MPI_THREAD_MULTIPLE, the clock protocol stays off (any thread may call MPI)
	ConfWait          = "wait"          // sleep: blocking calls poll with a sleeping backoff (layer/src/wait); spin: the MPI's own wait
	ConfRecords       = "records"       // full: no repeated records folded (layer/src/record/fold.c)
)

// ConfFiles is the layer.conf key naming the directory where the ranks
// keep what the files they create, change or remove held before the run
// (layer/src/files, driver/files.go): its value is that directory's path.
const ConfFiles = "files"
