package corpus

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"syscall"
	"testing"

	"mpivet/trace"
)

// A program that polls millions of times (MPI_Testany and MPI_Iprobe,
// like HPCC's RandomAccess) costs records and memory for what its polls
// do, not for how many there are: polls that find nothing are
// counted in the state page, not logged, and the analysis reads only what
// was logged.
func TestPollingBounded(t *testing.T) {
	parallel(t)
	const (
		rounds, per = 100, 10000
		polls       = 2*rounds*per + 3*rounds // per rank: a Testany and an Iprobe per step, 3 more per round
		maxRecords  = 1 << 20                 // bytes of records, all ranks
		maxRSS      = 100 << 20               // bytes: mpivet, or anything it waited for
	)
	for _, m := range available(t) {
		t.Run(m.name, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "polls")
			compile(t, m, filepath.Join("..", "bench", "programs", "polls.c"), bin)
			// A first, short run builds the layer if it is not cached: the
			// compiler is a child of mpivet too, and takes more memory
			// than what is measured.
			if out, err := exec.Command(mpivetBin, "run", "-n", "2", "--dir", filepath.Join(dir, "warm"), bin, "1", "1").CombinedOutput(); err != nil {
				t.Fatalf("mpivet: %v\n%s", err, out)
			}
			run := filepath.Join(dir, "run")
			cmd := exec.Command(mpivetBin, "run", "-n", "2", "--max-interleavings", "1", "--buffering-check=false",
				"--dir", run, "--no-color", bin, strconv.Itoa(rounds), strconv.Itoa(per))
			// The Go runtime's pace lets the heap overshoot its goal while
			// the machine is loaded (54-102 MiB seen for the same run): a
			// soft limit of half the bound keeps mpivet's heap near what is
			// live, which is what would grow with the polls.
			cmd.Env = append(os.Environ(), "GOMEMLIMIT=48MiB")
			out, err := cmd.CombinedOutput()
			// (exit 3: --max-interleavings=1 leaves the program's Testany
			// outcomes unexplored, so the verdict is incomplete)
			if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 3) {
				t.Fatalf("mpivet: %v\n%s", err, out)
			}
			res, _ := os.ReadFile(filepath.Join(run, "output.txt"))
			if m := regexp.MustCompile(`polls=(\d+) completed=\d+ bad=(\d+)`).FindStringSubmatch(string(res)); m == nil || m[1] != strconv.Itoa(polls) || m[2] != "0" {
				t.Fatalf("program output %q (want %d polls, bad=0)\n%s", res, polls, out)
			}

			r, err := trace.ReadRun(run)
			if err != nil {
				t.Fatal(err)
			}
			var records int64
			for _, p := range r.Procs {
				records += p.End
				// Every poll is either logged (it did something) or counted.
				logged := uint64(0)
				for c := range p.Calls() {
					if c.Def.Poll() {
						logged++
					}
				}
				if p.Polls+logged != polls {
					t.Errorf("rank %d: %d polls counted and %d logged, want %d in all", p.Rank, p.Polls, logged, polls)
				}
			}
			if records > maxRecords {
				t.Errorf("%d bytes of records for %d polls per rank, want at most %d", records, polls, maxRecords)
			}
			if du := diskUsage(t, run); du > maxRecords {
				t.Errorf("the run directory takes %d bytes on disk, want at most %d", du, maxRecords)
			}
			// ru_maxrss of a waited-for child covers its own waited-for
			// children too: mpivet, the launcher and the ranks.
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); !ok {
				t.Error("no resource usage")
			} else if rss := ru.Maxrss << 10; rss > maxRSS {
				t.Errorf("peak memory %d MiB, want at most %d MiB", rss>>20, maxRSS>>20)
			} else {
				t.Logf("%d bytes of records, %d on disk, peak memory %d MiB", records, diskUsage(t, run), rss>>20)
			}
		})
	}
}

// diskUsage is what du says of dir: the blocks its files take (a log is a
// sparse file, its size is not what it costs).
func diskUsage(t *testing.T, dir string) int64 {
	var n int64
	err := filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			n += st.Blocks * 512
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

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
