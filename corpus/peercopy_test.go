package corpus

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// The buffer checker must know from which size Open MPI's shared-memory
// transport lets the receiver's kernel copy a send buffer (it never closes
// such pages against reads). mpivet reads it once with ompi_info and hands
// it to the ranks in layer.conf; a rank whose environment carries MCA
// settings of the transports (here from mpirun --mca) asks MPI_T instead,
// since they may change it.
func TestPeerCopyThreshold(t *testing.T) {
	parallel(t)
	var m mpiImpl
	for _, x := range available(t) {
		if x.name == "openmpi" {
			m = x
		}
	}
	if m.name == "" {
		t.Skip("needs Open MPI")
	}
	info, err := exec.Command("ompi_info", "--parsable", "--param", "btl", "vader", "--level", "9").Output()
	if err != nil {
		t.Skipf("no ompi_info: %v", err)
	}
	eager := regexp.MustCompile(`mca:btl:vader:param:btl_vader_eager_limit:value:(\d+)`).FindSubmatch(info)
	if eager == nil {
		t.Skip("no vader BTL")
	}
	bin := filepath.Join(t.TempDir(), "ring")
	compile(t, m, filepath.Join("..", "testdata", "programs", "ring_sendrecv.c"), bin)
	minOf := func(out string) []string {
		var mins []string
		for _, s := range regexp.MustCompile(`peer_copy_min=(-?\d+\(\w+\))`).FindAllStringSubmatch(out, -1) {
			mins = append(mins, s[1])
		}
		return mins
	}
	run := func(launcher string) (string, string) {
		dir := filepath.Join(t.TempDir(), "run")
		args := []string{"run", "-n", "2", "--dir", dir}
		if launcher != "" {
			args = append(args, "--launcher", launcher)
		}
		cmd := exec.Command(mpivetBin, append(args, bin)...)
		cmd.Env = append(os.Environ(), "MPIVET_BUFFERS_STATS=1")
		out, _ := cmd.CombinedOutput()
		conf, _ := os.ReadFile(filepath.Join(dir, "layer.conf"))
		return string(out), string(conf)
	}

	out, conf := run("")
	line := regexp.MustCompile(`vader=(\w+):(\d+)`).FindStringSubmatch(conf)
	if line == nil || line[2] != string(eager[1]) {
		t.Fatalf("layer.conf has no vader line with ompi_info's eager limit %s:\n%s", eager[1], conf)
	}
	e, _ := strconv.Atoi(line[2])
	wantMin := strconv.Itoa(e-64) + "(conf)"
	if line[1] == "none" {
		wantMin = strconv.Itoa(math.MaxInt64) + "(conf)"
	}
	if mins := minOf(out); len(mins) != 2 || mins[0] != wantMin || mins[1] != wantMin {
		t.Errorf("with %s the ranks' peer_copy_min = %v, want %s twice:\n%s", line[0], mins, wantMin, out)
	}

	out, _ = run("mpirun.openmpi --mca btl_vader_eager_limit 2048")
	if mins := minOf(out); len(mins) != 2 || mins[0] != "1984(mpi_t)" || mins[1] != "1984(mpi_t)" {
		t.Errorf("with mpirun --mca btl_vader_eager_limit 2048 the ranks' peer_copy_min = %v, want 1984 from MPI_T twice:\n%s", mins, out)
	}
}
