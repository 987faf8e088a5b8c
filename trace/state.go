package trace

import (
	"mpivet/api"
	"os"
	"path/filepath"
	"strings"
)

// readState reads the state page. A slot read while its thread writes it is
// read again; one left half-written by a rank that died is taken as it is.
func (p *Process) readState(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	for slot := 0; slot < api.StateSlots; slot++ {
		c, progress, polls, status, ok := p.readSlot(f, int64(slot*api.StateWords*8))
		if !ok {
			break
		}
		p.Progress += progress
		p.Polls += polls
		p.Slots++
		if c != nil && status != api.StatusEnded {
			joins := -1
			if status&0xff == api.StatusJoining {
				joins = int(status >> 8)
			}
			p.Threads = append(p.Threads, c)
			p.ThreadSlots = append(p.ThreadSlots, slot)
			p.Joining = append(p.Joining, joins)
		}
	}
	if len(p.Threads) > 0 {
		p.Current = p.Threads[0]
	}
}

func (p *Process) readSlot(f *os.File, at int64) (c *Call, progress, polls, status uint64, ok bool) {
	buf := make([]byte, api.StateWords*8)
	var w [api.StateWords]uint64
	for try := 0; try < 100; try++ {
		if n, _ := f.ReadAt(buf, at); n < len(buf) {
			return nil, 0, 0, 0, false
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
	status = w[api.StateStatus]
	if status == api.StatusDeciding {
		p.Deciding = true
	}
	if status == 0 {
		return nil, 0, 0, 0, false
	}
	if ref := w[api.StateLogRef]; ref != Unknown {
		c = p.CallAt(ref)
	} else {
		h := w[api.StateRecord]
		size, id := h&0xffffffff, int(h>>32&0xffff)
		n := int(size/8) - 1
		if id < len(api.MPI.Calls) && n >= 1 && api.StateRecord+1+n <= api.StatePolls {
			words := w[api.StateRecord+1 : api.StateRecord+1+n]
			c = &Call{Def: api.MPI.Calls[id], Seq: -1, Offset: Unknown, PC: words[0], in: decodeFields(api.MPI.Calls[id].In, words[1:])}
		}
	}
	if c != nil && (status == 2 || status == api.StatusEnded || status&0xff == api.StatusJoining) && !c.Returned {
		c.Returned, c.RC = true, int32(w[api.StateRC])
		c.out = decodeFields(c.Def.Out, nil)
	}
	return c, w[api.StateProgress], w[api.StatePolls], status, true
}

// Progress is a cheap look at a live run, from its state pages only: the
// MPI calls completed so far by all ranks, and how many processes are inside
// an MPI call or running outside MPI (finished ones count in neither).
//
// Polls that found nothing (MPI_Test, MPI_Iprobe, ... : Call.Poll) are no
// progress, and a thread inside one is counted as outside MPI: they change
// nothing the wait state reads, and a rank polling in a loop (a server
// waiting for requests, MPI's own progress loop through a binding) kept a
// run whose other ranks hung in a collective or a one-sided call from ever
// looking stalled, until the time limit. A poll that did something is
// logged, and counts.
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
	buf := make([]byte, 8*api.StateWords)
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
			pr.Calls += le.Uint64(buf[api.StateProgress*8:]) - le.Uint64(buf[api.StatePolls*8:])
			in = in || le.Uint64(buf[api.StateStatus*8:]) == 1 && !inPoll(buf)
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

// inPoll reports whether the thread of a state page's slot (words in buf)
// is inside a poll: its entry record is inline (not logged) and is a poll's.
func inPoll(buf []byte) bool {
	if le.Uint64(buf[api.StateLogRef*8:]) != Unknown {
		return false
	}
	id := int(le.Uint64(buf[api.StateRecord*8:]) >> 32 & 0xffff)
	return id < len(api.MPI.Calls) && api.MPI.Calls[id].Poll()
}
