package corpus

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A Python program's replay that takes another line than the run it
// replays, where only the Python line differs (same call, arguments and
// place in mpi4py), is counted as diverged (with --files=off: the stamp
// file the first run left is not restored), and the note names both lines;
// with --replay-hook removing the stamp file, replays repeat the first run.
func TestPythonReplayDivergence(t *testing.T) {
	parallel(t)
	if _, err := exec.LookPath("mpirun.openmpi"); err != nil {
		t.Skip("no Open MPI")
	}
	p := &Program{Path: filepath.Join("..", "testdata", "replay", "replay_diverges.py"), NP: 3, Timeout: "120s"}
	interp := python(t, p)
	stamp := filepath.Join(t.TempDir(), "stamp")
	p.Args = append(p.Args, stamp)
	r, out, code := RunMpivet(t, p, interp, "--buffering-check=false", "--files=off")
	if code != 3 || r.Verdict != "incomplete" || r.Coverage.Diverged < 1 || len(r.Findings) != 0 ||
		!strings.Contains(out, "replay_diverges.py:20 in <module>") || !strings.Contains(out, "replay_diverges.py:22 in <module>") {
		t.Fatalf("without the hook: exit %d, verdict %s, coverage %+v:\n%s", code, r.Verdict, r.Coverage, out)
	}
	os.Remove(stamp)
	r, out, code = RunMpivet(t, p, interp, "--buffering-check=false", "--replay-hook", "rm -f "+stamp)
	if code != 0 || r.Verdict != "ok" || r.Coverage.Diverged != 0 || r.Interleavings != 2 {
		t.Fatalf("with the hook: exit %d, verdict %s, %d interleavings, coverage %+v:\n%s", code, r.Verdict, r.Interleavings, r.Coverage, out)
	}
}
