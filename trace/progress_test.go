package trace

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"mpivet/api"
)

// writeSlot writes one state page of a single slot: status, the progress
// and polls counts, and the call it is in (logged at ref, or inline).
func writeSlot(t *testing.T, path string, status, progress, polls, ref uint64, inline string) {
	w := make([]uint64, api.StateWords*api.StateSlots)
	w[api.StateStatus], w[api.StateProgress], w[api.StatePolls], w[api.StateLogRef] = status, progress, polls, ref
	if inline != "" {
		c := api.MPI.ByName[inline]
		w[api.StateRecord] = uint64(c.ID)<<32 | 16
	}
	b := make([]byte, 8*len(w))
	for i, v := range w {
		binary.LittleEndian.PutUint64(b[8*i:], v)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Polls that found nothing are no progress, and a rank inside one is not
// inside MPI: a rank polling in a loop must not keep a run whose other
// ranks hang from looking stalled.
func TestProgressLeavesOutPolls(t *testing.T) {
	dir := t.TempDir()
	host, _ := os.Hostname()
	a := filepath.Join(dir, "p."+host+".1.state")
	b := filepath.Join(dir, "p."+host+".2.state")
	writeSlot(t, a, 1, 10, 0, 0x40, "")                  // in a logged call, 10 calls done
	writeSlot(t, b, 1, 1000, 990, Unknown, "MPI_Iprobe") // polling: 10 calls and 990 empty polls
	pr := ReadProgress(dir)
	if pr.Calls != 20 || pr.InMPI != 1 || pr.Outside != 1 {
		t.Fatalf("calls %d, in MPI %d, outside %d; want 20, 1, 1", pr.Calls, pr.InMPI, pr.Outside)
	}
	writeSlot(t, b, 2, 1500, 1490, Unknown, "MPI_Iprobe") // 500 more empty polls, back outside
	if pr2 := ReadProgress(dir); pr2.Calls != pr.Calls || pr2.InMPI != 1 {
		t.Fatalf("after polls that found nothing: calls %d (was %d), in MPI %d", pr2.Calls, pr.Calls, pr2.InMPI)
	}
	writeSlot(t, b, 2, 1501, 1490, 0x80, "") // a poll that found something is logged, and counts
	if pr3 := ReadProgress(dir); pr3.Calls != pr.Calls+1 {
		t.Fatalf("a logged call: calls %d, want %d", pr3.Calls, pr.Calls+1)
	}
}
