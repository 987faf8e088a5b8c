// Command bench measures mpivet's overhead: each benchmark program runs
// natively and under mpivet, alternately, several times, under each MPI
// installed, and the ratio of the medians is reported.
//
//	go run ./bench                 # all benchmarks, both MPIs
//	go run ./bench -reps 9 -mpi openmpi
//
// The programs (bench/programs) time themselves with MPI_Wtime and print
// "RESULT name=value"; launching and recording costs outside the timed region
// are not what is measured. Lower is better for every value.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"mpivet/launch"
)

type benchmark struct {
	name, src, metric string
	np                int
	args              []string
}

var benchmarks = []benchmark{
	{"pingpong-8B", "pingpong.c", "latency_us", 2, []string{"8", "200000"}},
	{"halo-256", "halo.c", "iter_us", 2, []string{"256", "2000"}},
	// The interior updated while the halo is in flight: pages holding
	// pending buffers are touched, the worst case of the buffer checker.
	{"halo-overlap", "halo.c", "iter_us", 2, []string{"256", "2000", "overlap"}},
}

var compilers = map[string]string{"openmpi": "mpicc.openmpi", "mpich": "mpicc.mpich"}

// launchers bind ranks to cores, the same for native and mpivet runs: on a
// small machine an unbound MPICH run varies by 2x from the scheduler alone.
var launchers = map[string]string{
	"openmpi": "mpirun.openmpi --oversubscribe --bind-to core",
	"mpich":   "mpiexec.mpich -bind-to core",
}

func main() {
	reps := flag.Int("reps", 9, "runs of each variant")
	mpis := flag.String("mpi", "openmpi,mpich", "MPIs to measure")
	only := flag.String("run", "", "only benchmarks whose name contains this")
	flag.StringVar(&buffers, "buffers", "on", "mpivet's --buffers setting for the mpivet runs")
	flag.Parse()
	work, err := os.MkdirTemp("", "mpivet-bench-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(work)
	src := sourceDir()
	fmt.Printf("%-8s %-14s %-10s %10s %10s %8s %10s %10s %8s\n", "MPI", "benchmark", "metric",
		"native", "mpivet", "ratio", "native", "mpivet", "ratio")
	fmt.Printf("%-34s %30s %30s\n", "", "--------- median ---------", "---------- best ----------")
	for _, m := range strings.Split(*mpis, ",") {
		cc := compilers[m]
		if _, err := exec.LookPath(cc); err != nil {
			fmt.Printf("%-8s (not installed)\n", m)
			continue
		}
		for _, b := range benchmarks {
			if *only != "" && !strings.Contains(b.name, *only) {
				continue
			}
			bin := filepath.Join(work, b.name+"-"+m)
			if out, err := exec.Command(cc, "-O2", "-o", bin, filepath.Join(src, b.src)).CombinedOutput(); err != nil {
				fail(fmt.Errorf("%s: %v\n%s", cc, err, out))
			}
			native, under, err := measure(b, bin, work, *reps, launchers[m])
			if err != nil {
				fail(fmt.Errorf("%s/%s: %v", m, b.name, err))
			}
			nm, um, nb, ub := median(native), median(under), native[0], under[0]
			fmt.Printf("%-8s %-14s %-10s %10.3f %10.3f %8.3f %10.3f %10.3f %8.3f\n", m, b.name, b.metric, nm, um, um/nm, nb, ub, ub/nb)
		}
	}
}

var buffers string

// measure alternates native and mpivet runs and returns both samples, sorted.
func measure(b benchmark, bin, work string, reps int, launcher string) ([]float64, []float64, error) {
	var buf bytes.Buffer
	sess, err := launch.Prepare(launch.Options{NP: b.np, Program: bin, Args: b.args, Launcher: launcher,
		Buffers: buffers, Timeout: 10 * time.Minute, Stdout: &buf, Stderr: os.Stderr})
	if err != nil {
		return nil, nil, err
	}
	re := regexp.MustCompile(b.metric + `=([0-9.]+)`)
	parse := func(out string) (float64, error) {
		m := re.FindStringSubmatch(out)
		if m == nil {
			return 0, fmt.Errorf("no %s in output:\n%s", b.metric, out)
		}
		return strconv.ParseFloat(m[1], 64)
	}
	var native, under []float64
	for i := 0; i < reps; i++ {
		// native: the launcher command mpivet would use, without supervisor
		cmdline := append(append(sess.Launcher(), bin), b.args...)
		cmd := exec.Command(cmdline[0], cmdline[1:]...)
		cmd.Env = sess.Env()
		out, err := cmd.CombinedOutput()
		if err != nil {
			return nil, nil, fmt.Errorf("native run: %v\n%s", err, out)
		}
		v, err := parse(string(out))
		if err != nil {
			return nil, nil, err
		}
		native = append(native, v)

		buf.Reset()
		res, err := sess.Run(context.Background(), filepath.Join(work, fmt.Sprintf("run-%s-%d", filepath.Base(bin), i)))
		if err != nil {
			return nil, nil, err
		}
		if res.LauncherExit != 0 {
			return nil, nil, fmt.Errorf("run under mpivet failed (exit %d)", res.LauncherExit)
		}
		v, err = parse(buf.String())
		if err != nil {
			return nil, nil, err
		}
		under = append(under, v)
	}
	sort.Float64s(native)
	sort.Float64s(under)
	return native, under, nil
}

// median of a sorted sample.
func median(xs []float64) float64 { return xs[len(xs)/2] }

func sourceDir() string {
	for _, d := range []string{"bench/programs", "programs", "../bench/programs"} {
		if _, err := os.Stat(filepath.Join(d, "pingpong.c")); err == nil {
			abs, _ := filepath.Abs(d)
			return abs
		}
	}
	fail(fmt.Errorf("run from the repository: go run ./bench"))
	return ""
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(2)
}
