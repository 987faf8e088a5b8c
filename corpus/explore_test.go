package corpus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Vector clocks find the potential match Lamport clocks miss on a program of
// the kind of seed 000, Fig. 5.3 (the corpus checks that Lamport clocks find
// 1 interleaving); on an ordinary program both find the same ones.
func TestVectorClocks(t *testing.T) {
	parallel(t)
	underEachMPI(t, "lvcp_omission.c", func(t *testing.T, bin, dir string) {
		if strings.Contains(t.Name(), "mpich") {
			t.Skip("5 ranks: Open MPI only (MPICH busy-polls)")
		}
		if r, out, _ := RunMpivet(t, &Program{NP: 5, Timeout: "60s"}, bin, "--clocks=vector"); r.Interleavings != 2 || r.Verdict != "ok" {
			t.Errorf("vector clocks: %d interleavings (%s), want 2:\n%s", r.Interleavings, r.Verdict, out)
		}
	})
	underEachMPI(t, "wildcard_master_worker.c", func(t *testing.T, bin, dir string) {
		for _, clocks := range []string{"lamport", "vector"} {
			p := &Program{NP: 3, Timeout: "60s", Args: []string{"4"}}
			if r, out, _ := RunMpivet(t, p, bin, "--clocks="+clocks); r.Interleavings != 8 || r.Verdict != "ok" {
				t.Errorf("--clocks=%s: %d interleavings (%s), want 8:\n%s", clocks, r.Interleavings, r.Verdict, out)
			}
		}
	})
}

// A finding in a replayed interleaving can be reproduced alone with
// mpivet replay, which forces every wildcard event of that interleaving.
func TestReplay(t *testing.T) {
	parallel(t)
	underEachMPI(t, "fig1_1_crooked_barrier.c", func(t *testing.T, bin, dir string) {
		out, code := mpivet(t, "run", "-n", "3", "--timeout", "60s", "--no-color", "--dir", dir, bin)
		if code != 1 || !strings.Contains(out, "interleaving 2:") || !strings.Contains(out, "mpivet replay") {
			t.Fatalf("run: exit %d:\n%s", code, out)
		}
		for i := 0; i < 2; i++ { // the same interleaving every time
			js := filepath.Join(t.TempDir(), "replay.json")
			out, code = mpivet(t, "replay", dir, "--interleaving", "2", "--no-color", "--json", js)
			data, _ := os.ReadFile(js)
			var r Report
			json.Unmarshal(data, &r)
			if code != 1 || r.Interleavings != 1 || len(r.Findings) != 1 || r.Findings[0].Kind != "program-failure" {
				t.Fatalf("replay: exit %d, report %+v:\n%s", code, r, out)
			}
		}
		if out, code := mpivet(t, "replay", dir, "--interleaving", "1", "--no-color"); code != 0 {
			t.Errorf("replay of interleaving 1: exit %d:\n%s", code, out)
		}
		if out, code := mpivet(t, "replay", dir, "--interleaving", "9"); code != 2 || !strings.Contains(out, "no interleaving 9") {
			t.Errorf("replay of a missing interleaving: exit %d:\n%s", code, out)
		}
		refusesDamage(t, dir)
	})
}

// A replay that takes another path than the run it replays, for reasons
// outside MPI (here a file the first run left, with --files=off), is
// stopped as soon as a rank's calls differ, counted as diverged and
// explained, instead of waiting for the time limit; the verdict says the
// exploration is incomplete. With --replay-hook removing the file, replays
// repeat the first run and the exploration completes; and so they do with
// no hook by default, mpivet restoring the files itself.
func TestReplayDivergence(t *testing.T) {
	parallel(t)
	src := filepath.Join("..", "testdata", "replay", "replay_diverges.c")
	for _, m := range available(t) {
		t.Run(m.name, func(t *testing.T) {
			tmp := t.TempDir()
			bin := filepath.Join(tmp, "replay_diverges")
			compile(t, m, src, bin)
			stamp := filepath.Join(tmp, "stamp")
			p := &Program{NP: 3, Timeout: "120s", Args: []string{stamp}}
			r, out, code := RunMpivet(t, p, bin, "--buffering-check=false", "--files=off")
			if code != 3 || r.Verdict != "incomplete" || r.Coverage.Diverged < 1 || r.Coverage.TimedOut != 0 || len(r.Findings) != 0 ||
				!strings.Contains(out, "diverged") || !strings.Contains(out, "--replay-hook") || !strings.Contains(out, "MPI_Irecv") {
				t.Fatalf("without the hook: exit %d, verdict %s, coverage %+v:\n%s", code, r.Verdict, r.Coverage, out)
			}
			os.Remove(stamp)
			r, out, code = RunMpivet(t, p, bin, "--buffering-check=false", "--replay-hook", "rm -f "+stamp)
			if code != 0 || r.Verdict != "ok" || r.Coverage.Diverged != 0 || r.Interleavings != 2 {
				t.Fatalf("with the hook: exit %d, verdict %s, %d interleavings, coverage %+v:\n%s", code, r.Verdict, r.Interleavings, r.Coverage, out)
			}
			os.Remove(stamp)
			r, out, code = RunMpivet(t, p, bin, "--buffering-check=false")
			if _, err := os.Stat(stamp); code != 0 || r.Verdict != "ok" || r.Coverage.Diverged != 0 || r.Interleavings != 2 || err != nil {
				t.Fatalf("files restored: exit %d, verdict %s, %d interleavings, coverage %+v, stamp after the run: %v:\n%s",
					code, r.Verdict, r.Interleavings, r.Coverage, err, out)
			}
			// a stamp a child process writes is not restored: the note says
			// the replay diverged despite the files restored
			os.Remove(stamp)
			p.Args = []string{stamp, "child"}
			r, out, code = RunMpivet(t, p, bin, "--buffering-check=false")
			if code != 3 || r.Coverage.Diverged < 1 || !strings.Contains(out, "outside the files mpivet restores") ||
				!strings.Contains(out, "child processes") || !strings.Contains(out, "--replay-hook") {
				t.Fatalf("stamp of a child process: exit %d, coverage %+v:\n%s", code, r.Coverage, out)
			}
		})
	}
}

// A replay that diverges for a reason met once (here the one run that
// claims a file) is counted as diverged, and the exploration goes on with
// the others, which repeat the first run: no place is taken for timing
// dependent, nothing is left out as not replayable.
func TestOneOffDivergence(t *testing.T) {
	parallel(t)
	src := filepath.Join("..", "testdata", "replay", "diverge_once.c")
	for _, m := range available(t) {
		t.Run(m.name, func(t *testing.T) {
			tmp := t.TempDir()
			bin := filepath.Join(tmp, "diverge_once")
			compile(t, m, src, bin)
			p := &Program{NP: 3, Timeout: "120s", Args: []string{filepath.Join(tmp, "mark")}}
			r, out, code := RunMpivet(t, p, bin, "--buffering-check=false", "--files=off")
			if code != 3 || r.Coverage.Diverged != 1 || r.Coverage.NotReplayable != 0 || r.Interleavings < 4 ||
				strings.Contains(r.Stopped, "timing") || len(r.Findings) != 0 {
				t.Fatalf("exit %d, %d interleavings, coverage %+v, stopped %q:\n%s", code, r.Interleavings, r.Coverage, r.Stopped, out)
			}
		})
	}
}
