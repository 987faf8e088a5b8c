package corpus

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// A poll that finds nothing must not enter the buffer checker when the
// MPI reaches the pages it protects only with its own instructions or
// through system calls the layer sees (the fast path of polls: buffers/
// buffers.h, internal/gen/fastpoll.go): an entry and a return of the
// checker in every poll cost a polling loop twice the native poll, and
// with large buffers two mprotect calls per poll, which made the checker's
// cost budget stop watching half of them. The checker counts its entries
// and the buffers it watched (MPIVET_BUFFERS_STATS); a rank of
// clean_buffers_polled makes at least 8,000 polls and some 100 other
// calls, with a receive of 2 KB or 64 KB pending in every poll.
func TestPollsLeavePagesClosed(t *testing.T) {
	parallel(t)
	src := filepath.Join("..", "testdata", "programs", "clean_buffers_polled.c")
	entries := regexp.MustCompile(`calls:lazy=(\d+) calls:eager=(\d+)`)
	for _, m := range append(available(t), openMPI5) {
		m := m
		t.Run(m.name, func(t *testing.T) {
			parallel(t)
			if m.setup != nil {
				m = m.setup(t) // Open MPI 5: its sm transport copies through smsc/cma
			}
			bin := filepath.Join(t.TempDir(), "polled")
			compile(t, m, src, bin)
			cmd := exec.Command(mpivetBin, "run", "-n", "2", "--dir", filepath.Join(t.TempDir(), "run"), bin)
			cmd.Env = append(append(os.Environ(), m.env...), "MPIVET_BUFFERS_STATS=1")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("mpivet run: %v\n%s", err, out)
			}
			if !regexp.MustCompile(`all polls, 0 wrong`).Match(out) {
				t.Fatalf("the program did not make its polls or received wrong data:\n%s", out)
			}
			if w := regexp.MustCompile(`watched=(\d+)/(\d+)`).FindAllSubmatch(out, -1); len(w) != 2 || string(w[0][1]) != string(w[0][2]) || string(w[1][1]) != string(w[1][2]) {
				t.Errorf("the checker did not watch every buffer:\n%s", out)
			}
			ms := entries.FindAllSubmatch(out, -1)
			if len(ms) != 2 {
				t.Fatalf("want the checker's statistics of 2 ranks:\n%s", out)
			}
			for _, s := range ms {
				lazy, _ := strconv.Atoi(string(s[1]))
				eager, _ := strconv.Atoi(string(s[2]))
				if lazy+eager > 1000 {
					t.Errorf("a rank entered the buffer checker %d times (%d lazily) in at least 8,000 polls and ~100 other calls: polls that found nothing entered it\n%s", lazy+eager, lazy, out)
				}
			}
		})
	}
}
