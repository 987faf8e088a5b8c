package suite

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Launches started at once each get a directory of their own, numbered
// from 1 without a gap.
func TestNewLaunchConcurrent(t *testing.T) {
	dir := t.TempDir()
	const n = 20
	idx := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := NewLaunch(dir)
			if err != nil {
				t.Error(err)
				return
			}
			if want := filepath.Join(dir, "launches", fmt.Sprintf("%04d", l.Index)); l.Dir != want {
				t.Errorf("launch %d in %s", l.Index, l.Dir)
			}
			idx[i] = l.Index
		}()
	}
	wg.Wait()
	sort.Ints(idx)
	for i, x := range idx {
		if x != i+1 {
			t.Fatalf("indices %v", idx)
		}
	}
}

// The real launchers are found past the directories where a launcher's
// name is a link to mpivet.
func TestRealPath(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "mpivet")
	os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755)
	shims, err := Shims(t.TempDir(), exe, false)
	if err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	path := shims + ":" + other + ":/usr/bin"
	if got := RealPath(path, exe); got != other+":/usr/bin" {
		t.Errorf("RealPath: %q", got)
	}
	if _, err := os.Lstat(filepath.Join(shims, "srun")); err == nil {
		t.Error("a shim of srun outside a Slurm allocation")
	}
	for name, want := range map[string]string{"/x/mpiexec": "mpiexec", "mpivet-mpiexec.mpich": "mpiexec.mpich",
		"mpivet": "", "mpiexec2": "", "/usr/bin/srun": "srun"} {
		if got := LauncherName(name); got != want {
			t.Errorf("LauncherName(%s) = %q, want %q", name, got, want)
		}
	}
}

// Programs that are not MPI programs pass through, with the reason.
func TestClassifyNotMPI(t *testing.T) {
	script := filepath.Join(t.TempDir(), "run.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho hi\n"), 0o755)
	cases := map[string][]string{"hostname": nil, script: nil, "no-such-program-here": nil}
	if exec.Command("/usr/bin/python3", "-c", "import mpi4py").Run() == nil {
		cases["/usr/bin/python3"] = []string{"-u", "-c", "print('no MPI')"}
	}
	for prog, args := range cases {
		if inst, reason := Classify(prog, args, ""); inst != nil || reason == "" {
			t.Errorf("%s %s: an MPI program (%q)", prog, strings.Join(args, " "), reason)
		}
	}
}

func TestExitStatus(t *testing.T) {
	for line, want := range map[string]int{"exit 0": 0, "exit 7": 7, "kill -TERM $$": 143} {
		if got := ExitStatus(exec.Command("sh", "-c", line).Run()); got != want {
			t.Errorf("%s: %d, want %d", line, got, want)
		}
	}
}
