package launch

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"mpivet/api"
	"mpivet/trace"
)

// pythonProc starts a real process running code, and waits until its one
// thread has been in the state the code leads to for a while.
func pythonProc(t testing.TB, code string) int {
	t.Helper()
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	cmd := exec.Command("/usr/bin/python3", "-c", code)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	time.Sleep(300 * time.Millisecond)
	return cmd.Process.Pid
}

// A thread outside MPI counts as asleep for good only once it has slept in
// its own process's wait for the whole window; until then, or while it
// runs, it counts as running (the rank may still act), unless it is the
// MPI's own; a thread that sleeps otherwise (nanosleep) is neither.
func TestThreadWatchWindow(t *testing.T) {
	const window = time.Second
	sleeper := pythonProc(t, "import threading; threading.Event().wait()")
	runner := pythonProc(t, "while True: pass")
	var w threadWatch
	t0 := time.Now()
	tab := trace.ThreadTable{Library: map[int]bool{}}
	look := func(pid int, at time.Time) *trace.Asleep {
		last := w.ran
		w.ran = map[[2]int]taskRan{}
		return w.process(pid, tab, last, window, at)
	}
	if a := look(sleeper, t0); a == nil || a.All || len(a.Threads) != 0 || len(a.Running) != 1 {
		t.Fatalf("first look: %+v, want no sleeper before the window, and the thread running", a)
	}
	a := look(sleeper, t0.Add(window))
	if a == nil || !a.All || len(a.Threads) != 1 || a.Threads[0].TID != sleeper || a.Threads[0].Slot != -1 || len(a.Running) != 0 {
		t.Fatalf("after the window: %+v, want the one thread asleep", a)
	}
	look(runner, t0)
	time.Sleep(50 * time.Millisecond)
	if a := look(runner, t0.Add(window)); a == nil || a.All || len(a.Threads) != 0 || len(a.Running) != 1 || a.Running[0] != runner {
		t.Fatalf("running: %+v, want it running", a)
	}
	tab.Library[runner] = true // the MPI's own thread: not the program's
	if a := look(runner, t0.Add(2*window)); a == nil || !a.All || len(a.Threads) != 0 || len(a.Running) != 0 {
		t.Fatalf("the MPI's thread: %+v, want it left out", a)
	}
	// A thread inside MPI (its slot's status 1) is the state page's to say.
	tab = trace.ThreadTable{Library: map[int]bool{}}
	tab.SlotTID[0], tab.SlotStatus[0] = runner, 1
	if a := look(runner, t0.Add(3*window)); a == nil || !a.All || len(a.Running) != 0 {
		t.Fatalf("a thread inside MPI: %+v, want it left out", a)
	}
	// Once threads share the last slot, one of no slot that runs may be
	// inside MPI: not counted as running.
	tab = trace.ThreadTable{Library: map[int]bool{}}
	tab.SlotStatus[api.StateSlots-1] = 1
	if a := look(runner, t0.Add(4*window)); a == nil || a.All || len(a.Running) != 0 {
		t.Fatalf("the shared slot taken: %+v, want the thread of no slot not counted as running", a)
	}
	// Asleep with a timeout, no CPU for the window: neither running nor
	// asleep for good.
	napper := pythonProc(t, "import time; time.sleep(100)")
	tab = trace.ThreadTable{Library: map[int]bool{}}
	look(napper, t0)
	if a := look(napper, t0.Add(window)); a == nil || a.All || len(a.Threads) != 0 || len(a.Running) != 0 {
		t.Fatalf("in nanosleep: %+v, want neither running nor asleep for good", a)
	}
}

// What one look at a rank costs, per tick of a stall: go test -run XXX
// -bench ThreadWatch ./launch (a rank of one program thread asleep and
// four threads that are not read: in MPI, or the MPI's).
func BenchmarkThreadWatch(b *testing.B) {
	pid := pythonProc(b, "import threading; threading.Event().wait()")
	tab := trace.ThreadTable{Library: map[int]bool{1: true, 2: true}}
	tab.SlotTID[1], tab.SlotStatus[1] = 3, 1
	tab.SlotTID[2], tab.SlotStatus[2] = 4, 1
	var w threadWatch
	now := time.Now()
	for i := 0; i < b.N; i++ {
		last := w.ran
		w.ran = map[[2]int]taskRan{}
		if a := w.process(pid, tab, last, 0, now); a == nil {
			b.Fatal("not read")
		}
	}
}
