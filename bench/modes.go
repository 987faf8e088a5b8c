package main

// The tables measured by explorations of scripts/bench-parallel (the
// master/worker program, native and under mpivet, with the wall and CPU
// time of each run) and by mpivet runs of the halo proxy under each --wait.
// They all run scripts/bench-parallel through benchParallel and read its
// lines with parseRounds; -max-interleavings caps the explorations (a
// quick check of a mode; the rows name the interleavings explored).

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"mpivet/driver"
)

// capInterleavings, if above 0, caps every exploration of these modes.
var capInterleavings int

// round is one exploration scripts/bench-parallel printed.
type round struct {
	native, wall, user, sys, each float64
	jobs, wait                    string
	interleavings                 int
}

var roundFull = regexp.MustCompile(`^round \d+: native ([0-9.]+) s; mpivet --jobs (\S+) --wait (\S+): ([0-9.]+) s wall, CPU ([0-9.]+) user \+ ([0-9.]+) sys, (\d+) interleavings .*, ([0-9.]+) s wall and [0-9.]+ s CPU each;`)

// parseRounds reads the explorations of scripts/bench-parallel's output.
func parseRounds(out string) []round {
	var rs []round
	for _, l := range strings.Split(out, "\n") {
		m := roundFull.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		f := func(i int) float64 { v, _ := strconv.ParseFloat(m[i], 64); return v }
		n, _ := strconv.Atoi(m[7])
		rs = append(rs, round{native: f(1), jobs: m[2], wait: m[3], wall: f(4), user: f(5), sys: f(6), interleavings: n, each: f(8)})
	}
	return rs
}

// benchParallel runs scripts/bench-parallel with the environment settings
// env (NAME=VALUE; MAX is lowered to -max-interleavings) and the
// arguments, and returns its output, which it also prints.
func benchParallel(env []string, args ...string) string {
	root := filepath.Join(sourceDir(), "..", "..")
	if capInterleavings > 0 {
		kept := env[:0:0]
		for _, e := range env {
			if !strings.HasPrefix(e, "MAX=") {
				kept = append(kept, e)
			}
		}
		env = append(kept, fmt.Sprintf("MAX=%d", capInterleavings))
	}
	cmd := exec.Command(filepath.Join(root, "scripts", "bench-parallel"), args...)
	cmd.Dir, cmd.Stderr, cmd.Env = root, os.Stderr, append(os.Environ(), env...)
	fmt.Printf("%s scripts/bench-parallel %s\n", strings.Join(env, " "), strings.Join(args, " "))
	out, err := cmd.Output()
	os.Stdout.Write(out)
	if err != nil {
		fail(fmt.Errorf("scripts/bench-parallel: %v", err))
	}
	return string(out)
}

// pick returns the rounds of the given --jobs and --wait ("" for any).
func pick(rs []round, jobs, wait string) []round {
	var out []round
	for _, r := range rs {
		if (jobs == "" || r.jobs == jobs) && (wait == "" || r.wait == wait) {
			out = append(out, r)
		}
	}
	return out
}

// each formats a value of every round, joined by ", " (one per round),
// followed by unit.
func each(rs []round, f func(round) string, unit string) string {
	var vs []string
	for _, r := range rs {
		vs = append(vs, f(r))
	}
	if len(vs) == 0 {
		return ""
	}
	return strings.Join(vs, ", ") + unit
}

func medianOf(rs []round, f func(round) float64) float64 {
	var xs []float64
	for _, r := range rs {
		xs = append(xs, f(r))
	}
	if len(xs) == 0 {
		return 0
	}
	sort.Float64s(xs)
	return median(xs)
}

func interleavings(rs []round) string {
	if len(rs) == 0 {
		return "?"
	}
	return strconv.Itoa(rs[0].interleavings)
}

var wallOf = func(r round) float64 { return r.wall }
var cpuOf = func(r round) float64 { return r.user + r.sys }

// runParallel8 measures the table "parallel-8": 8-rank explorations with
// --jobs 1, 2 and 4, medians over reps rounds, speed-ups against --jobs 1.
func runParallel8(reps int) [][]string {
	jobs := []string{"1", "2", "4"}
	args := append([]string{strconv.Itoa(reps)}, jobs...)
	wide := parseRounds(benchParallel([]string{"RANKS=8", "TASKS=16", "FLAGS=--mixing-bound 0"}, args...))
	deep := parseRounds(benchParallel([]string{"RANKS=8", "TASKS=8", "MAX=40"}, args...))
	row := func(label string, rs []round, f func(round) float64, extra func(j string, v float64) string) []string {
		line := []string{label}
		for _, j := range jobs {
			v := medianOf(pick(rs, j, ""), f)
			line = append(line, fmt.Sprintf("%.1f s%s", v, extra(j, v)))
		}
		return line
	}
	speedup := func(rs []round) func(string, float64) string {
		return func(j string, v float64) string {
			if j == "1" || v == 0 {
				return ""
			}
			return fmt.Sprintf(" (%.2fx)", medianOf(pick(rs, "1", ""), wallOf)/v)
		}
	}
	cores := func(j string, v float64) string {
		w := medianOf(pick(wide, j, ""), wallOf)
		if w == 0 {
			return ""
		}
		return fmt.Sprintf(" (%.2f cores)", v/w)
	}
	return [][]string{
		row("16 tasks, `--mixing-bound 0`: "+interleavings(wide)+" interleavings", wide, wallOf, speedup(wide)),
		row("CPU (user + sys)", wide, cpuOf, cores),
		row("8 tasks, unbounded, `--max-interleavings "+interleavings(deep)+"` (depth-first: one branch)", deep, wallOf, speedup(deep)),
	}
}

// waitRows makes one row per --jobs of spin against sleep: wall and CPU
// of each round (cpu formats the CPU).
func waitRows(rs []round, label func(j string) string, cpu func(round) string, jobs ...string) [][]string {
	var rows [][]string
	wall := func(r round) string { return fmt.Sprintf("%.1f", r.wall) }
	for _, j := range jobs {
		spin, sleep := pick(rs, j, "spin"), pick(rs, j, "sleep")
		rows = append(rows, []string{label(j), each(spin, wall, " s"), each(spin, cpu, " s"), each(sleep, wall, " s"), each(sleep, cpu, " s")})
	}
	return rows
}

// runWaitOpenMPI measures the table "wait-openmpi".
func runWaitOpenMPI(reps int) [][]string {
	rs := parseRounds(benchParallel([]string{"RANKS=8", "TASKS=8", "MAX=40", "WAITS=spin sleep"}, strconv.Itoa(reps), "1", "2", "4"))
	sum := func(r round) string { return fmt.Sprintf("%.1f", r.user+r.sys) }
	return waitRows(rs, func(j string) string { return "`--jobs " + j + "`" }, sum, "1", "2", "4")
}

// runWaitMPICH measures the table "wait-mpich".
func runWaitMPICH(reps int) [][]string {
	split := func(r round) string { return fmt.Sprintf("%.1f + %.1f", r.user, r.sys) }
	r4 := parseRounds(benchParallel([]string{"MPI=mpich", "RANKS=4", "TASKS=6", "MAX=60", "WAITS=spin sleep"}, strconv.Itoa(reps), "1", "2"))
	r8 := parseRounds(benchParallel([]string{"MPI=mpich", "RANKS=8", "TASKS=8", "MAX=20", "WAITS=spin sleep"}, strconv.Itoa(reps), "1"))
	rows := waitRows(r4, func(j string) string {
		return "4 ranks, 6 tasks, " + interleavings(r4) + " interleavings, `--jobs " + j + "`"
	}, split, "1", "2")
	return append(rows, waitRows(r8, func(j string) string {
		return "8 ranks, 8 tasks, " + interleavings(r8) + " interleavings, `--jobs " + j + "`"
	}, split, "1")...)
}

// timelinePhases are the rows of the table "timeline" and the lines of
// scripts/replay-timeline they show.
var timelinePhases = [][2]string{
	{"`mpirun` started -> first rank's layer starts", "launcher exec -> first rank starts"},
	{"first -> last rank's layer starts", "first -> last rank starts"},
	{"the layer's constructor (slowest rank)", "layer start-up (constructor, slowest rank)"},
	{"`MPI_Init` (last constructor done -> last `MPI_Init` returned)", "MPI_Init (last start-up done -> last returned)"},
	{"the layer's work after `MPI_Init` (slowest rank)", "layer after MPI_Init (slowest rank)"},
	{"program and `MPI_Finalize` (to the last rank's exit)", "program + MPI_Finalize (last ready -> last exit)"},
	{"last exit -> `mpirun` seen to exit", "last rank exit -> launcher exit seen"},
	{"mpivet reads the records", "records read (and strays checked)"},
	{"mpivet checks the interleaving", "checks (analysis of the interleaving)"},
	{"mpivet plans and starts the next replay", "checked -> next replay's launcher exec"},
	{"**one interleaving**", "one interleaving, launch -> checked"},
	{"CPU of the 4 ranks: start to the layer", "exec and loading, to the layer's constructor"},
	{"CPU: the layer's constructor", "layer's constructor"},
	{"CPU: `MPI_Init`", "MPI_Init"},
	{"CPU: the layer after `MPI_Init`", "layer after MPI_Init"},
	{"CPU: program, `MPI_Finalize`, exit", "program, MPI_Finalize, exit"},
}

// timelineMedians reads the medians (ms) of scripts/replay-timeline's lines
// in bench-parallel's output; the CPU lines come after the wall ones, and a
// name in both (MPI_Init...) is taken from its own part.
func timelineMedians(out string) (wall, cpu map[string]string) {
	wall, cpu = map[string]string{}, map[string]string{}
	line := regexp.MustCompile(`^\s+(\S.*?)\s+([0-9.]+)ms\s+[0-9.]+s$`)
	in := wall
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "CPU time of the ranks") {
			in = cpu
		}
		if strings.Contains(l, "one interleaving, launch -> checked") {
			in = wall
		}
		if m := line.FindStringSubmatch(l); m != nil {
			in[m[1]] = m[2] + " ms"
		}
	}
	return wall, cpu
}

// runTimeline measures the table "timeline": a --jobs 1 exploration of 30
// interleavings with MPIVET_STARTUP=plain, then one with mpivet's start-up.
func runTimeline(reps int) [][]string {
	var cols [][2]map[string]string
	for _, env := range [][]string{{"MPIVET_STARTUP=plain", "MAX=30"}, {"MAX=30"}} {
		w, c := timelineMedians(benchParallel(env, "1", "1"))
		cols = append(cols, [2]map[string]string{w, c})
	}
	var rows [][]string
	for i, p := range timelinePhases {
		part := 0
		if i >= 11 {
			part = 1
		}
		row := []string{p[0]}
		for _, c := range cols {
			v := c[part][p[1]]
			if i == 10 && v != "" {
				v = "**" + v + "**"
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return rows
}

// runWaitHalo measures the table "wait-halo": the halo proxy (256x256, 500
// iterations) at 4 ranks under mpivet with --wait spin and sleep,
// alternated, reps rounds under each MPI: time per iteration and the CPU
// of the whole run (every process it started).
func runWaitHalo(work string, reps int, mpis []string) [][]string {
	b := benchmark{"wait-halo", "halo.c", "iter_us", 4, []string{"256", "500"}, "", "", false, ""}
	names := map[string]string{"openmpi": "Open MPI", "mpich": "MPICH"}
	var rows [][]string
	for _, m := range mpis {
		bin := filepath.Join(work, "wait-halo-"+m)
		if out, err := exec.Command(compilers[m], "-O2", "-o", bin, filepath.Join(sourceDir(), b.src)).CombinedOutput(); err != nil {
			fail(fmt.Errorf("%s: %v\n%s", compilers[m], err, out))
		}
		iter, cpu := map[string][]string{}, map[string][]string{}
		for i := 0; i < reps; i++ {
			for _, wait := range []string{"spin", "sleep"} {
				us, secs := waitRun(b, bin, launchers[m], wait, filepath.Join(work, fmt.Sprintf("wait-%s-%s-%d", m, wait, i)))
				iter[wait] = append(iter[wait], fmt.Sprintf("%.1f", us/1000))
				cpu[wait] = append(cpu[wait], fmt.Sprintf("%.1f", secs))
			}
		}
		rows = append(rows, []string{names[m], strings.Join(iter["spin"], ", ") + " ms", strings.Join(cpu["spin"], ", ") + " s",
			strings.Join(iter["sleep"], ", ") + " ms", strings.Join(cpu["sleep"], ", ") + " s"})
	}
	return rows
}

// waitRun runs b once under mpivet with --wait wait and returns its time
// per iteration (µs) and the CPU seconds (user + sys) of what it started.
func waitRun(b benchmark, bin, launcher, wait, dir string) (float64, float64) {
	var buf bytes.Buffer
	_, run, err := prepareWith(b, bin, launcher, &buf, func(o *driver.Options) { o.Wait = wait })
	if err != nil {
		fail(err)
	}
	var before, after syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &before)
	res, err := run(dir, driver.RunFiles{})
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &after)
	if err != nil || res.LauncherExit != 0 {
		fail(fmt.Errorf("%s --wait %s: %v\n%s", b.name, wait, err, buf.String()))
	}
	m := regexp.MustCompile(`iter_us=([0-9.]+)`).FindStringSubmatch(buf.String())
	if m == nil {
		fail(fmt.Errorf("%s --wait %s: no iter_us in output:\n%s", b.name, wait, buf.String()))
	}
	us, _ := strconv.ParseFloat(m[1], 64)
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return us, tv(after.Utime) - tv(before.Utime) + tv(after.Stime) - tv(before.Stime)
}
