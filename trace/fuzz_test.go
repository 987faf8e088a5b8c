package trace

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzDecode decodes a rank's log as ReadRun and every reader of its
// calls do: whatever the bytes, it gives a process or an error, never a
// panic, and the calls it reads again are those it counted.
func FuzzDecode(f *testing.F) {
	f.Add([]byte("MPIVET01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode("p.h.1.log", data)
		if err != nil {
			return
		}
		if p.End < 8 || p.End > int64(len(data)) || p.End%8 != 0 {
			t.Fatalf("records end at %d of %d bytes", p.End, len(data))
		}
		n := 0
		for c := range p.Calls() {
			n++
			c.Name()
			for i := range c.Def.Out {
				c.OutWords(i)
			}
			if again := p.CallAt(c.Offset); again == nil || again.Offset != c.Offset || again.Def != c.Def {
				t.Fatalf("the call at %d read again: %+v, first %+v", c.Offset, again, c)
			}
		}
		if n != p.NumCalls {
			t.Fatalf("%d calls read again, %d counted", n, p.NumCalls)
		}
	})
}

// FuzzExit reads the exit record p.NAME.exit: an Exit of the process it
// names, or an error saying it is damaged, never a panic.
func FuzzExit(f *testing.F) {
	f.Add("h.7", []byte(`{"host":"h","pid":7,"exited":true,"code":0,"signal":0,"core":false,"forwarded":0,"exec_error":"","time_ns":1}`))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		if strings.ContainsRune(name, '/') {
			return // not a file name
		}
		x, err := parseExit("p."+name+".exit", data)
		if err != nil {
			if !IsDamaged(err) {
				t.Fatalf("not said to be damage: %v", err)
			}
			return
		}
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			if pid, err := strconv.Atoi(name[i+1:]); err == nil && (x.Pid != pid || x.Host != name[:i]) {
				t.Fatalf("the exit record of another process accepted: %+v", x)
			}
		}
	})
}

// FuzzState reads a state page beside a log, as ReadRun does: whatever
// the bytes, the calls it gives are those of the log or of the page
// itself, never a panic.
func FuzzState(f *testing.F) {
	f.Add([]byte("MPIVET01"), make([]byte, 4096))
	f.Fuzz(func(t *testing.T, log, state []byte) {
		p, err := Decode("p.h.1.log", log)
		if err != nil {
			return
		}
		path := filepath.Join(t.TempDir(), "p.h.1.state")
		if err := os.WriteFile(path, state, 0o644); err != nil {
			t.Fatal(err)
		}
		p.readState(path)
		for _, c := range p.Threads {
			c.Name()
			for i := range c.Def.In {
				c.InWords(i)
			}
		}
	})
}
