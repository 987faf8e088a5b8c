package trace

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"mpivet/api"
)

// Asleep is what the stall watch saw of a live process's threads outside
// MPI (launch/threads.go): those asleep in a wait that only another thread
// of the process can end, and that have not run for the stall's delay, and
// those that ran during it.
type Asleep struct {
	// All: every thread of the process that is neither inside MPI (or in
	// pthread_join, which the state page says) nor one of the MPI's own
	// is among Threads.
	All     bool
	Threads []SleepingThread
	// Running: the kernel ids of the threads of the process, neither
	// inside MPI nor the MPI's own, that were running or had CPU time
	// during the stall's delay (or were first seen less than that ago),
	// whether or not they ever called MPI: the rank may still act.
	Running []int
}

// SleepingThread is one thread asleep outside MPI.
type SleepingThread struct {
	TID  int
	Slot int    // its state slot, if it has called MPI, or -1
	Wait string // the wait, as the system call and its operation ("futex FUTEX_WAIT_BITSET")
	// Stack: return addresses found on its stack, innermost first, outside
	// the C library and the dynamic loader (TaskStack).
	Stack []uint64
	SP    uint64 // its stack pointer
}

// ThreadTable is the state file's table of threads (api.StateThreads):
// the kernel id of each slot's thread (0 unknown), the status of each slot,
// and the kernel ids of the MPI's own threads.
type ThreadTable struct {
	SlotTID    [api.StateSlots]int
	SlotStatus [api.StateSlots]uint64
	Library    map[int]bool
}

// ReadThreadTable reads the thread table of a state file; false if the
// file has none (written by an earlier version, or not readable).
func ReadThreadTable(path string) (ThreadTable, bool) {
	t := ThreadTable{Library: map[int]bool{}}
	b, err := os.ReadFile(path)
	if err != nil || len(b) < api.StateFileWords*8 {
		return t, false
	}
	word := func(i int) uint64 { return binary.LittleEndian.Uint64(b[i*8:]) }
	for s := 0; s < api.StateSlots; s++ {
		t.SlotTID[s] = int(word(api.StateThreads + s))
		t.SlotStatus[s] = word(s*api.StateWords + api.StateStatus)
	}
	n := int(min(word(api.StateLibrary), api.StateLibraryMax))
	for i := 0; i < n; i++ {
		t.Library[int(word(api.StateLibrary+1+i))] = true
	}
	return t, true
}

// Task is what /proc says of one thread of a live process of this host.
type Task struct {
	TID   int
	State byte   // as in /proc/PID/task/TID/stat
	Ran   uint64 // its CPU time in nanoseconds (schedstat, or user and system time)
	// Syscall is the system call the thread sleeps in, or -1 when it runs;
	// Args its arguments, SP and PC its user stack pointer and program
	// counter (/proc/PID/task/TID/syscall).
	Syscall int
	Args    [6]uint64
	SP, PC  uint64
}

// ReadTasks reads the threads of process pid but those skip leaves out
// (nil: none); false if /proc does not show them (another host, another
// user's process, or ended).
func ReadTasks(pid int, skip func(tid int) bool) ([]Task, bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	var out []Task
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil || skip != nil && skip(tid) {
			continue
		}
		t, ok := readTask(filepath.Join(dir, e.Name()), tid)
		if !ok {
			return nil, false // ended meanwhile, or not readable: no verdict on this process
		}
		out = append(out, t)
	}
	return out, true
}

func readTask(dir string, tid int) (Task, bool) {
	t := Task{TID: tid, Syscall: -1}
	sc, ok := readSched(dir)
	line, err := os.ReadFile(dir + "/syscall")
	if !ok || err != nil {
		return t, false
	}
	t.State, t.Ran = sc.State, sc.Ran
	return t.parseSyscall(string(line)), true
}

// parseSyscall reads a /proc/PID/task/TID/syscall line: "running", or the
// number, six arguments, the stack pointer and the program counter
// ("-1 SP PC": blocked, but not in a system call).
func (t Task) parseSyscall(s string) Task {
	f := strings.Fields(s)
	if len(f) != 9 {
		return t
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return t
	}
	var w [8]uint64
	for i := range w {
		if w[i], err = strconv.ParseUint(strings.TrimPrefix(f[i+1], "0x"), 16, 64); err != nil {
			return t
		}
	}
	t.Syscall = n
	copy(t.Args[:], w[:6])
	t.SP, t.PC = w[6], w[7]
	return t
}

// The futex operations that wait (linux/futex.h), by their command.
var futexWaits = map[uint64]string{
	0:  "FUTEX_WAIT",
	6:  "FUTEX_LOCK_PI",
	9:  "FUTEX_WAIT_BITSET",
	11: "FUTEX_WAIT_REQUEUE_PI",
	13: "FUTEX_LOCK_PI2",
}

const (
	futexPrivate  = 128 // FUTEX_PRIVATE_FLAG: the futex is the process's own
	futexRealtime = 256 // FUTEX_CLOCK_REALTIME
)

// OwnWait says, for a thread asleep in a wait that only another thread of
// its own process can end, what the wait is: futex with a waiting operation
// on a process-private futex (pthread_cond_wait, pthread_mutex_lock,
// sem_wait and pthread_barrier_wait on objects not shared between
// processes, OpenMP's barriers), with no timeout. Anything else (running,
// sleeping with a timeout, in poll, read or any other call that another
// process or the clock can end) is "".
func (t Task) OwnWait() string {
	if t.Syscall != syscall.SYS_FUTEX || t.State != 'S' {
		return ""
	}
	op := t.Args[1]
	name, ok := futexWaits[op&^(futexPrivate|futexRealtime)]
	if !ok || op&futexPrivate == 0 || t.Args[3] != 0 {
		return ""
	}
	return "futex " + name
}

// TaskStack returns the return addresses found on the stack of thread tid
// of process pid from its stack pointer sp up (at most 64 KiB, at most
// max), innermost first: the words that point into an executable mapping
// of maps other than the C library's, the dynamic loader's, mpivet's
// layer's and the MPI's (notWaiter), just after a call instruction. It reads the process's memory (/proc/PID/mem: the
// launcher is the ranks' ancestor); nil where it cannot, or off x86-64. A
// stale word of a frame may pass for a return address: the first one is
// the wait's caller unless the C library's frames left one of the
// program's return addresses in their locals.
func TaskStack(pid int, sp uint64, maps []Mapping, max int) []uint64 {
	if runtime.GOARCH != "amd64" || sp == 0 {
		return nil
	}
	mem, err := os.Open("/proc/" + strconv.Itoa(pid) + "/mem")
	if err != nil {
		return nil
	}
	defer mem.Close()
	buf := make([]byte, 64<<10)
	n, _ := mem.ReadAt(buf, int64(sp))
	if n == 0 {
		// the stack's mapping may end sooner: read up to its page end
		n, _ = mem.ReadAt(buf[:4096-sp%4096], int64(sp))
	}
	var out []uint64
	for i := 0; i+8 <= n && len(out) < max; i += 8 {
		a := binary.LittleEndian.Uint64(buf[i:])
		if inCode(maps, a) && afterCall(mem, a) {
			out = append(out, a)
		}
	}
	return out
}

// notWaiter are the modules whose frames are not where a thread outside
// MPI waits: the C library's and the loader's (the wait's own frames), and
// mpivet's layer's and the MPI's (a thread outside MPI runs none of their
// code: a word of theirs on its stack is left by an earlier call).
var notWaiter = []string{"libc.so", "ld-linux", "libpthread", "libmpivet.so", "libmpi", "libopen-", "libpmix", "mca_",
	"libucp", "libucs", "libuct", "libfabric"}

// inCode reports whether a is in an executable mapping of maps that is not
// one of notWaiter's.
func inCode(maps []Mapping, a uint64) bool {
	for _, m := range maps {
		if m.Py == nil && a >= m.Start && a < m.End {
			b := filepath.Base(m.Path)
			for _, n := range notWaiter {
				if strings.HasPrefix(b, n) {
					return false
				}
			}
			return true
		}
	}
	return false
}

// afterCall reports whether the bytes before a are an x86-64 call
// instruction: call rel32 (E8), or call r/m (FF /2) of 2, 3, 6 or 7 bytes.
func afterCall(mem *os.File, a uint64) bool {
	var b [7]byte
	if n, _ := mem.ReadAt(b[:], int64(a-7)); n != 7 {
		return false
	}
	if b[2] == 0xe8 {
		return true
	}
	for _, back := range []int{2, 3, 6, 7} {
		if i := 7 - back; b[i] == 0xff && b[i+1]>>3&7 == 2 {
			return true
		}
	}
	return false
}
