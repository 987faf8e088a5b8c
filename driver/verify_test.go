package driver

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mpivet/report"
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// compilers are the MPIs a library call is tried under: both, as in the
// corpus. Without one the test skips, except under CI=true.
var compilers = []struct{ name, cc string }{{"openmpi", "mpicc.openmpi"}, {"mpich", "mpicc.mpich"}}

// A program verified through the library call, as the command line does
// it: the crooked barrier (seed 000, Fig. 1.1) fails only in a replayed
// interleaving, which Verify finds by exploring and Replay reproduces
// alone, and not once the binary has changed; a context cancelled with a
// cause (before the program starts) gives an incomplete report
// that says it.
func TestVerifyLibrary(t *testing.T) {
	found := 0
	for _, m := range compilers {
		if _, err := exec.LookPath(m.cc); err != nil {
			continue
		}
		found++
		t.Run(m.name, func(t *testing.T) {
			tmp := t.TempDir()
			bin := filepath.Join(tmp, "crooked")
			src := filepath.Join("..", "testdata", "programs", "fig1_1_crooked_barrier.c")
			if out, err := exec.Command(m.cc, "-g", "-O0", "-o", bin, src).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", m.cc, err, out)
			}
			o := Defaults()
			o.Program, o.NP, o.Dir = bin, 3, filepath.Join(tmp, "run")
			o.IO = IO{Stdout: io.Discard, Stderr: io.Discard}
			rep, err := Verify(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			if rep.ExitCode() != 1 || rep.Interleavings != 2 || len(rep.Findings) != 1 || rep.Findings[0].Kind != "program-failure" ||
				rep.Findings[0].Interleaving != 2 || !rep.Complete {
				t.Fatalf("verify: exit %d, %d interleavings, findings %+v", rep.ExitCode(), rep.Interleavings, rep.Findings)
			}
			// what the replay says first is which interleaving it runs (on a
			// loaded machine a note on a slow rank may follow)
			var said []string
			rep, err = Replay(context.Background(), ReplayOptions{Dir: o.Dir, Interleaving: 2, GDB: -1,
				IO: IO{Stdout: io.Discard, Stderr: io.Discard, Notify: func(s string) { said = append(said, s) }}})
			if err != nil {
				t.Fatal(err)
			}
			if rep.ExitCode() != 1 || rep.Interleavings != 1 || len(rep.Findings) != 1 || rep.Findings[0].Kind != "program-failure" ||
				len(said) == 0 || !strings.Contains(said[0], "replaying interleaving 2") {
				t.Fatalf("replay: exit %d, findings %+v, said %q", rep.ExitCode(), rep.Findings, said)
			}
			if _, err := Replay(context.Background(), ReplayOptions{Dir: o.Dir, Interleaving: 2, GDB: 3}); err == nil ||
				err.Error() != "--gdb 3: no such rank (the run's ranks are 0 to 2)" {
				t.Errorf("replay with --gdb 3 of 3 ranks: %v", err)
			}
			if _, err := Replay(context.Background(), ReplayOptions{Dir: o.Dir, Interleaving: 9, GDB: -1}); err == nil ||
				!strings.Contains(err.Error(), "no interleaving 9") {
				t.Errorf("replay of a missing interleaving: %v", err)
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			cancel(errors.New("interrupted (a test)"))
			o.Dir = filepath.Join(tmp, "cancelled")
			if rep, err = Verify(ctx, o); err != nil {
				t.Fatal(err)
			}
			// (cancelled while the layer was built: the program never started)
			if rep.ExitCode() != report.ExitIncomplete || rep.Interleavings != 0 || rep.Coverage.Done != 0 ||
				rep.Stopped != "interrupted (a test) before the program started: no interleaving was run" {
				t.Errorf("cancelled: exit %d, %d interleavings, stopped %q", rep.ExitCode(), rep.Interleavings, rep.Stopped)
			}
			// A launcher that starts no rank within the time limit is a
			// failure to launch, not a timeout of the program.
			slow := filepath.Join(tmp, "slow-launcher")
			os.WriteFile(slow, []byte("#!/bin/sh\necho waiting for nodes >&2\nexec sleep 60\n"), 0o755)
			s := o
			s.Dir, s.Launcher, s.Timeout = filepath.Join(tmp, "slow"), slow, time.Second
			if _, err := Verify(context.Background(), s); err == nil ||
				!strings.Contains(err.Error(), "started none of the 3 ranks within the time limit (--timeout 1s), its output:\nwaiting for nodes") {
				t.Errorf("a launcher that starts nothing: %v", err)
			}
			// A program rebuilt since the run is not replayed.
			if err := os.WriteFile(bin, append(must(os.ReadFile(bin)), 0), 0o755); err != nil {
				t.Fatal(err)
			}
			if _, err := Replay(context.Background(), ReplayOptions{Dir: filepath.Join(tmp, "run"), Interleaving: 2, GDB: -1}); err == nil ||
				!strings.Contains(err.Error(), "is not the binary the run in") {
				t.Errorf("replay of a changed binary: %v", err)
			}
		})
	}
	if found == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("no MPI installed (CI must install Open MPI and MPICH: see scripts/setup)")
		}
		t.Skip("no MPI installed")
	}
}
