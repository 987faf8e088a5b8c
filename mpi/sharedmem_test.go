package mpi

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestParseSharedMemory(t *testing.T) {
	out := "mca:btl:vader:param:btl_vader_single_copy_mechanism:value:cma\n" +
		"mca:btl:vader:param:btl_vader_single_copy_mechanism:enumerator:value:3:none\n" +
		"mca:btl:vader:param:btl_vader_eager_limit:value:4096\n" +
		"mca:btl:vader:param:btl_vader_eager_limit:source:default\n"
	s, ok := parseSharedMemory([]byte(out))
	if !ok || s != (SharedMemory{"cma", 4096}) || s.ConfValue() != "cma:4096" {
		t.Errorf("got %+v %v %q", s, ok, s.ConfValue())
	}
	if again, ok := parseSharedMemory([]byte(s.params())); !ok || again != s {
		t.Errorf("cached form read back as %+v %v", again, ok)
	}
	for _, bad := range []string{"", "mca:btl:vader:param:btl_vader_eager_limit:value:4096\n",
		"mca:btl:vader:param:btl_vader_single_copy_mechanism:value:cma\nmca:btl:vader:param:btl_vader_eager_limit:value:x\n"} {
		if s, ok := parseSharedMemory([]byte(bad)); ok {
			t.Errorf("%q read as %+v", bad, s)
		}
	}
}

// TestSharedMemory checks that what ompi_info says, cached or not, is
// what a running rank of Open MPI finds through MPI_T, with the defaults
// and with an eager limit set in the environment.
func TestSharedMemory(t *testing.T) {
	cc, err := exec.LookPath("mpicc.openmpi")
	if err != nil {
		t.Skip("Open MPI is not installed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "vader_cvars")
	if out, err := exec.Command(cc, "-o", bin, "testdata/vader_cvars.c").CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	inst, err := Program(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
	cache := filepath.Join(dir, "cache")
	for _, eager := range []string{"", "2048"} {
		if eager != "" {
			t.Setenv("OMPI_MCA_btl_vader_eager_limit", eager)
		}
		// vader is used, and its parameters registered, only with a peer
		// on the host: 2 ranks.
		out, err := exec.Command(inst.Launcher, "-n", "2", "--oversubscribe", bin).Output()
		if err != nil {
			t.Fatalf("%s: %v: %s", bin, err, out)
		}
		want := strings.TrimSpace(string(out))
		for _, pass := range []string{"ompi_info", "cached"} {
			s, ok := inst.SharedMemory(cache)
			if got := strings.Join([]string{s.SingleCopy, strconv.FormatInt(s.EagerLimit, 10)}, " "); !ok || got != want {
				t.Errorf("eager limit %q, %s: got %q (ok %v), a rank sees %q", eager, pass, got, ok, want)
			}
		}
		if eager != "" && !strings.HasSuffix(want, " "+eager) {
			t.Errorf("OMPI_MCA_btl_vader_eager_limit=%s: a rank sees %q", eager, want)
		}
	}
	if ents, _ := os.ReadDir(cache); len(ents) != 2 {
		t.Errorf("cache holds %d answers, want one per environment", len(ents))
	}
}

// Open MPI 5.0.9's own output (testdata/ompi5-*.txt: ompi_info --parsable
// --param btl sm --level 9, and --param smsc all, of third_party/openmpi5's
// tree, built with the cma component only), and the same with the smsc
// parameter set, and with an xpmem component of higher priority beside cma.
func TestParseSharedMemory5(t *testing.T) {
	sm, err1 := os.ReadFile(filepath.Join("testdata", "ompi5-btl-sm.txt"))
	smsc, err2 := os.ReadFile(filepath.Join("testdata", "ompi5-smsc.txt"))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	set := func(list string) []byte {
		return []byte(strings.Replace(string(smsc), "mca:smsc:base:param:smsc:value:\n", "mca:smsc:base:param:smsc:value:"+list+"\n", 1))
	}
	xpmem := func(list string) []byte {
		return append(set(list), "mca:smsc:xpmem:param:smsc_xpmem_priority:value:42\n"...)
	}
	for _, c := range []struct {
		name      string
		sm, smsc  []byte
		want      SharedMemory
		wantFound bool
	}{
		{"defaults", sm, smsc, SharedMemory{"cma", 4096}, true},
		{"cma chosen", sm, set("cma"), SharedMemory{"cma", 4096}, true},
		{"cma excluded", sm, set("^cma"), SharedMemory{"none", 4096}, true},
		{"another chosen", sm, set("knem"), SharedMemory{"none", 4096}, true},
		{"xpmem first", sm, xpmem(""), SharedMemory{"xpmem", 32768}, true},
		{"xpmem excluded", sm, xpmem("^xpmem"), SharedMemory{"cma", 4096}, true},
		{"eager limit set", []byte(strings.Replace(string(sm), "btl_sm_eager_limit:value:4096", "btl_sm_eager_limit:value:2048", 1)),
			smsc, SharedMemory{"cma", 2048}, true},
		{"no sm BTL", nil, smsc, SharedMemory{}, false},
	} {
		s, ok := parseSharedMemory5(c.sm, c.smsc)
		if ok != c.wantFound || ok && s != c.want {
			t.Errorf("%s: got %+v %v, want %+v %v", c.name, s, ok, c.want, c.wantFound)
		}
		if again, ok := parseSharedMemory([]byte(s.params())); c.wantFound && (!ok || again != s) {
			t.Errorf("%s: cached form read back as %+v %v", c.name, again, ok)
		}
	}
}
