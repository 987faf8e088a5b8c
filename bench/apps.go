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

// app is a real application from Debian's archive (or a benchmark
// program), run as a user would: its own input in a fresh working
// directory.
type app struct {
	name  string
	label string // its row in the table "apps"
	// program is what runs (with build: the tool the build needs), looked
	// up in PATH.
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
	// needs are the files that must exist for the application to run
	// (besides program, looked up in PATH).
	needs []string
	// build, if set, makes the application once in dir, before its runs,
	// from the repository's bench/programs (src), and returns the command
	// that runs it (args follow).
	build func(src, dir string) ([]string, error)
	// locate, if set, finds program where a script of the repository
	// builds it outside PATH, or says why it is not there.
	locate func() (string, error)
	// ranks is the number of ranks it runs at (0: 4), env what it adds to
	// the environment.
	ranks int
	env   []string
}

// PETSc as Debian installs it (petsc-dev, libpetsc3.18-dev-examples).
const (
	petscDir      = "/usr/lib/petscdir/petsc-real"
	petscShare    = "/usr/share/petsc/3.18/share/petsc"
	petscTutorial = petscShare + "/examples/src/snes/tutorials/ex5.c"
)

var lammpsMelt = map[string]string{"in.melt": "/usr/share/lammps/examples/melt/in.melt"}

var apps = []app{
	{name: "halo-4", label: "halo exchange (`bench/programs/halo.c 256 5000`)", program: "mpicc.openmpi", args: []string{"256", "5000"},
		pkg: "libopenmpi-dev", build: buildC("halo.c")},
	{name: "lammps-melt", label: "LAMMPS melt (250 steps)", program: "lmp", args: []string{"-in", "in.melt"},
		inputs: lammpsMelt, pkg: "lammps lammps-examples"},
	{name: "lammps-2500", label: "LAMMPS melt, 2500 steps", program: "lmp", args: []string{"-in", "in.melt"},
		inputs: lammpsMelt, pkg: "lammps lammps-examples", edit: [2]string{"run\t\t250\n", "run\t\t2500\n"}},
	{name: "petsc-ex5", label: "PETSc SNES ex5 (`-da_grid_x 256 -da_grid_y 256`)", program: "make",
		args: []string{"-da_grid_x", "256", "-da_grid_y", "256"}, pkg: "petsc-dev libpetsc3.18-dev-examples",
		needs: []string{petscDir + "/include/petsc.h", petscShare + "/Makefile.basic.user", petscTutorial}, build: buildPETSc},
	{name: "py-halo", label: "mpi4py + NumPy halo (`bench/programs/halo.py 1024 500`)", program: python, args: []string{"1024", "500"},
		pkg: "python3-mpi4py python3-numpy", needs: []string{"/usr/lib/python3/dist-packages/mpi4py", "/usr/lib/python3/dist-packages/numpy"},
		build: checkPython("halo.py")},
	{name: "hpcc", label: "HPCC (`_hpccinf.txt`)", program: "hpcc",
		inputs: map[string]string{"hpccinf.txt": "/usr/share/doc/hpcc/examples/_hpccinf.txt"}, pkg: "hpcc",
		long: "its wildcard receives give hundreds of interleavings, each a whole run of the benchmark: hours"},
}

// tableApps are the applications of the table "apps" (lammps-2500 is
// measured by name: -apps -run lammps-2500).
var tableApps = regexp.MustCompile(`^(halo-4|lammps-melt|lammps-omp|petsc-ex5|py-halo|hpcc)$`)

// buildC compiles a benchmark program with Open MPI's compiler wrapper
// (Debian's applications are built on Open MPI).
func buildC(file string) func(src, dir string) ([]string, error) {
	return func(src, dir string) ([]string, error) {
		bin := filepath.Join(dir, strings.TrimSuffix(file, ".c"))
		if out, err := exec.Command("mpicc.openmpi", "-O2", "-o", bin, filepath.Join(src, file)).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("mpicc.openmpi: %v\n%s", err, out)
		}
		return []string{bin}, nil
	}
}

// buildPETSc builds the tutorial as PETSc's users do: its source beside a
// copy of PETSc's Makefile.basic.user (its variables and rules: PETSc's
// compiler flags, include directories and libraries), make with PETSC_DIR,
// and Open MPI's compiler wrapper, on which Debian builds PETSc.
func buildPETSc(_, dir string) ([]string, error) {
	for from, to := range map[string]string{petscShare + "/Makefile.basic.user": "makefile", petscTutorial: "ex5.c"} {
		data, err := os.ReadFile(from)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, to), data, 0o644); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command("make", "PETSC_DIR="+petscDir, "PCC=mpicc.openmpi", "PCC_LINKER=mpicc.openmpi", "ex5")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("make ex5: %v\n%s", err, out)
	}
	return []string{filepath.Join(dir, "ex5")}, nil
}

// checkPython runs a Python benchmark program with Debian's interpreter,
// once mpi4py and NumPy import.
func checkPython(file string) func(src, dir string) ([]string, error) {
	return func(src, _ string) ([]string, error) {
		if out, err := exec.Command(python, "-c", "import mpi4py, numpy").CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%s cannot import mpi4py and numpy: %v\n%s", python, err, out)
		}
		return []string{python, filepath.Join(src, file)}, nil
	}
}

// appVariant is one way of running an application: natively, or under
// mpivet with the given flags.
type appVariant struct {
	name  string
	flags []string // nil: native
	// long: only for applications whose whole default run is not timed
	// (app.long), to show what several interleavings cost.
	long bool
	// whole: a whole default run, every interleaving (not timed for
	// those applications).
	whole bool
}

var appVariants = []appVariant{
	{"native", nil, false, false},
	{"recording", []string{"--clocks=off", "--buffers=off", "--buffering-check=false"}, false, false},
	{"first", []string{"--max-interleavings=1"}, false, false}, // the default run's first interleaving, buffering check included
	{"default", []string{}, false, true},
	{"no-buffers", []string{"--buffers=off"}, false, true}, // the default but for the nonblocking-buffer checker
	// ten interleavings of the default run: mpivet's memory must not grow
	// with the interleavings explored (records of clean ones are deleted).
	{"ten", []string{"--max-interleavings=10"}, true, false},
}

// appSample is one run: wall time, CPU time (user and system) of the
// whole command and every process it waited for, mpivet's peak resident
// memory, the size of the records it left, and its verdict.
type appSample struct {
	wall, cpu time.Duration
	peakKB    int64
	records   int64
	verdict   string
}

// runApps measures each application at 4 ranks under Open MPI (the MPI
// Debian links them to), the variants alternated, reps times, and prints
// the medians and their ratios to the native run; it returns them as the
// rows of the table "apps", two per application (wall time, CPU time).
func runApps(work string, reps int, match *regexp.Regexp) [][]string {
	var rows [][]string
	mpivet := filepath.Join(work, "mpivet")
	if out, err := exec.Command("go", "build", "-o", mpivet, "mpivet/cmd/mpivet").CombinedOutput(); err != nil {
		fail(fmt.Errorf("building mpivet: %v\n%s", err, out))
	}
	fmt.Printf("%-12s %-10s %8s %6s %8s %6s %11s %12s  %s\n", "application", "variant", "wall s", "ratio", "CPU s", "ratio", "mpivet MiB", "records MiB", "verdict")
	for _, a := range apps {
		if !match.MatchString(a.name) || (onlyRun != nil && !onlyRun.MatchString(a.name)) {
			continue
		}
		if miss := a.missing(); miss != "" {
			fmt.Printf("%-12s (not installed: %s; apt-get install %s)\n", a.name, miss, a.pkg)
			continue
		}
		command, err := a.command(work)
		if err != nil {
			fail(fmt.Errorf("%s: %v", a.name, err))
		}
		samples := map[string][]appSample{}
		for i := 0; i < reps; i++ {
			for _, v := range appVariants {
				if (v.whole && a.long != "") || (v.long && a.long == "") {
					continue
				}
				s, err := runApp(a, command, v, mpivet, filepath.Join(work, fmt.Sprintf("%s-%s-%d", a.name, v.name, i)))
				if err != nil {
					fail(fmt.Errorf("%s %s: %v", a.name, v.name, err))
				}
				samples[v.name] = append(samples[v.name], s)
			}
		}
		printApp(a, samples)
		rows = append(rows, appRows(a, samples)...)
	}
	return rows
}

// missing names what the application needs and the machine lacks ("": all
// there).
func (a app) missing() string {
	if a.locate != nil {
		if _, err := a.locate(); err != nil {
			return err.Error()
		}
	} else if _, err := exec.LookPath(a.program); err != nil {
		return a.program
	}
	for _, f := range a.needs {
		if _, err := os.Stat(f); err != nil {
			return f
		}
	}
	for _, f := range a.inputs {
		if _, err := os.Stat(f); err != nil {
			return f
		}
	}
	return ""
}

// command builds the application, if it is built, in its own directory
// of work, and returns the command that runs it.
func (a app) command(work string) ([]string, error) {
	if a.locate != nil {
		bin, err := a.locate()
		return append([]string{bin}, a.args...), err
	}
	if a.build == nil {
		return append([]string{a.program}, a.args...), nil
	}
	dir := filepath.Join(work, "build-"+a.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	cmd, err := a.build(sourceDir(), dir)
	if err != nil {
		return nil, err
	}
	return append(cmd, a.args...), nil
}

// printApp prints an application's medians, each variant's against the
// native run.
func printApp(a app, samples map[string][]appSample) {
	native := appMedians(samples["native"])
	for _, v := range appVariants {
		if v.long && a.long == "" {
			continue
		}
		if len(samples[v.name]) == 0 {
			fmt.Printf("%-12s %-10s (not timed: %s)\n", a.name, v.name, a.long)
			continue
		}
		m := appMedians(samples[v.name])
		mem, rec := "-", "-"
		if v.flags != nil {
			mem = fmt.Sprintf("%.0f", float64(m.peakKB)/1024)
			rec = fmt.Sprintf("%.1f", float64(m.records)/(1<<20))
		}
		fmt.Printf("%-12s %-10s %8.2f %6.2f %8.2f %6.2f %11s %12s  %s\n", a.name, v.name, m.wall.Seconds(), ratio(m.wall, native.wall),
			m.cpu.Seconds(), ratio(m.cpu, native.cpu), mem, rec, m.verdict)
	}
}

func ratio(x, native time.Duration) float64 { return x.Seconds() / native.Seconds() }

// appColumns are the columns of the table "apps": per application a line
// of wall times and one of CPU times, the native run's, the default
// run's beside it (with its ratio), the other variants' ratios, and the
// default run's peak memory, records and verdict's first word (the first
// interleaving's where the default is not timed).
var appColumns = []string{"application, 4 ranks (Open MPI)", "time", "native", "default `mpivet run`", "recording only",
	"first interleaving", "default, `--buffers=off`", "mpivet peak", "records", "verdict"}

// appRows are an application's two rows of the table "apps".
func appRows(a app, samples map[string][]appSample) [][]string {
	native := appMedians(samples["native"])
	of := "default"
	if len(samples[of]) == 0 {
		of = "first"
	}
	m := appMedians(samples[of])
	var rows [][]string
	for i, what := range []string{"wall", "CPU"} {
		get := func(s appSample) time.Duration { return [2]time.Duration{s.wall, s.cpu}[i] }
		row := []string{a.label, what, fmt.Sprintf("%.2f s", get(native).Seconds())}
		if i == 1 {
			row[0] = ""
		}
		for _, v := range []string{"default", "recording", "first", "no-buffers"} {
			switch {
			case len(samples[v]) == 0 && v == "default":
				row = append(row, "not timed (hours)")
			case len(samples[v]) == 0:
				row = append(row, "not timed")
			case v == "default":
				d := get(appMedians(samples[v]))
				row = append(row, fmt.Sprintf("%.2f s (%.2f×)", d.Seconds(), ratio(d, get(native))))
			default:
				row = append(row, fmt.Sprintf("%.2f×", ratio(get(appMedians(samples[v])), get(native))))
			}
		}
		if i == 0 {
			row = append(row, fmt.Sprintf("%.0f MiB", float64(m.peakKB)/1024), fmt.Sprintf("%.1f MiB", float64(m.records)/(1<<20)), strings.SplitN(m.verdict, ":", 2)[0])
		}
		rows = append(rows, row)
	}
	return rows
}

// runApp runs one variant in a fresh working directory holding the inputs.
func runApp(a app, command []string, v appVariant, mpivet, dir string) (appSample, error) {
	if err := writeInputs(a, dir); err != nil {
		return appSample{}, err
	}
	defer os.RemoveAll(dir)
	var cmd *exec.Cmd
	runDir := filepath.Join(dir, "mpivet-run")
	np := "4"
	if a.ranks > 0 {
		np = strconv.Itoa(a.ranks)
	}
	if v.flags == nil {
		cmd = exec.Command("mpirun.openmpi", append([]string{"--oversubscribe", "-n", np}, command...)...)
	} else {
		args := append([]string{"run", "-n", np, "--dir", runDir}, v.flags...)
		cmd = exec.Command(mpivet, append(args, command...)...)
	}
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"), a.env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return appSample{}, err
	}
	cmd.Stderr = io.Discard
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return appSample{}, err
	}
	peak := watchPeak(cmd.Process.Pid)
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
	peakKB := peak()
	err = cmd.Wait()
	s := appSample{wall: wall, cpu: cpuTime(cmd.ProcessState), peakKB: peakKB, verdict: verdict, records: dirSize(runDir)}
	if v.flags == nil && err != nil {
		return s, fmt.Errorf("native run failed: %v", err)
	}
	return s, nil
}

// cpuTime is the user and system time of a process and of every
// descendant it waited for (the ranks, the launcher, mpivet and what it
// ran: getrusage's children of the process, reported by wait4).
func cpuTime(ps *os.ProcessState) time.Duration {
	if ps == nil {
		return 0
	}
	return ps.UserTime() + ps.SystemTime()
}

// writeInputs makes a fresh working directory holding the application's
// inputs (edited if it says so).
func writeInputs(a app, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, from := range a.inputs {
		data, err := os.ReadFile(from)
		if err != nil {
			return err
		}
		if a.edit[0] != "" {
			if !strings.Contains(string(data), a.edit[0]) {
				return fmt.Errorf("%s: no %q to replace", from, a.edit[0])
			}
			data = []byte(strings.ReplaceAll(string(data), a.edit[0], a.edit[1]))
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
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

// appMedians is the median of each of a sample's values, each taken apart.
func appMedians(xs []appSample) appSample {
	mid := func(less func(a, b appSample) bool) appSample {
		ys := append([]appSample(nil), xs...)
		sort.Slice(ys, func(i, j int) bool { return less(ys[i], ys[j]) })
		return ys[len(ys)/2]
	}
	m := mid(func(a, b appSample) bool { return a.wall < b.wall })
	m.cpu = mid(func(a, b appSample) bool { return a.cpu < b.cpu }).cpu
	m.peakKB = mid(func(a, b appSample) bool { return a.peakKB < b.peakKB }).peakKB
	m.records = mid(func(a, b appSample) bool { return a.records < b.records }).records
	return m
}
