package corpus

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"mpivet/trace"
)

// The layer records the world ranks of every communicator created at run
// time; they must be what MPI itself says.
func TestCommunicatorMembers(t *testing.T) {
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
			for _, c := range p.Calls {
				if c.Comm == nil {
					continue
				}
				switch c.Name() {
				case "MPI_Comm_split":
					got["split"] = c.Comm
				case "MPI_Cart_sub":
					got["cartsub"] = c.Comm
				case "MPI_Intercomm_merge":
					got["merged"] = c.Comm
				case "MPI_Intercomm_create":
					inter++
					if c.Comm.Remote == nil || len(c.Comm.World)+len(c.Comm.Remote) != 4 {
						t.Errorf("rank %d: intercommunicator recorded as %+v", p.Rank, c.Comm)
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
