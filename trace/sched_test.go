package trace_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"mpivet/trace"
)

// A stopped process reads as stopped; continued and sleeping, it does not.
func TestProcSched(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	pid := cmd.Process.Pid
	state := func() trace.Sched {
		t.Helper()
		s, ok := trace.ProcSched(pid)
		if !ok {
			t.Fatalf("cannot read process %d", pid)
		}
		return s
	}
	wait := func(what string, f func(trace.Sched) bool) {
		t.Helper()
		for i := 0; i < 200 && !f(state()); i++ {
			time.Sleep(10 * time.Millisecond)
		}
		if !f(state()) {
			t.Fatalf("process never %s: state %c", what, state().State)
		}
	}
	wait("sleeping", func(s trace.Sched) bool { return s.State == 'S' && !s.Stopped() })
	syscall.Kill(pid, syscall.SIGSTOP)
	wait("stopped", trace.Sched.Stopped)
	syscall.Kill(pid, syscall.SIGCONT)
	wait("continued", func(s trace.Sched) bool { return !s.Stopped() })
}

// Held: stopped, exited-unreaped, or runnable without having run since the
// reference sample; sleeping or having run is evidence of waiting.
func TestHeld(t *testing.T) {
	before := map[string]trace.Sched{"a": {'R', 10}, "b": {'R', 10}, "c": {'R', 10}, "d": {'R', 10}, "e": {'S', 10}}
	now := map[string]trace.Sched{
		"a": {'R', 20}, // polled: waiting
		"b": {'R', 10}, // did not run: descheduled
		"c": {'T', 20}, // stopped
		"d": {'S', 10}, // sleeps in the kernel
		"e": {'Z', 10}, // exited
		"f": {'R', 5},  // no reference
	}
	if got := strings.Join(trace.Held(before, now), " "); got != "b c e f" {
		t.Fatalf("held %q, want \"b c e f\"", got)
	}
}

// MarkSuspended marks the live ranks that are held or could not be read.
func TestMarkSuspended(t *testing.T) {
	dir := t.TempDir()
	run := &trace.Run{Dir: dir}
	for _, name := range []string{"p.h.1", "p.h.2", "p.h.3", "p.h.4"} {
		run.Procs = append(run.Procs, &trace.Process{File: filepath.Join(dir, name+".log")})
	}
	run.Procs[3].Exit = &trace.Exit{Exited: true}
	k := func(i int) string { return strings.TrimSuffix(run.Procs[i].File, ".log") }
	before := map[string]trace.Sched{k(0): {'R', 1}, k(1): {'R', 1}}
	now := map[string]trace.Sched{k(0): {'R', 2}, k(1): {'T', 2}}
	run.MarkSuspended(before, now)
	for i, want := range []bool{false, true, true, false} {
		if run.Procs[i].Suspended != want {
			t.Errorf("process %d suspended %v, want %v", i, run.Procs[i].Suspended, want)
		}
	}
}

// Ranks on other hosts are read from the sample their supervisor writes
// after the write-back count.
func TestReadSchedRemote(t *testing.T) {
	t.Setenv("MPIVET_TEST_REMOTE", "1")
	dir := t.TempDir()
	base := filepath.Join(dir, "p.otherhost.42")
	os.WriteFile(base+".state", make([]byte, 8), 0o644)
	w := make([]byte, 24)
	w[0], w[8], w[16] = 3, 'T', 99
	os.WriteFile(base+".sync", w, 0o644)
	got := trace.ReadSched(dir)
	if s, ok := got[base]; !ok || s.State != 'T' || s.Ran != 99 {
		t.Fatalf("read %v", got)
	}
	os.WriteFile(base+".sync", w[:8], 0o644) // a count only: nothing known
	if got := trace.ReadSched(dir); len(got) != 0 {
		t.Fatalf("read %v from a count alone", got)
	}
}
