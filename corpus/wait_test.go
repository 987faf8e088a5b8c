package corpus

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// Under --wait sleep the layer makes the program's blocking calls their
// nonblocking form and a test loop that sleeps (layer/src/wait); the
// program, the records and every check must see the same calls as under
// the MPI's own wait (spin). Programs with wildcard races (Recv, Waitany),
// deadlocks (Recv, Waitall), a buffer check and the zero-buffering check
// (Send made synchronous) are explored in both modes: the same verdict,
// interleavings, coverage, findings and set of outcomes. And the mode is
// in effect: layer.conf says so, and in the programs that deadlock ranks
// slept (the layer's count, through MPIVET_TIMING, which only ranks that
// exit report: not those mpivet kills in a deadlock, but their peers in
// the other interleaving, waiting for them), those under spin never.
func TestWaitSleepSameReport(t *testing.T) {
	parallel(t)
	progs := []string{"wildcard_master_worker.c", "waitany_order.c", "fig2_7_wildcard_deadlock.c", "fig8_waitall_wildcard.c",
		"fig2_9_buffer_reuse.c", "fig1c_send_send.c"}
	avail := available(t)
	for i, prog := range progs {
		p, err := Parse(filepath.Join("..", "testdata", "programs", prog))
		if err != nil {
			t.Fatal(err)
		}
		// each program under one MPI, the MPIs in turn: both MPIs' waits
		// are covered, at half the suite's time
		only := avail[i%len(avail)].name
		t.Run(strings.TrimSuffix(prog, ".c"), func(t *testing.T) {
			underEachMPI(t, prog, func(t *testing.T, bin, dir string) {
				if !strings.HasSuffix(t.Name(), "/"+only) {
					t.Skipf("run under %s", only)
				}
				var es [2]*exploration
				var sleeps [2]int64
				for i, mode := range []string{"spin", "sleep"} {
					d := dir + "-" + mode
					timing := filepath.Join(t.TempDir(), "timing.jsonl")
					es[i] = exploreUnder(t, p, bin, d, 1, nil, []string{"MPIVET_TIMING=" + timing}, "--wait", mode)
					conf, _ := os.ReadFile(filepath.Join(d, "layer.conf"))
					if !strings.Contains(string(conf), "\nwait="+mode+"\n") {
						t.Errorf("--wait %s: layer.conf has no wait=%s:\n%s", mode, mode, conf)
					}
					sleeps[i] = timingSum(t, timing, "sleeps")
				}
				if a, b := es[0].summary(), es[1].summary(); a != b {
					t.Errorf("--wait sleep: %s\n--wait spin: %s", b, a)
				}
				if a, b := es[0].outcomes(), es[1].outcomes(); !reflect.DeepEqual(a, b) {
					t.Errorf("--wait sleep: other interleavings than spin:\n%v\nspin:\n%v", b, a)
				}
				if sleeps[0] != 0 {
					t.Errorf("--wait spin: the ranks slept %d times in blocking calls", sleeps[0])
				}
				if strings.Contains(prog, "deadlock") || strings.Contains(prog, "waitall") {
					if sleeps[1] == 0 {
						t.Errorf("--wait sleep: no rank slept in a blocking call")
					}
				}
				t.Logf("sleeps: %d (spin: %d); %s", sleeps[1], sleeps[0], es[1].summary())
			})
		})
	}
}

// timingSum adds up the field key of every line of an MPIVET_TIMING file.
func timingSum(t *testing.T, path, key string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("no timing file: %v", err)
	}
	defer f.Close()
	var sum int64
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		i := strings.Index(sc.Text(), `"`+key+`":`)
		if i < 0 {
			continue
		}
		v := sc.Text()[i+len(key)+3:]
		if j := strings.IndexAny(v, ",}"); j >= 0 {
			v = v[:j]
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("%s: %q: %v", path, v, err)
		}
		sum += n
	}
	return sum
}

// A rank waiting in MPI_Recv under --wait sleep leaves its core: in
// compute_while_waiting, rank 0 computes for 4 s while ranks 1 and 2 wait
// for its message. Under sleep, each waiting rank's CPU time from MPI_Init
// to its exit must stay under half its wall time (it is a few percent);
// under spin it is what the MPI's polling gets of the cores, logged, not
// asserted (it depends on the load). The layer's own count of sleeps says
// the mode was in effect.
func TestWaitSleepLeavesTheCore(t *testing.T) {
	parallel(t)
	underEachMPI(t, "compute_while_waiting.c", func(t *testing.T, bin, dir string) {
		for _, mode := range []string{"sleep", "spin"} {
			d := dir + "-" + mode
			p := &Program{NP: 3, Timeout: "60s"}
			e := exploreUnder(t, p, bin, d, 1, nil, []string{"MPIVET_TIMING=" + filepath.Join(t.TempDir(), "t.jsonl")}, "--wait", mode)
			if v := e.report["verdict"]; v != "ok" {
				t.Fatalf("--wait %s: verdict %v", mode, v)
			}
			ranks := rankStamps(t, d)
			if len(ranks) != 3 {
				t.Fatalf("--wait %s: %d ranks stamped their times, want 3", mode, len(ranks))
			}
			busiest := 0
			for i, r := range ranks {
				if r.cpu > ranks[busiest].cpu {
					busiest = i
				}
			}
			for i, r := range ranks {
				if i == busiest {
					continue
				}
				frac := float64(r.cpu) / float64(r.wall)
				t.Logf("--wait %s: a waiting rank used %.0f%% of a core over %.1f s (%d sleeps)", mode, 100*frac, float64(r.wall)/1e9, r.sleeps)
				switch {
				case r.wall < 2e9:
					t.Errorf("--wait %s: a rank waited only %.1f s for one that computes for 4 s", mode, float64(r.wall)/1e9)
				case mode == "sleep" && frac >= 0.5:
					t.Errorf("--wait sleep: a waiting rank used %.0f%% of a core", 100*frac)
				case mode == "sleep" && r.sleeps == 0:
					t.Errorf("--wait sleep: a waiting rank never slept")
				case mode == "spin" && r.sleeps != 0:
					t.Errorf("--wait spin: a rank slept %d times", r.sleeps)
				}
			}
		}
	})
}

// stamps is what a rank's MPIVET_TIMING file says of it from the layer's
// work after MPI_Init to its exit: wall and CPU time (ns), and sleeps.
type stamps struct{ wall, cpu, sleeps int64 }

func rankStamps(t *testing.T, dir string) []stamps {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "p.*.time"))
	var out []stamps
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var s stamps
		at, cpu := map[string]int64{}, map[string]int64{}
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			v, _ := strconv.ParseInt(f[1], 10, 64)
			at[f[0]] = v
			if len(f) > 2 {
				cpu[f[0]], _ = strconv.ParseInt(f[2], 10, 64)
			}
		}
		s.wall, s.cpu, s.sleeps = at["exit"]-at["ready"], cpu["exit"]-cpu["ready"], at["sleeps"]
		if at["ready"] == 0 || at["exit"] == 0 {
			t.Fatalf("%s: no ready or exit stamp:\n%s", path, b)
		}
		out = append(out, s)
	}
	return out
}
