package main

import (
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The CPU time of a command counts the processes it started and waited
// for (a launcher's ranks, mpivet's launcher): a busy loop run in a
// subshell, whose own shell does nothing, costs what it costs run by the
// shell itself.
func TestCPUTimeCountsDescendants(t *testing.T) {
	const loop = "i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done"
	cpu := func(script string) time.Duration {
		cmd := exec.Command("sh", "-c", script)
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		return cpuTime(cmd.ProcessState)
	}
	direct, nested := cpu(loop), cpu("("+loop+"); true")
	if direct < 20*time.Millisecond || nested < direct/2 {
		t.Errorf("CPU time of the loop %v, of the loop in a subshell %v", direct, nested)
	}
}

// An application's two rows of the table "apps": wall and CPU times, the
// default run's beside the native one with its ratio, the other
// variants' ratios, and the default run's memory, records and verdict;
// where the default run is not timed, the first interleaving's.
func TestAppRows(t *testing.T) {
	s := func(wall, cpu float64, mib int64, verdict string) appSample {
		return appSample{wall: time.Duration(wall * float64(time.Second)), cpu: time.Duration(cpu * float64(time.Second)),
			peakKB: mib << 10, records: mib << 20, verdict: verdict}
	}
	samples := map[string][]appSample{
		"native":     {s(2, 4, 0, ""), s(3, 5, 0, ""), s(9, 3, 0, "")},
		"recording":  {s(3, 6, 20, "ok")},
		"first":      {s(4, 8, 30, "ok")},
		"default":    {s(6, 9, 32, "ok: x"), s(5, 10, 30, "ok: x"), s(4, 12, 31, "ok: x")},
		"no-buffers": {s(4.5, 7, 28, "ok")},
	}
	rows := appRows(app{label: "x"}, samples)
	want := []string{
		"x | wall | 3.00 s | 5.00 s (1.67×) | 1.00× | 1.33× | 1.50× | 31 MiB | 31.0 MiB | ok",
		" | CPU | 4.00 s | 10.00 s (2.50×) | 1.50× | 2.00× | 1.75×",
	}
	for i, w := range want {
		if got := strings.Join(rows[i], " | "); got != w {
			t.Errorf("row %d: %s\nwant   %s", i, got, w)
		}
	}
	delete(samples, "default")
	delete(samples, "no-buffers")
	rows = appRows(app{label: "y", long: "hours"}, samples)
	if got := strings.Join(rows[0], " | "); got != "y | wall | 3.00 s | not timed (hours) | 1.00× | 1.33× | not timed | 30 MiB | 30.0 MiB | ok" {
		t.Errorf("a default run not timed: %s", got)
	}
	if len(rows[0]) != len(appColumns) {
		t.Errorf("%d cells for %d columns", len(rows[0]), len(appColumns))
	}
}
