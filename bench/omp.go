package main

// The table "omp": what OpenMP threads in the ranks cost under mpivet.
// bench/programs/halo_omp.c (the halo proxy with its sweep shared among
// OMP_NUM_THREADS threads; MPI from the master only under
// MPI_THREAD_FUNNELED, or from every thread with its own tags under
// MPI_THREAD_MULTIPLE) at 2 ranks, natively and under the default `mpivet
// run`, alternated: the wall and CPU time per iteration the program
// measures (the CPU of all threads of both ranks, steady state) and the CPU
// time (user + sys) of everything the run started (mpivet's own included).

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
)

var ompThreads = []int{1, 2, 4, 8}
var ompModes = []string{"funneled", "multiple"}

// ompArgs are halo_omp's block size and iterations.
var ompArgs = []string{"256", "200"}

// ompLaunchers are the launchers the native runs use: the ones mpivet run
// uses itself (launch.Session.Launcher), so that both bind alike.
var ompLaunchers = map[string][]string{"openmpi": {"mpirun.openmpi", "--oversubscribe"}, "mpich": {"mpiexec.mpich"}}

// ompSample is one run: the wall and CPU time per iteration (µs) and the
// CPU seconds of the run.
type ompSample struct{ iterUs, cpuIterUs, cpu float64 }

// runOmp measures the table "omp" under each MPI of mpis.
func runOmp(work string, reps int, mpis []string) [][]string {
	mpivet := filepath.Join(work, "mpivet")
	if out, err := exec.Command("go", "build", "-o", mpivet, "mpivet/cmd/mpivet").CombinedOutput(); err != nil {
		fail(fmt.Errorf("building mpivet: %v\n%s", err, out))
	}
	names := map[string]string{"openmpi": "Open MPI", "mpich": "MPICH"}
	var rows [][]string
	for _, m := range mpis {
		bin := filepath.Join(work, "halo_omp-"+m)
		if out, err := exec.Command(compilers[m], "-O2", "-fopenmp", "-o", bin, filepath.Join(sourceDir(), "halo_omp.c")).CombinedOutput(); err != nil {
			fail(fmt.Errorf("%s: %v\n%s", compilers[m], err, out))
		}
		for _, mode := range ompModes {
			for _, t := range ompThreads {
				native, under, failed := ompMeasure(m, mode, t, bin, mpivet, work, reps)
				n := ompMedian(native)
				if len(under) == 0 {
					rows = append(rows, []string{"`halo_omp " + strings.Join(ompArgs, " ") + " " + mode + "`", names[m], strconv.Itoa(t),
						fmt.Sprintf("%.0f / %.0f µs", n.iterUs, n.cpuIterUs), fmt.Sprintf("every mpivet run failed (%d)", failed)})
					continue
				}
				u := ompMedian(under)
				ratio := fmt.Sprintf("%.2f×", u.cpu/n.cpu)
				if failed > 0 {
					ratio += fmt.Sprintf("; %d of %d mpivet runs failed", failed, reps)
				}
				rows = append(rows, []string{"`halo_omp " + strings.Join(ompArgs, " ") + " " + mode + "`", names[m], strconv.Itoa(t),
					fmt.Sprintf("%.0f / %.0f µs", n.iterUs, n.cpuIterUs), fmt.Sprintf("%.0f / %.0f µs", u.iterUs, u.cpuIterUs),
					fmt.Sprintf("%.2f× / %.2f×", u.iterUs/n.iterUs, u.cpuIterUs/n.cpuIterUs),
					fmt.Sprintf("%.2f s", n.cpu), fmt.Sprintf("%.2f s", u.cpu), ratio})
				fmt.Println(strings.Join(rows[len(rows)-1], "  "))
			}
		}
	}
	return rows
}

// ompMeasure alternates native runs and default mpivet runs of one
// setting, reps times each. An mpivet run that fails or does not end "ok"
// is counted (failed) and its output printed: the table says so.
func ompMeasure(m, mode string, threads int, bin, mpivet, work string, reps int) (native, under []ompSample, failed int) {
	args := append(append([]string{bin}, ompArgs...), mode)
	env := append(os.Environ(), fmt.Sprintf("OMP_NUM_THREADS=%d", threads))
	if m == "openmpi" {
		env = append(env, "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
	}
	for i := 0; i < reps; i++ {
		launcher := append(append([]string{}, ompLaunchers[m]...), "-n", "2")
		s, out, err := ompRun(append(launcher, args...), env)
		if err != nil {
			fail(fmt.Errorf("%s %s, %d threads, native: %v\n%s", m, mode, threads, err, out))
		}
		native = append(native, s)
		dir := filepath.Join(work, fmt.Sprintf("omp-%s-%s-%d-%d", m, mode, threads, i))
		s, out, err = ompRun(append([]string{mpivet, "run", "-n", "2", "--dir", dir}, args...), env)
		if err == nil && !strings.Contains(out, "\nverdict: ok") {
			err = fmt.Errorf("the verdict is not ok")
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: %s %s, %d threads, under mpivet: %v\n%s\n", m, mode, threads, err, out)
			failed++
			continue
		}
		os.RemoveAll(dir)
		under = append(under, s)
	}
	return native, under, failed
}

var iterUs = regexp.MustCompile(`RESULT iter_us=([0-9.]+) cpu_iter_us=([0-9.]+)`)

// ompRun runs a command line and returns the program's wall and CPU time
// per iteration, the CPU time of all it started (cpuTime), and
// its output.
func ompRun(argv, env []string) (ompSample, string, error) {
	var out bytes.Buffer
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, &out, &out
	if err := cmd.Run(); err != nil {
		return ompSample{}, out.String(), err
	}
	m := iterUs.FindStringSubmatch(out.String())
	if m == nil {
		return ompSample{}, out.String(), fmt.Errorf("no iter_us in the output")
	}
	us, _ := strconv.ParseFloat(m[1], 64)
	cpuUs, _ := strconv.ParseFloat(m[2], 64)
	return ompSample{us, cpuUs, cpuTime(cmd.ProcessState).Seconds()}, out.String(), nil
}

// ompMedian is the median of each value of the samples, taken alone.
func ompMedian(xs []ompSample) ompSample {
	var it, ci, cpu []float64
	for _, x := range xs {
		it, ci, cpu = append(it, x.iterUs), append(ci, x.cpuIterUs), append(cpu, x.cpu)
	}
	for _, v := range [][]float64{it, ci, cpu} {
		sort.Float64s(v)
	}
	return ompSample{median(it), median(ci), median(cpu)}
}
