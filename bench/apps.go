package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// app is a real application from Debian's archive, run as a user would:
// its own input in a fresh working directory.
type app struct {
	name    string
	label   string // its row in the table "apps"
	program string
	args    []string
	inputs  map[string]string // file in the working directory <- installed file
	pkg     string            // the Debian packages that install it
	// long says why the whole default run (every interleaving) is not
	// timed; its first interleaving (variant "first") is.
	long string
	// edit, if set, replaces edit[0] by edit[1] in the inputs (e.g. a
	// longer run of the same example, so that mpivet's fixed costs do not
	// hide its cost per step).
	edit [2]string
}

var apps = []app{
	{"lammps-melt", "LAMMPS melt (250 steps)", "lmp", []string{"-in", "in.melt"},
		map[string]string{"in.melt": "/usr/share/lammps/examples/melt/in.melt"}, "lammps lammps-examples", "", [2]string{}},
	{"lammps-2500", "LAMMPS melt, 2500 steps", "lmp", []string{"-in", "in.melt"},
		map[string]string{"in.melt": "/usr/share/lammps/examples/melt/in.melt"}, "lammps lammps-examples", "",
		[2]string{"run\t\t250\n", "run\t\t2500\n"}},
	{"hpcc", "HPCC (`_hpccinf.txt`)", "hpcc", nil,
		map[string]string{"hpccinf.txt": "/usr/share/doc/hpcc/examples/_hpccinf.txt"}, "hpcc",
		"its wildcard receives give hundreds of interleavings, each a whole run of the benchmark: hours", [2]string{}},
}

// appVariant is one way of running an application: natively, or under
// mpivet with the given flags.
type appVariant struct {
	name  string
	flags []string // nil: native
	// long: only for applications whose whole default run is not timed
	// (app.long), to show what several interleavings cost.
	long bool
}

var appVariants = []appVariant{
	{"native", nil, false},
	{"recording", []string{"--clocks=off", "--buffers=off", "--buffering-check=false"}, false},
	{"first", []string{"--max-interleavings=1"}, false}, // the default run's first interleaving, buffering check included
	{"default", []string{}, false},
	{"no-buffers", []string{"--buffers=off"}, false}, // the default but for the nonblocking-buffer checker
	// ten interleavings of the default run: mpivet's memory must not grow
	// with the interleavings explored (records of clean ones are deleted).
	{"ten", []string{"--max-interleavings=10"}, true},
}

// appSample is one run: wall time, mpivet's peak resident memory, the size
// of the records it left, and its verdict.
type appSample struct {
	wall    time.Duration
	peakKB  int64
	records int64
	verdict string
}

// runApps measures each application at 4 ranks (or as appLaunches says)
// under Open MPI (the MPI Debian links them to), the variants alternated, reps times, and prints
// the medians and their ratios to the native run; it returns them as the
// rows of the table "apps".
func runApps(work string, reps int, match *regexp.Regexp) [][]string {
	var rows [][]string
	mpivet := filepath.Join(work, "mpivet")
	if out, err := exec.Command("go", "build", "-o", mpivet, "mpivet/cmd/mpivet").CombinedOutput(); err != nil {
		fail(fmt.Errorf("building mpivet: %v\n%s", err, out))
	}
	fmt.Printf("%-12s %-10s %10s %7s %12s %12s  %s\n", "application", "variant", "wall s", "ratio", "mpivet MiB", "records MiB", "verdict")
	for _, a := range apps {
		if !match.MatchString(a.name) {
			continue
		}
		program, err := appProgram(a)
		if err != nil {
			fmt.Printf("%-12s (%v)\n", a.name, err)
			continue
		}
		a.program = program
		samples := map[string][]appSample{}
		for i := 0; i < reps; i++ {
			for _, v := range appVariants {
				if (v.name == "default" && a.long != "") || (v.long && a.long == "") {
					continue
				}
				s, err := runApp(a, v, mpivet, filepath.Join(work, fmt.Sprintf("%s-%s-%d", a.name, v.name, i)))
				if err != nil {
					fail(fmt.Errorf("%s %s: %v", a.name, v.name, err))
				}
				samples[v.name] = append(samples[v.name], s)
			}
		}
		native := medianSample(samples["native"])
		rows = append(rows, appRow(a, samples))
		for _, v := range appVariants {
			if v.long && a.long == "" {
				continue
			}
			if len(samples[v.name]) == 0 {
				fmt.Printf("%-12s %-10s (not timed: %s)\n", a.name, v.name, a.long)
				continue
			}
			m := medianSample(samples[v.name])
			mem, rec := "-", "-"
			if v.flags != nil {
				mem = fmt.Sprintf("%.0f", float64(m.peakKB)/1024)
				rec = fmt.Sprintf("%.1f", float64(m.records)/(1<<20))
			}
			fmt.Printf("%-12s %-10s %10.2f %7.2f %12s %12s  %s\n", a.name, v.name, m.wall.Seconds(),
				m.wall.Seconds()/native.wall.Seconds(), mem, rec, m.verdict)
		}
	}
	return rows
}

// appRow is an application's row of the table "apps": the native median
// wall time, each variant's ratio to it, and the peak memory and records
// of the default run (of the first interleaving where the default is not
// timed).
func appRow(a app, samples map[string][]appSample) []string {
	native := medianSample(samples["native"])
	row := []string{a.label, fmt.Sprintf("%.2f s", native.wall.Seconds())}
	for _, v := range []string{"recording", "first", "default", "no-buffers"} {
		if len(samples[v]) == 0 {
			row = append(row, "not timed")
			continue
		}
		row = append(row, fmt.Sprintf("%.2f×", medianSample(samples[v]).wall.Seconds()/native.wall.Seconds()))
	}
	of := "default"
	if len(samples[of]) == 0 {
		of = "first"
	}
	m := medianSample(samples[of])
	return append(row, fmt.Sprintf("%.0f MiB", float64(m.peakKB)/1024), fmt.Sprintf("%.1f MiB", float64(m.records)/(1<<20)))
}

// runApp runs one variant in a fresh working directory holding the inputs.
func runApp(a app, v appVariant, mpivet, dir string) (appSample, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return appSample{}, err
	}
	defer os.RemoveAll(dir)
	for name, from := range a.inputs {
		data, err := os.ReadFile(from)
		if err != nil {
			return appSample{}, err
		}
		if a.edit[0] != "" {
			if !strings.Contains(string(data), a.edit[0]) {
				return appSample{}, fmt.Errorf("%s: no %q to replace", from, a.edit[0])
			}
			data = []byte(strings.ReplaceAll(string(data), a.edit[0], a.edit[1]))
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return appSample{}, err
		}
	}
	var cmd *exec.Cmd
	runDir := filepath.Join(dir, "mpivet-run")
	np, env := appRanks(a)
	if v.flags == nil {
		args := append([]string{"--oversubscribe", "-n", np, a.program}, a.args...)
		cmd = exec.Command("mpirun.openmpi", args...)
	} else {
		args := append([]string{"run", "-n", np, "--dir", runDir}, v.flags...)
		cmd = exec.Command(mpivet, append(append(args, a.program), a.args...)...)
	}
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return appSample{}, err
	}
	cmd.Stderr = io.Discard
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return appSample{}, err
	}
	// mpivet's own peak memory: its VmHWM, read until it exits.
	stop, peakc := make(chan struct{}), make(chan int64)
	go func() {
		var peak int64
		for {
			if kb := vmHWM(cmd.Process.Pid); kb > peak {
				peak = kb
			}
			select {
			case <-stop:
				peakc <- peak
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	verdict := ""
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if l := sc.Text(); strings.HasPrefix(l, "verdict: ") {
			verdict = strings.SplitN(strings.TrimPrefix(l, "verdict: "), " (records", 2)[0]
		}
	}
	// (the last reading is taken before Wait reaps the process)
	wall := time.Since(start)
	close(stop)
	peak := <-peakc
	err = cmd.Wait()
	s := appSample{wall: wall, peakKB: peak, verdict: verdict, records: dirSize(runDir)}
	if v.flags == nil && err != nil {
		return s, fmt.Errorf("native run failed: %v", err)
	}
	return s, nil
}

// vmHWM is a process's peak resident set in KiB (0 once it is gone).
func vmHWM(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			f := strings.Fields(l)
			if len(f) >= 2 {
				kb, _ := strconv.ParseInt(f[1], 10, 64)
				return kb
			}
		}
	}
	return 0
}

// dirSize is the space the files below dir take on disk (logs are sparse).
func dirSize(dir string) int64 {
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				n += st.Blocks * 512
			} else {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

func medianSample(xs []appSample) appSample {
	ys := append([]appSample(nil), xs...)
	sort.Slice(ys, func(i, j int) bool { return ys[i].wall < ys[j].wall })
	return ys[len(ys)/2]
}
