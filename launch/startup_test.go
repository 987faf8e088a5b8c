package launch

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"mpivet/mpi"
)

func TestExcludeMore(t *testing.T) {
	for _, c := range []struct {
		files  string
		absent []string
		want   string
	}{
		{"", []string{"psm", "psm2"}, "^psm,psm2"},
		{"^ofi", []string{"psm", "psm2"}, "^psm,psm2,ofi"},       // Debian's exclusion kept
		{"^ofi, psm2", []string{"psm", "psm2"}, "^psm,psm2,ofi"}, // no duplicate
		{"psm2", []string{"psm"}, ""},                            // an include list is the site's choice
		{"^ofi", nil, ""},                                        // nothing absent: the files' own stands
	} {
		if got := excludeMore(c.files, c.absent); got != c.want {
			t.Errorf("excludeMore(%q, %v) = %q, want %q", c.files, c.absent, got, c.want)
		}
	}
}

func TestReadParam(t *testing.T) {
	f := filepath.Join(t.TempDir(), "openmpi-mca-params.conf")
	os.WriteFile(f, []byte("# mtl = ^x\nbtl_base_warn_component_unused=0\nmtl = ^ofi\npml = ^ucx\n"), 0o644)
	if v, ok := readParam(f, "mtl"); !ok || v != "^ofi" {
		t.Errorf("mtl = %q, %v; want ^ofi", v, ok)
	}
	if _, ok := readParam(f, "osc"); ok {
		t.Error("osc found, but the file does not set it")
	}
}

// TestStartupEnvRespectsUser checks that the user's own settings win and
// that MPIVET_STARTUP=plain turns the settings off.
func TestStartupEnvRespectsUser(t *testing.T) {
	t.Setenv("MPIVET_CACHE", t.TempDir())
	t.Setenv("MPIVET_STARTUP", "plain")
	if env := startupEnv(&mpi.Install{Impl: mpi.OpenMPI, Launcher: "mpirun"}); env != nil {
		t.Errorf("MPIVET_STARTUP=plain: %v, want none", env)
	}
	t.Setenv("MPIVET_STARTUP", "")
	t.Setenv("HWLOC_XMLFILE", "/mine.xml")
	t.Setenv("OMPI_MCA_mtl", "psm2")
	if env := startupEnv(&mpi.Install{Impl: mpi.OpenMPI, Launcher: "mpirun"}); env != nil {
		t.Errorf("with the user's HWLOC_XMLFILE and OMPI_MCA_mtl: %v, want none", env)
	}
}

// TestTopologyFile checks that the topology is written as hwloc XML where
// hwloc's lstopo is installed (scripts/setup installs it).
func TestTopologyFile(t *testing.T) {
	if _, err := exec.LookPath("lstopo-no-graphics"); err != nil {
		t.Skip("lstopo-no-graphics not installed")
	}
	t.Setenv("MPIVET_CACHE", t.TempDir())
	f := topologyFile()
	if f == "" {
		t.Fatal("no topology file written")
	}
	b, err := os.ReadFile(f)
	if err != nil || !strings.Contains(string(b), "<topology") {
		t.Fatalf("%s is not hwloc XML (%v): %.200s", f, err, b)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(f), "topology-*.xml")); len(left) != 1 {
		t.Errorf("files left in the cache: %v, want only %s", left, f)
	}
}

// TestTopologyCached checks that lstopo's answer is used again while its
// key is unchanged, and probed again when the key changes.
func TestTopologyCached(t *testing.T) {
	if _, err := exec.LookPath("lstopo-no-graphics"); err != nil {
		t.Skip("lstopo-no-graphics not installed")
	}
	t.Setenv("MPIVET_CACHE", t.TempDir())
	f := topologyFile()
	if f == "" {
		t.Fatal("no topology file written")
	}
	// Marked: a second lstopo would replace it.
	if err := os.WriteFile(f, []byte("marked"), 0o600); err != nil {
		t.Fatal(err)
	}
	if g := topologyFile(); g != f {
		t.Fatalf("second verification: %s, want the cached %s", g, f)
	}
	if b, _ := os.ReadFile(f); string(b) != "marked" {
		t.Fatalf("lstopo ran again with the key unchanged: %.100s", b)
	}
	t.Setenv("HWLOC_MPIVET_TEST", "1") // one of hwloc's variables: part of the key
	g := topologyFile()
	if g == "" || g == f {
		t.Fatalf("with the key changed: %q, want a new file beside %s", g, f)
	}
	if b, _ := os.ReadFile(g); !strings.Contains(string(b), "<topology") {
		t.Fatalf("%s is not hwloc XML: %.200s", g, b)
	}
}
