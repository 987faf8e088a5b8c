package trace_test

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"mpivet/api"
	"mpivet/trace"
)

// Real processes: a thread asleep on a lock without a timeout waits for its
// own process's threads only; one asleep with a timeout, in nanosleep, in
// read on a pipe, or running, does not.
func TestTaskOwnWait(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("no /usr/bin/python3")
	}
	for _, c := range []struct {
		name, code string
		own        bool
	}{
		{"lock", "import threading; threading.Event().wait()", true},
		{"condition", "import threading; c = threading.Condition(); c.acquire(); c.wait()", true},
		{"timed lock", "import threading; threading.Event().wait(100)", false},
		{"nanosleep", "import time; time.sleep(100)", false},
		{"read on a pipe", "import sys; sys.stdin.read()", false},
		{"running", "while True: pass", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command("/usr/bin/python3", "-c", c.code)
			stdin, _ := cmd.StdinPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() }()
			// Python starts in futex waits of its own, briefly: a state
			// held for a while is the one the code is in.
			var wait string
			for i := 0; i < 100; i++ {
				time.Sleep(20 * time.Millisecond)
				tasks, ok := trace.ReadTasks(cmd.Process.Pid, nil)
				if !ok || len(tasks) != 1 {
					t.Fatalf("ReadTasks: %v %v", tasks, ok)
				}
				if w := tasks[0].OwnWait(); i >= 10 && (w != "") == c.own {
					wait = w
					break
				}
			}
			if (wait != "") != c.own {
				t.Errorf("OwnWait %q, want a wait: %v", wait, c.own)
			}
		})
	}
}

// The thread table after the state slots: the slots' thread ids and
// statuses, and the MPI's threads, counted and bounded.
func TestReadThreadTable(t *testing.T) {
	w := make([]byte, api.StateFileWords*8)
	put := func(i int, v uint64) { binary.LittleEndian.PutUint64(w[i*8:], v) }
	put(api.StateStatus, 2)
	put(api.StateWords+api.StateStatus, 1)
	put(api.StateThreads, 100)
	put(api.StateThreads+1, 101)
	put(api.StateLibrary, 2)
	put(api.StateLibrary+1, 102)
	put(api.StateLibrary+2, 103)
	put(api.StateLibrary+3, 104) // past the count
	path := filepath.Join(t.TempDir(), "p.h.1.state")
	os.WriteFile(path, w, 0o644)
	tab, ok := trace.ReadThreadTable(path)
	if !ok || tab.SlotTID[0] != 100 || tab.SlotTID[1] != 101 || tab.SlotStatus[0] != 2 || tab.SlotStatus[1] != 1 ||
		len(tab.Library) != 2 || !tab.Library[102] || !tab.Library[103] {
		t.Errorf("ReadThreadTable = %+v, %v", tab, ok)
	}
	put(api.StateLibrary, 1000) // more threads than the table holds
	os.WriteFile(path, w, 0o644)
	if tab, _ := trace.ReadThreadTable(path); len(tab.Library) > api.StateLibraryMax {
		t.Errorf("%d library threads read, at most %d", len(tab.Library), api.StateLibraryMax)
	}
	os.WriteFile(path, w[:api.StateThreads*8], 0o644) // an earlier version's page
	if _, ok := trace.ReadThreadTable(path); ok {
		t.Error("a state page without a thread table read as one")
	}
}
