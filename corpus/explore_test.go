package corpus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// interleavings runs mpivet with args and returns the report's count of
// interleavings and its verdict.
func interleavings(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	js := filepath.Join(t.TempDir(), "report.json")
	out, code := mpivet(t, append([]string{"run", "--json", js, "--no-color", "--timeout", "60s"}, args...)...)
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatalf("exit %d, no report:\n%s", code, out)
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r.Interleavings, r.Verdict, out
}

// Vector clocks find the potential match Lamport clocks miss on a program of
// the kind of seed 000, Fig. 5.3 (the corpus checks that Lamport clocks find
// 1 interleaving); on an ordinary program both find the same ones.
func TestVectorClocks(t *testing.T) {
	underEachMPI(t, "lvcp_omission.c", func(t *testing.T, bin, dir string) {
		if strings.Contains(bin, "mpich") || strings.Contains(t.Name(), "mpich") {
			t.Skip("5 ranks: Open MPI only (MPICH busy-polls)")
		}
		if n, v, out := interleavings(t, "-n", "5", "--clocks=vector", "--dir", dir, bin); n != 2 || v != "ok" {
			t.Errorf("vector clocks: %d interleavings (%s), want 2:\n%s", n, v, out)
		}
	})
	underEachMPI(t, "wildcard_master_worker.c", func(t *testing.T, bin, dir string) {
		for _, clocks := range []string{"lamport", "vector"} {
			if n, v, out := interleavings(t, "-n", "3", "--clocks="+clocks, "--dir", dir+clocks, bin, "4"); n != 8 || v != "ok" {
				t.Errorf("--clocks=%s: %d interleavings (%s), want 8:\n%s", clocks, n, v, out)
			}
		}
	})
}

// A finding in a replayed interleaving can be reproduced alone with
// mpivet replay, which forces every wildcard event of that interleaving.
func TestReplay(t *testing.T) {
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
	})
}
