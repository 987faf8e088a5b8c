package corpus

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Replays start from the files the first run started from, and the files
// end as after one native run (driver/files.go): a program that creates its
// result with O_EXCL, one that appends to a log it reads back (a log that
// existed before: its content is restored, not removed), one that creates
// its output with MPI-IO's MPI_MODE_EXCL, and one whose output directory,
// which must not exist, is an absolute path outside the working directory;
// and a Fortran and a Python program that create their result exclusively.
// Each has a wildcard race whose other order is replayed; every replay
// must repeat the first run (none diverges), the bug of the one that has
// one must be found, and the files must be what the first run wrote.
func TestFilesRestored(t *testing.T) {
	parallel(t)
	src := filepath.Join("..", "testdata", "files", "files_outputs.c")
	for _, m := range available(t) {
		t.Run(m.name, func(t *testing.T) {
			bin := filepath.Join(t.TempDir(), "files_outputs")
			compile(t, m, src, bin)
			// Restoring files is mpivet's, whatever the MPI: under MPICH
			// only what its MPI-IO writes (ROMIO, not Open MPI's OMPIO).
			openMPIOnly := func(t *testing.T) {
				if m.name != "openmpi" {
					t.Skip("the files of POSIX calls are restored alike under every MPI: tested under Open MPI")
				}
			}
			t.Run("excl", func(t *testing.T) { openMPIOnly(t); filesExcl(t, bin) })
			t.Run("log", func(t *testing.T) { openMPIOnly(t); filesLog(t, bin) })
			t.Run("mpiio", func(t *testing.T) {
				dir := t.TempDir()
				filesClean(t, &Program{NP: 3, Timeout: "120s", Args: []string{"mpiio", dir}}, bin)
				data, err := os.ReadFile(filepath.Join(dir, "out.dat"))
				if err != nil || len(data) != 12 {
					t.Errorf("out.dat after the run: %d bytes, %v (want each rank's int)", len(data), err)
				}
				sameFiles(t, dir, "out.dat")
			})
			t.Run("mkdir", func(t *testing.T) {
				openMPIOnly(t)
				dir := t.TempDir() // outside mpivet's and the program's working directory
				filesClean(t, &Program{NP: 3, Timeout: "120s", Args: []string{"mkdir", dir}, Dir: t.TempDir()}, bin)
				if data, err := os.ReadFile(filepath.Join(dir, "out", "result")); string(data) != "done\n" {
					t.Errorf("out/result after the run: %q, %v", data, err)
				}
				sameFiles(t, dir, "out", "out/result")
			})
			t.Run("fortran", func(t *testing.T) {
				openMPIOnly(t)
				bin := filepath.Join(t.TempDir(), "files_excl")
				compile(t, m, filepath.Join("..", "testdata", "files", "files_excl.f90"), bin)
				dir := t.TempDir()
				filesClean(t, &Program{NP: 3, Timeout: "120s", Dir: dir}, bin)
				if data, err := os.ReadFile(filepath.Join(dir, "result.dat")); string(data) != "1\n2\n" {
					t.Errorf("result.dat after the run: %q, %v (want the first run's order)", data, err)
				}
			})
		})
	}
	// Python's open, from the interpreter (mpi4py is Debian's, on Open MPI)
	t.Run("python", func(t *testing.T) {
		if _, err := exec.LookPath("mpirun.openmpi"); err != nil {
			t.Skip("no Open MPI")
		}
		dir := t.TempDir()
		p := &Program{Path: filepath.Join("..", "testdata", "files", "files_excl.py"), NP: 3, Timeout: "120s", Dir: dir}
		filesClean(t, p, python(t, p))
		if data, err := os.ReadFile(filepath.Join(dir, "result.txt")); string(data) != "1 2\n" {
			t.Errorf("result.txt after the run: %q, %v (want the first run's order)", data, err)
		}
	})
}

// filesExcl: the result file is created in the working directory with
// O_EXCL; rank 2's message taken first deadlocks. Without restoring, the
// replay of that order finds the first run's result and exits 1 (the
// deadlock is missed); with it, the deadlock is found.
func filesExcl(t *testing.T, bin string) {
	dir := t.TempDir()
	p := &Program{NP: 3, Timeout: "120s", Args: []string{"excl", "."}, Dir: dir}
	r, out, code := RunMpivet(t, p, bin, "--buffering-check=false")
	if code != 1 || r.Coverage.Diverged != 0 || kinds(r) != "deadlock" || r.Findings[0].Interleaving < 2 {
		t.Fatalf("exit %d, coverage %+v, findings %s:\n%s", code, r.Coverage, kinds(r), out)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "result.out")); string(data) != "1 2 \n" {
		t.Errorf("result.out after the run: %q, %v (want the first run's order)", data, err)
	}
	sameFiles(t, dir, "result.out")
	// mpivet replay of the deadlock starts from the files as they were
	// before the run too, and leaves them as the replay left them.
	cmd := exec.Command(mpivetBin, "replay", r.RunDir, "--interleaving", "2", "--no-color")
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	if out := string(b); err == nil || !strings.Contains(out, "error[deadlock]") || strings.Contains(out, "program-failure") ||
		!strings.Contains(out, "files put back as they were before the run") {
		t.Fatalf("replay of interleaving 2: %v:\n%s", err, out)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "result.out")); len(data) != 0 || err != nil {
		t.Errorf("result.out after the replay: %q, %v (want the file the deadlocked replay made, empty)", data, err)
	}
	os.Remove(filepath.Join(dir, "result.out"))
	r, out, code = RunMpivet(t, p, bin, "--buffering-check=false", "--files=off")
	if code != 1 || kinds(r) != "program-failure" {
		t.Fatalf("with --files=off: exit %d, findings %s (want the replay to fail on the first run's file):\n%s", code, kinds(r), out)
	}
}

// filesLog: a log that existed before, with a line: every run resumes, and
// every replay must find the one line, not the first run's second.
func filesLog(t *testing.T, bin string) {
	dir := t.TempDir()
	log := filepath.Join(dir, "run.log")
	if err := os.WriteFile(log, []byte("run 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	filesClean(t, &Program{NP: 3, Timeout: "120s", Args: []string{"log", dir}}, bin)
	if data, err := os.ReadFile(log); string(data) != "run 1\nrun 2\n" {
		t.Errorf("run.log after the run: %q, %v (want the line before and the first run's)", data, err)
	}
	if st, err := os.Stat(log); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("run.log's mode after the run: %v", err)
	}
}

// filesClean runs a correct program: ok, both orders, no divergence.
func filesClean(t *testing.T, p *Program, bin string) {
	t.Helper()
	r, out, code := RunMpivet(t, p, bin, "--buffering-check=false")
	if code != 0 || r.Verdict != "ok" || r.Interleavings != 2 || r.Coverage.Diverged != 0 || !strings.Contains(out, "files: the first run") {
		t.Fatalf("exit %d, verdict %s, %d interleavings, coverage %+v:\n%s", code, r.Verdict, r.Interleavings, r.Coverage, out)
	}
}

// sameFiles checks that dir holds exactly the files want (relative paths):
// what the runs made and removed again is gone.
func sameFiles(t *testing.T, dir string, want ...string) {
	t.Helper()
	var got []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if rel, _ := filepath.Rel(dir, p); rel != "." {
			got = append(got, rel)
		}
		return nil
	})
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("files in %s after the run: %v, want %v", dir, got, want)
	}
}

// kinds lists the kinds of a report's findings.
func kinds(r *Report) string {
	var ks []string
	for _, f := range r.Findings {
		ks = append(ks, f.Kind)
	}
	return strings.Join(ks, " ")
}
