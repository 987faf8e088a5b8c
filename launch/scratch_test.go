package launch

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"mpivet/mpi"
)

// Run directories of ended mpivet processes are removed; those of a live
// process, of a process whose pid was reused (another start time), of
// another user, and those whose name does not say their process, are kept
// or removed as they must be.
func TestRemoveStaleScratch(t *testing.T) {
	parent := t.TempDir()
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	deadPid := ended.Process.Pid
	live := os.Getpid()
	liveStart := processStart(live)
	if liveStart == 0 {
		t.Skip("no /proc")
	}
	mk := func(name string) string {
		p := filepath.Join(parent, name)
		if err := os.MkdirAll(filepath.Join(p, "session"), 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(p, "session", "vader_segment.0"), []byte("x"), 0o600)
		return p
	}
	dead := mk(scratchPrefix(deadPid, 12345) + "1")
	reused := mk(scratchPrefix(live, liveStart+1) + "2") // the pid is live, but another process's
	alive := mk(scratchPrefix(live, liveStart) + "3")
	old := mk("mpivet-ompi-123456789")
	other := mk("unrelated-1-2-3")
	theirs := ""
	if os.Geteuid() == 0 {
		theirs = mk(scratchPrefix(deadPid, 12345) + "4")
		if err := os.Lchown(theirs, 54321, 54321); err != nil {
			t.Fatal(err)
		}
	}
	removed := RemoveStaleScratch(parent)
	slices.Sort(removed)
	want := []string{dead, reused}
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	for _, p := range []string{alive, old, other, theirs} {
		if _, err := os.Stat(p); p != "" && err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	for _, p := range want {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s is still there (%v)", p, err)
		}
	}
}

func TestProcessStart(t *testing.T) {
	cmd := exec.Command("sleep", "5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	s := processStart(pid)
	if s == 0 || s < processStart(os.Getpid()) {
		t.Errorf("start of a child %d, before its parent's %d", s, processStart(os.Getpid()))
	}
	cmd.Process.Kill()
	cmd.Wait()
	if s := processStart(pid); s != 0 {
		t.Errorf("an ended process has a start time %d", s)
	}
}

// A run's directory (in /dev/shm, where it can be) names the mpivet
// process that made it, and making the first one removes the stale
// directories of ended ones.
func TestScratchNamedAndStaleRemoved(t *testing.T) {
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Fatal(err)
	}
	parent := scratchParents()[0]
	if _, err := os.Stat(parent); err != nil {
		parent = os.TempDir()
	}
	stale, err := os.MkdirTemp(parent, scratchPrefix(ended.Process.Pid, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(stale)
	removeStaleScratch = sync.Once{}
	s := &Session{MPI: &mpi.Install{Impl: mpi.OpenMPI}}
	dir, vars := s.scratch(nil)
	if dir == "" || len(vars) != len(scratchVars) {
		t.Fatalf("no run directory: %q %v", dir, vars)
	}
	defer os.RemoveAll(dir)
	pid, start, ok := parseScratchName(filepath.Base(dir))
	if !ok || pid != os.Getpid() || start != processStart(pid) || !strings.HasPrefix(dir, parent) {
		t.Errorf("run directory %s does not name this process (pid %d, start %d)", dir, os.Getpid(), processStart(os.Getpid()))
	}
	if _, err := os.Lstat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale directory %s is still there (%v)", stale, err)
	}
}
