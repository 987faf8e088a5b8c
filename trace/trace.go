// Package trace reads the per-rank logs that the interposition layer writes
// (format: layer/src/record/record.h) and the exit records of the rank supervisor, and
// turns them into the calls and process facts the checks consume.
//
// A log may be read while its rank is still running (for timeouts and for
// deadlock detection) or after the rank was killed: a record is visible
// only once its header is stored, so the log always ends at a whole record.
//
// The files: trace.go the calls as the checks see them (Call, its
// communicator, file and collective data); decode.go and meta.go decode a
// rank's log (ReadLog, Decode), cursor.go reads it in order through a
// bounded buffer; run.go reads every rank of a run (Run, ReadRun,
// ReadRunUntil); exit.go the supervisor's exit records; state.go the ranks'
// live state pages and progress; sched.go what the operating system says
// of a live rank (stopped, running); stop.go stops an analysis at an
// interrupt or its time limit (ErrStopped).
package trace

import (
	"fmt"
	"sync"
	"sync/atomic"

	"mpivet/api"
)

// Unknown is the value the layer records for an output it could not read.
const Unknown = ^uint64(0)

// Call is one MPI call made by a rank, from its entry record and, if the call
// returned, its exit record.
//
// Its fields are kept compactly, as memory grows with the number of logged
// calls (hundreds of thousands in a real application): one word per field
// (a scalar's value, an array's length, a status's source), then the words
// of its arrays in field order (fieldValues).
type Call struct {
	Def    *api.Call
	x      *extra   // what few calls have
	Offset uint64   // of its entry record in the log
	PC     uint64   // call site (return address into the caller)
	in     []uint64 // Def.In's fields (fieldValues)
	out    []uint64 // Def.Out's fields, once returned
	Seq    int      // position among this rank's logged calls (-1: known from the state page only)
	// ExitAt: the offset of its exit record in the log (0: none read);
	// with Offset, the stretch of the log during which the call was in
	// progress (records are in the order their threads reserved them).
	ExitAt uint64
	RC     int32 // what the call returned
	// Thread: the number of the rank's thread that made the call, among
	// those that called MPI in the order they first did (0: the first).
	Thread uint8
	// Returned: the exit record was read (or the state page says so).
	Returned bool
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

// extra is what only calls of some kinds have, kept out of Call to keep
// every call small.
type extra struct {
	comm *Comm
	data *CollData
	file *File
}

// File is what the layer's files service adds to an MPI_File_open
// (api.MetaFile: Name, Amode) or an MPI_File_set_view (api.MetaView: the
// etype's signature and size, the data representation).
type File struct {
	Name      string
	Amode     int64
	View      bool
	EtypeSig  uint64 // 0: unknown
	EtypeSize int64
	Datarep   string
}

// File returns what the layer logged of an open's file or a view (nil:
// another call, or not known).
func (c *Call) File() *File {
	if c.x == nil {
		return nil
	}
	return c.x.file
}

// Comm returns the communicator the call created, with its members (nil:
// none, or not known).
func (c *Call) Comm() *Comm {
	if c.x == nil {
		return nil
	}
	return c.x.comm
}

// Data returns the type signatures a collective was given (C callers only;
// nil: not known).
func (c *Call) Data() *CollData {
	if c.x == nil {
		return nil
	}
	return c.x.data
}

func (c *Call) more() *extra {
	if c.x == nil {
		c.x = &extra{}
	}
	return c.x
}

// Keep returns a copy of c that holds only its own fields: the calls a
// reader keeps from Calls share their fields' memory with those read
// around them, which the copy lets go.
func (c *Call) Keep() *Call {
	k := *c
	k.in = append([]uint64(nil), c.in...)
	if c.Brief {
		k.out = c.out // shared by every brief call of its kind
	} else {
		k.out = append([]uint64(nil), c.out...)
	}
	return &k
}

// Name is the MPI function name.
func (c *Call) Name() string { return c.Def.Name }

// field finds the field name: its description, the call's words for its
// side, and its index there.
func (c *Call) field(name string) (api.Field, []uint64, []api.Field, int, bool) {
	for i, f := range c.Def.In {
		if f.Name == name {
			return f, c.in, c.Def.In, i, true
		}
	}
	if c.Returned {
		for i, f := range c.Def.Out {
			if f.Name == name {
				return f, c.out, c.Def.Out, i, true
			}
		}
	}
	return api.Field{}, nil, nil, 0, false
}

// Word returns the scalar field name (Unknown if absent); for an array, its
// length, for a status, its source.
func (c *Call) Word(name string) uint64 {
	_, vs, _, i, ok := c.field(name)
	if !ok || i >= len(vs) {
		return Unknown
	}
	return vs[i]
}

// Int returns the scalar field name as a signed integer.
func (c *Call) Int(name string) int64 { return int64(c.Word(name)) }

// Words returns the array field name.
func (c *Call) Words(name string) []uint64 {
	_, vs, fs, i, _ := c.field(name)
	return arrayOf(fs, vs, i)
}

// HasField reports whether the call records field name (for outputs: and returned).
func (c *Call) HasField(name string) bool {
	_, _, _, _, ok := c.field(name)
	return ok
}

// In returns the word of the i-th field of Def.In (as Word does).
func (c *Call) In(i int) uint64 { return wordOf(c.in, i) }

// InWords returns the i-th field of Def.In if it is an array.
func (c *Call) InWords(i int) []uint64 { return arrayOf(c.Def.In, c.in, i) }

// Out returns the word of the i-th field of Def.Out (Unknown before the
// call returned).
func (c *Call) Out(i int) uint64 { return wordOf(c.out, i) }

// OutWords returns the i-th field of Def.Out if it is an array.
func (c *Call) OutWords(i int) []uint64 { return arrayOf(c.Def.Out, c.out, i) }

func wordOf(vs []uint64, i int) uint64 {
	if i < 0 || i >= len(vs) {
		return Unknown
	}
	return vs[i]
}

// arrayWords is how many words field f's array takes after the scalars
// (fieldValues), given its word w.
func arrayWords(f api.Field, w uint64) int {
	switch f.Kind {
	case api.FHandles, api.FInts:
		return int(w)
	case api.FStatus:
		return 2
	}
	return 0
}

// arrayOf returns the array of field i of fs, kept in vs (fieldValues).
func arrayOf(fs []api.Field, vs []uint64, i int) []uint64 {
	if i < 0 || i >= len(fs) || len(vs) < len(fs) {
		return nil
	}
	at := len(fs)
	for j := 0; j < i; j++ {
		at += arrayWords(fs[j], vs[j])
	}
	n := arrayWords(fs[i], vs[i])
	if n == 0 || at+n > len(vs) {
		return nil
	}
	return vs[at : at+n : at+n]
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
	Thread  uint64   // which thread it interrupted: api.Signal* flags (0: not recorded)
	PC      uint64   // the interrupted instruction (from the signal's context)
	Addr    uint64   // the faulting address; of a sent signal, the sender's pid (0: not known)
	Callers []uint64 // return addresses of the frames that called it, innermost first
	// ThreadNo: the number of the thread it interrupted (Call.Thread), if
	// that thread called MPI.
	ThreadNo int
}

// LibraryThread reports whether the signal interrupted a thread that the
// MPI library created (its progress threads) and that never called MPI
// through the layer: not a thread of the program's.
func (s *Signal) LibraryThread() bool {
	return s.Thread&api.SignalKnown != 0 && s.Thread&api.SignalLibrary != 0 &&
		s.Thread&(api.SignalMain|api.SignalCalledMPI) == 0
}

// Handled reports whether the layer handed the signal to a handler the
// program installed (the program may recover from it).
func (s *Signal) Handled() bool { return s.Thread&api.SignalHandled != 0 }

// Sent reports whether the signal was sent (kill, raise), not raised by a
// fault.
func (s *Signal) Sent() bool { return s.Thread&api.SignalSent != 0 }

// FromOutside reports whether the signal was sent by another process
// than the one it interrupted (pid): not a raise, abort() or kill of its
// own. False when the sender is not known.
func (s *Signal) FromOutside(pid int) bool { return s.Sent() && s.Addr != 0 && s.Addr != uint64(pid) }

// Unwound reports whether Callers is the stack the layer unwound; false
// when the unwinding itself faulted, and only the interrupted instruction
// is known.
func (s *Signal) Unwound() bool {
	return s.Thread&api.SignalKnown == 0 || s.Thread&api.SignalUnwound != 0
}

// Error is an error an MPI call returned to the program.
type Error struct {
	Call  *api.Call
	RC    int64
	Class int64 // MPI error class
	PC    uint64
	Fatal bool // raised to MPI_ERRORS_ARE_FATAL: the call did not return, the job ends
	// OnFile: the call was on a file (api.MetaFileError), named File ("":
	// a file the layer did not see opened).
	OnFile bool
	File   string
}

// Argument is an argument of a call that breaks a rule of the standard
// (api.Arg*), as the layer found it before the call reached the MPI.
type Argument struct {
	Call       *api.Call
	Param      int    // index in Call.Params
	Rule       int    // api.Arg*
	Value      int64  // the argument (a handle's or an address's bits for those)
	Limit      int64  // what the rule compares with: a size, MPI_TAG_UB, the datatype of ArgOpType
	Other      int    // another parameter the rule is about, or -1
	OtherValue int64  // its value
	PC         uint64 // the call site
}

// Heap is a buffer checked against the heap block that holds it
// (layer/src/heap): an overrun, a buffer in freed memory, or a free() of
// a pending operation's buffer (What: api.Heap*).
type Heap struct {
	What        int
	Call        *api.Call // the call (HeapFreePending: the pending operation's)
	Param       int       // the buffer's index in Call.Params, -1 for none (HeapFreePending, HeapFreeWindow: -1 a free(), -2 a realloc())
	PC          uint64    // the call site (HeapFreePending: the free()'s)
	Buf         uint64    // the buffer's address
	Lo, Hi      uint64    // the bytes its count and datatype cover: [Lo, Hi)
	Start, Size uint64    // the heap block
	AllocPC     uint64    // where the block was allocated
	FreePC      uint64    // where it was freed (HeapFreed)
	Other       uint64    // HeapFreePending: the log offset of the call that started the operation
}

// Thread is the thread of a rank that made a call or an access, as the
// layer names it (mpivet_thread_words in layer/src/record/levels.c).
type Thread struct {
	Tid     int  // the kernel's thread id (0: not recorded)
	Initial bool // the process's initial thread
	OMP     int  // its OpenMP thread number in a parallel region, or -1
}

// thread decodes the three words of a Thread.
func thread(w []uint64) Thread {
	return Thread{Tid: int(w[0]), Initial: w[1] == 1, OMP: int(int64(w[2]))}
}

// String names the thread for a report.
func (t Thread) String() string {
	switch {
	case t.OMP > 0:
		return fmt.Sprintf("OpenMP thread %d (thread id %d)", t.OMP, t.Tid)
	case t.Initial:
		return fmt.Sprintf("the main thread (thread id %d)", t.Tid)
	default:
		return fmt.Sprintf("thread id %d, not the process's initial thread", t.Tid)
	}
}

// ThreadLevel is a call that broke the promise of the thread level the
// program got (api.MetaThreadLevel; layer/src/record/levels.c).
type ThreadLevel struct {
	What    int // api.ThreadLevel*
	Call    *api.Call
	PC      uint64 // its call site
	Thread  Thread // the thread that made it
	Other   *api.Call
	OtherPC uint64 // the call another thread was inside (nil: none found)
	Inside  int    // threads inside MPI when it entered
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
	Thread  Thread   // the thread that made the access (Tid 0: not recorded, an overlap)
	After   uint64   // the entry record of the latest call logged before this record (Unknown: none)
}

// Clocks says how the rank tracked causality (the clock protocol).
// Watch says how many nonblocking operations a rank started and how many
// of them the buffer checker watched: past its cost budget it leaves some of
// those of hot call sites unwatched (layer/src/buffers, watching).
type Watch struct {
	Started, Watched uint64
}

// Determinism is what a rank of a deterministic run (--deterministic,
// layer/src/determinism) did, from its MetaDeterminism record at MPI_Finalize.
type Determinism struct {
	Seed, K     uint64
	Wildcards   uint64 // wildcard receives and probes decided by logical time
	Polls       uint64 // Iprobe, Test, Testany, Waitany outcomes decided
	Relaxed     uint64 // deterministic waits given up (a deterministic deadlock): decided on what had arrived
	Control     uint64 // Requests, Answers and ends sent
	Uncovered   uint64 // calls left to the MPI (wildcard Irecv and Sendrecv, Waitsome, Testsome, Testall, persistent, Mprobe)
	LogicalTime uint64 // the rank's logical time at MPI_Finalize
}

type Clocks struct {
	Mode  int    // api.ClocksOff, api.ClocksLamport, api.ClocksVector
	World int    // the rank in MPI_COMM_WORLD
	Off   string // why the protocol is off, when it is
}

// Wildcard kinds (api.Wild*, shared with the layer).
const (
	WildRecv  = api.WildRecv  // a receive with MPI_ANY_SOURCE
	WildProbe = api.WildProbe // a probe with MPI_ANY_SOURCE
	WildAny   = api.WildAny   // a Waitany, Testany, Waitsome or Testsome over several live requests
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
	// Event numbers the events of each thread of a rank apart: the thread's
	// identity (ThreadID.ID, the same in every run; 0 for the process's
	// initial thread) in the high 32 bits, its own count in the low ones.
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

// Thread is the identity of the thread that started w (ThreadID.ID;
// Process.ThreadOf maps a Call.Thread to it).
func (w *Wildcard) Thread() int { return int(w.Event >> 32) }

// N is w's number among its thread's events.
func (w *Wildcard) N() uint64 { return w.Event & 0xffffffff }

// EventName says which event e of a rank is: "event N" for the main
// thread's, "thread T's event N" for another's, T its path (ThreadPath).
func EventName(e uint64) string {
	if e>>32 == 0 {
		return fmt.Sprintf("event %d", e)
	}
	return fmt.Sprintf("thread %s's event %d", ThreadPath(uint32(e>>32)), e&0xffffffff)
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
	Before uint64 // wildcard events the receiving thread started before posting the receive that took it (numbered as Wildcard.Event)
	Offset uint64 // that receive's entry record
	PC     uint64 // the call site of the call that took it
}

// Hold is a receive of one thread that a guided replay held back until
// another thread's forced event matched (layer/src/clocks/holds.c).
type Hold struct {
	Pos      uint64 // the held thread's position: its count of wildcard events then, numbered as Wildcard.Event
	Release  uint64 // the event whose match releases it
	Released bool   // it was released
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

// Declared is a buffer a call gave with a count and datatype
// (layer/src/declared), once per call site, address and datatype: what the
// declared-type check compares with the program's debug information.
type Declared struct {
	Call  *api.Call
	Param int    // the buffer's index in Call.Params
	Addr  uint64 // the buffer's address
	Count int64  // elements of the datatype (-1: counts per rank)
	Sig   uint64 // the datatype's signature (api.Sig*; 0: unknown)
	Named bool   // a predefined datatype: its elements lie one after the other
	Type  uint64 // its handle (Process.Consts names a predefined one)
	PC    uint64 // the call site
	CFA   uint64 // the calling function's canonical frame address (0: not known)
	// Callers: the functions above the calling one, innermost first (a
	// buffer passed down may be one of their locals).
	Callers []Frame
}

// Frame is a function's frame on a rank's stack: the return address into
// it and its canonical frame address.
type Frame struct {
	PC, CFA uint64
}

// Divergence is where a guided replay of a rank stopped following the run it
// replays (layer/src/divergence): at its Index-th compared call it made
// Got at GotPC where the parent run made Want at WantPC (an address in the
// parent process). ParentOffset is that call's entry record in the parent's
// log.
type Divergence struct {
	Index        uint64    // the diverging call's number among its thread's calls compared
	Thread       uint8     // the thread that diverged (Call.Thread; Process.ThreadOf names it)
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
	// Py, when set, makes this a call site of a Python interpreter rather
	// than a mapping of a file: [Start, End) holds the one site the layer
	// gave a Python source line (python/site.c), and Path is the script.
	Py *PySite
}

// PySite is the Python source line of a call made from a Python
// interpreter, and the C return address in the interpreter (or in the
// extension module, mpi4py's) of the first call made there.
type PySite struct {
	File     string // as the interpreter has it (co_filename)
	Line     int
	Function string // co_qualname (co_name before Python 3.11)
	CPC      uint64
}

// Process is everything recorded about one rank.
type Process struct {
	stop     func() bool         // Run.StopWhen
	rmaSpans map[string][]uint64 // the distinct values of RMA, shared
	File     string              // log path
	Host     string
	Pid      int
	Rank     int // -1 until the process initialised MPI
	Size     int
	Level    int // thread support level provided; -1 before MPI is initialised
	Consts   map[uint64][]string
	ConstVal map[string]uint64
	Maps     []Mapping
	// NumCalls is how many calls the rank logged (Calls reads them).
	NumCalls int
	// Windows: the rank logged a one-sided call (api.Call rma: a window's
	// creation, synchronisation or communication).
	Windows   bool
	Signal    *Signal
	Caught    *Signal    // the last crash signal the layer handed to a handler of the program's own (api.SignalHandled): the rank may have recovered, or ended in that handler
	Errors    []Error    // errors MPI calls returned to the program, or raised to the fatal handler
	Arguments []Argument // arguments that broke a rule, found before the call (layer/src/arguments)
	Heap      []Heap     // buffers against the heap blocks that hold them (layer/src/heap)
	// ThreadLevels: calls that broke the thread level's promise.
	ThreadLevels []ThreadLevel
	Buffers      []BufferAccess
	Watch        *Watch // how many operations the buffer checker watched (nil: none started, or no MPI_Finalize)
	Clocks       *Clocks
	Determinism  *Determinism // a deterministic run's statistics (nil: not one, or no MPI_Finalize)
	// Deciding: a thread is inside a call that waits for a deterministic
	// decision (api.StatusDeciding); it is not blocked.
	Deciding bool
	// Asleep: the threads of the live process that the stall watch saw
	// asleep outside MPI for good, or running outside it
	// (launch/threads.go); nil if it did not look (no thread inside MPI,
	// another host, /proc not readable).
	Asleep *Asleep
	// Wild: the wildcard events in the order they started. Events are
	// numbered per thread (Wildcard.Event): with one thread calling MPI,
	// Wild[e] is event e. WildEvent finds one by number.
	Wild []*Wildcard
	// Slots: the state page's slots taken, one per thread that called MPI
	// (the last shared by threads past the eighth), ended threads included.
	Slots int
	// ThreadSlots and Joining go with Threads: the state slot of each
	// thread, and the slot of the thread it waits for in pthread_join
	// (api.StatusJoining), or -1.
	ThreadSlots, Joining []int
	wildAt               map[uint64]int    // index in Wild of the events of threads other than the first
	wildNext             map[uint32]uint64 // next event number of each thread but the first
	wild0                uint64            // ... and of the first
	Late                 []Late
	// Holds are the hold-backs of a guided replay (api.MetaHeld) that held
	// one of the rank's receives, in the order they began.
	Holds      []Hold
	Arrivals   map[uint64]Arrival // by Cand.Serial
	Types      []TypeMismatch
	Declared   []Declared
	Unreceived []Unreceived
	// RMA is what the layer's rma service added to one-sided calls
	// (api.MetaRMA), by the offset of the call's entry record: the words
	// api.RMA* of a communication call, or a PSCW group's size and world
	// ranks.
	RMA map[uint64][]uint64
	// RMAValues: at a closing MPI_Win_fence, bytes of this rank's window
	// that a Put of the epoch wrote held another value than the Put sent
	// (api.MetaRMAValue; layer/src/rma/values.c).
	RMAValues []RMAValue
	Overflow  bool
	// WriteErrno: the log ended because its file system refused it room
	// (ENOSPC, EDQUOT, EIO: the end marker's word), not at its size bound.
	WriteErrno int
	Cut        bool        // its first reading was stopped (ReadRunUntil): it ends where the reading got to
	Diverged   *Divergence // a guided replay made another call than its parent run did
	Exit       *Exit       // from the supervisor; nil if it left none (killed)
	Stderr     string      // what the rank wrote on its standard error (first MiB)
	End        int64       // end of the last whole record in the log
	vend       uint64      // virtual offset past the last record (repeats expanded: layer/src/record/fold.c)
	// Sum is the CRC32C of the log's bytes before End (its first reading
	// computes it), which the exit record's LogCRC must equal.
	Sum    uint32
	notLog bool // the log has no magic: read as a process without records
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

	// What the first reading of the log kept of its calls (Calls reads
	// them again): the last, the last MPI_Finalize (and the last that
	// returned), the last MPI_Abort, whether an initialisation returned,
	// and checkpoints.
	data           []byte // the log, if decoded from memory
	last, finalize *Call
	abort          *Call
	finalized      *Call
	initReturned   bool
	marks          []mark
	mu             sync.Mutex
	pinned         map[uint64]*Call // CallAt's, by offset
	read           atomic.Uint64    // records decoded (RecordsRead)

	// ThreadIDs: who each thread other than the first is, by its number
	// in the record headers (api.MetaThread; ThreadOf).
	ThreadIDs map[uint8]ThreadID
}

// RecordsRead returns how many records the readings of the rank's log
// decoded so far (the first reading, Calls, CallAt), each record of a
// repetition counted each time it was given: the analysis's work.
func (p *Process) RecordsRead() uint64 { return p.read.Load() }

// Const returns the value of a predefined constant and whether the MPI defines it.
func (p *Process) Const(name string) (uint64, bool) {
	v, ok := p.ConstVal[name]
	return v, ok
}

// Last returns the last call the rank made (the one it may still be in), or nil.
func (p *Process) Last() *Call {
	if p.Current != nil {
		return p.Current
	}
	return p.last
}

// Initialized reports whether the rank initialised MPI (by whatever binding).
func (p *Process) Initialized() bool {
	if p.Level >= 0 {
		return true
	}
	// The state page may say the last call returned (readState).
	return p.initReturned || (p.last != nil && p.last.Def.Has("init") && p.last.Returned)
}

// Finalized reports whether the rank returned from MPI_Finalize.
func (p *Process) Finalized() bool { return p.finalizeCall(true) != nil }

// AbortCall returns the rank's last MPI_Abort call, or nil.
func (p *Process) AbortCall() *Call { return p.abort }

// FinalizeCall returns the rank's MPI_Finalize call, or nil.
func (p *Process) FinalizeCall() *Call { return p.finalizeCall(false) }

func (p *Process) finalizeCall(returned bool) *Call {
	if returned && (p.finalize == nil || !p.finalize.Returned) {
		return p.finalized // (the state page may say the last returned)
	}
	return p.finalize
}

// RMAValue is one Put whose bytes at the target differed, at the fence
// that closed its epoch, from what its origin sent.
type RMAValue struct {
	Fence  uint64 // the target's closing MPI_Win_fence (entry record offset)
	Origin int    // the Put's origin (world rank)
	Put    uint64 // the Put's entry record offset in the origin's log
	Off    int64  // the bytes, from the target's window base
	Bytes  int64
}
