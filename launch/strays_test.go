package launch

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestKillLaunchedByMark: a process whose environment carries the run's
// mark (as those the MPI spawns for the program do, with no record of
// theirs and in a session of their own) is killed with the run; one with
// another run's mark is left alone.
func TestKillLaunchedByMark(t *testing.T) {
	dir, other := t.TempDir(), t.TempDir()
	start := func(mark string) *exec.Cmd {
		cmd := exec.Command("sleep", "60")
		cmd.Env = append(os.Environ(), launchedVar+"="+mark)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	ours, theirs := start(dir), start(other)
	defer theirs.Process.Kill()
	defer ours.Process.Kill()
	// (exec has replaced the child's image, environment included, once
	// /proc shows sleep's command line)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		a, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", ours.Process.Pid))
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", theirs.Process.Pid))
		if string(a) == "sleep\x0060\x00" && string(b) == "sleep\x0060\x00" {
			break
		}
	}
	killStrays(dir)
	done := make(chan error, 1)
	go func() { done <- ours.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the process with the run's mark is still alive")
	}
	if err := theirs.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the process with another run's mark was killed: %v", err)
	}
}
