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
// only pages it protects are those of small pending buffers, which the MPI
// writes with its own instructions (the fast path of polls: buffers/
// buffers.h, internal/gen/fastpoll.go): an entry and a return of the
// checker in every poll cost a polling loop twice the native poll. The
// checker counts its entries (MPIVET_BUFFERS_STATS); a rank of
// clean_buffers_polled makes 8,000 polls and some 100 other calls, with a
// small receive pending in every poll.
func TestPollsLeavePagesClosed(t *testing.T) {
	parallel(t)
	src := filepath.Join("..", "testdata", "programs", "clean_buffers_polled.c")
	entries := regexp.MustCompile(`calls:lazy=(\d+) calls:eager=(\d+)`)
	for _, m := range available(t) {
		m := m
		t.Run(m.name, func(t *testing.T) {
			parallel(t)
			bin := filepath.Join(t.TempDir(), "polled")
			compile(t, m, src, bin)
			cmd := exec.Command(mpivetBin, "run", "-n", "2", "--mpi", m.name, "--dir", filepath.Join(t.TempDir(), "run"), bin)
			cmd.Env = append(os.Environ(), "MPIVET_BUFFERS_STATS=1")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("mpivet run: %v\n%s", err, out)
			}
			if !regexp.MustCompile(`all polls, 0 wrong`).Match(out) {
				t.Fatalf("the program did not make its polls or received wrong data:\n%s", out)
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
