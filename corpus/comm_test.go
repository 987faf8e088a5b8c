package corpus

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"mpivet/trace"
)

// The layer records the world ranks of every communicator created at run
// time; they must be what MPI itself says.
func TestCommunicatorMembers(t *testing.T) {
	parallel(t)
	underEachMPI(t, "clean_comms.c", func(t *testing.T, bin, dir string) {
		out, code := mpivet(t, "run", "-n", "4", "--timeout", "60s", "--dir", dir, bin)
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		want := map[string]string{} // "rank name" -> members
		for _, m := range regexp.MustCompile(`MEMBERS (\d+) (\w+) ([\d ]+)`).FindAllStringSubmatch(out, -1) {
			want[m[1]+" "+m[2]] = strings.TrimSpace(m[3])
		}
		run, err := trace.ReadRun(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range run.Procs {
			got := map[string]*trace.Comm{}
			inter := 0
			for c := range p.Calls() {
				if c.Comm() == nil {
					continue
				}
				switch c.Name() {
				case "MPI_Comm_split":
					got["split"] = c.Comm()
				case "MPI_Cart_sub":
					got["cartsub"] = c.Comm()
				case "MPI_Intercomm_merge":
					got["merged"] = c.Comm()
				case "MPI_Intercomm_create":
					inter++
					if c.Comm().Remote == nil || len(c.Comm().World)+len(c.Comm().Remote) != 4 {
						t.Errorf("rank %d: intercommunicator recorded as %+v", p.Rank, c.Comm())
					}
				}
			}
			if inter != 1 {
				t.Errorf("rank %d: %d intercommunicators recorded", p.Rank, inter)
			}
			for _, name := range []string{"split", "cartsub", "merged"} {
				w := want[fmt.Sprintf("%d %s", p.Rank, name)]
				c := got[name]
				if c == nil {
					t.Errorf("rank %d: %s not recorded", p.Rank, name)
					continue
				}
				if g := strings.Trim(fmt.Sprint(c.World), "[]"); g != w || w == "" {
					t.Errorf("rank %d: %s members %q, MPI says %q", p.Rank, name, g, w)
				}
			}
		}
	})
}

// Ranks on other hosts than mpivet's reach it through the shared run
// directory: their supervisors write their pages back every 250 ms, with
// what /proc says of the rank, and a deadlock is decided only on pages
// written back after the run stalled.
// MPIVET_TEST_REMOTE=1 treats every rank as remote, on this one machine.
func TestSharedDirectoryProtocol(t *testing.T) {
	parallel(t)
	run := func(t *testing.T, bin string, np int) (*Report, string, string) {
		dir := t.TempDir()
		js, rundir := filepath.Join(dir, "report.json"), filepath.Join(dir, "run")
		cmd := exec.Command(mpivetBin, "run", "-n", strconv.Itoa(np), "--timeout", "60s", "--json", js, "--dir", rundir, "--no-color", bin)
		cmd.Env = append(os.Environ(), "MPIVET_TEST_REMOTE=1")
		out, _ := cmd.CombinedOutput()
		var r Report
		data, err := os.ReadFile(js)
		if err != nil || json.Unmarshal(data, &r) != nil {
			t.Fatalf("no report:\n%s", out)
		}
		return &r, string(out), rundir
	}
	underEachMPI(t, "fig1b_recv_recv.c", func(t *testing.T, bin, _ string) {
		r, out, dir := run(t, bin, 2)
		if r.Verdict != "error" || len(r.Findings) != 1 || r.Findings[0].Kind != "deadlock" {
			t.Errorf("want one deadlock:\n%s", out)
		}
		if syncs, _ := filepath.Glob(filepath.Join(dir, "p.*.sync")); len(syncs) != 2 {
			t.Errorf("%d sync files, want one per rank", len(syncs))
		}
	})
	underEachMPI(t, "compute_while_waiting.c", func(t *testing.T, bin, _ string) {
		if r, out, _ := run(t, bin, 3); r.Verdict != "ok" {
			t.Errorf("a computing rank is not a deadlock:\n%s", out)
		}
	})
	// The supervisors also say whether their ranks run: a rank stopped in
	// MPI_Recv, which looks deadlocked by its calls alone, is not.
	underEachMPI(t, "stall_stopped_recv.c", func(t *testing.T, bin, _ string) {
		if r, out, _ := run(t, bin, 2); r.Verdict != "ok" {
			t.Errorf("a stopped rank is no deadlock:\n%s", out)
		}
	})
}
