package corpus

import (
	"path/filepath"
	"strings"
	"testing"

	"mpivet/trace"
)

// A thread's identity is the same in every run of an exploration: the
// threads of rank 0 of thread_multiple_identity_clean.c reach MPI in a
// random order (their numbers in the records differ from run to run), but
// in the first run and in every replay the thread that receives tag t is
// thread t, and a replay's forced events are the receives of the threads
// its decisions name.
func TestThreadIdentityAcrossRuns(t *testing.T) {
	parallel(t)
	underEachMPI(t, "thread_multiple_identity_clean.c", func(t *testing.T, bin, dir string) {
		out, code := mpivet(t, "run", "-n", "3", "--timeout", "60s", "--keep-records", "--dir", dir, bin)
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		dirs, _ := filepath.Glob(filepath.Join(dir, "interleaving-*"))
		if len(dirs) < 3 {
			t.Fatalf("%d replays, want every thread's first receive forced:\n%s", len(dirs), out)
		}
		renumbered, forced := 0, 0
		for _, d := range append([]string{dir}, dirs...) {
			run, err := trace.ReadRun(d)
			if err != nil {
				t.Fatal(err)
			}
			recvs := 0
			for _, p := range run.Procs {
				if p.Rank != 0 {
					continue
				}
				for c := range p.Calls() {
					if c.Name() != "MPI_Recv" {
						continue
					}
					recvs++
					tag, id := c.Int("tag"), p.ThreadOf(c.Thread)
					if int64(id) != tag {
						t.Errorf("%s: the thread that receives tag %d is thread %s", d, tag, trace.ThreadPath(id))
					}
					if int64(c.Thread) != tag {
						renumbered++
					}
				}
				for _, w := range p.Wild {
					if w.Forced >= 0 {
						forced++
						if int64(w.Thread()) != w.Tag {
							t.Errorf("%s: %s forced, a receive of tag %d", d, trace.EventName(w.Event), w.Tag)
						}
					}
				}
			}
			if recvs != 6 {
				t.Errorf("%s: rank 0 logged %d receives, want 6 (of %d processes)", d, recvs, len(run.Procs))
			}
		}
		if forced == 0 {
			t.Error("no replay forced a receive")
		}
		t.Logf("%d runs, %d receives by a thread whose number in the records is not its identity", len(dirs)+1, renumbered)
	})
}

// A replay of a rank whose threads call MPI is compared with its parent
// run thread by thread: thread_multiple_diverge.c's thread 2 makes another
// number of calls in every run, before thread 1's forced receive; the
// replay is stopped as diverged and the thread named. With the same calls
// in every run ("fixed"), the threads reach MPI in either order and no
// replay diverges.
func TestThreadDivergence(t *testing.T) {
	parallel(t)
	src := filepath.Join("..", "testdata", "replay", "thread_multiple_diverge.c")
	for _, m := range available(t) {
		t.Run(m.name, func(t *testing.T) {
			tmp := t.TempDir()
			bin := filepath.Join(tmp, "thread_multiple_diverge")
			compile(t, m, src, bin)
			p := &Program{NP: 3, Timeout: "60s", Args: []string{filepath.Join(tmp, "stamp")}}
			r, out, code := RunMpivet(t, p, bin, "--buffering-check=false", "--files=off")
			if code != 3 || r.Verdict != "incomplete" || r.Coverage.Diverged < 1 || r.Coverage.TimedOut != 0 || len(r.Findings) != 0 ||
				!strings.Contains(out, "rank 0, thread 2, at its call 2 ") || !strings.Contains(out, "made MPI_Ssend") {
				t.Fatalf("ticks counted: exit %d, verdict %s, coverage %+v:\n%s", code, r.Verdict, r.Coverage, out)
			}
			p.Args = append(p.Args, "fixed")
			r, out, code = RunMpivet(t, p, bin, "--buffering-check=false", "--files=off")
			if code != 0 || r.Verdict != "ok" || r.Coverage.Diverged != 0 || r.Interleavings != 2 {
				t.Fatalf("fixed: exit %d, verdict %s, %d interleavings, coverage %+v:\n%s", code, r.Verdict, r.Interleavings, r.Coverage, out)
			}
		})
	}
}
