// Command bench measures mpivet's overhead: each benchmark program runs
// natively and under mpivet, alternately, several times, under each MPI
// installed, and the ratio of the medians is reported.
//
//	go run ./bench                 # all benchmarks, both MPIs
//	go run ./bench -reps 9 -mpi openmpi
//	go run ./bench -run 'multipair|clocks|replay'   # the exploration's costs (docs/performance.md)
//	go run ./bench -apps -reps 3   # whole runs of real programs (halo, LAMMPS, PETSc, mpi4py, HPCC): wall and CPU, native and under mpivet
//	go run ./bench -slack -reps 5  # whole runs with and without the buffering-aware exploration
//	nice -n 19 go run ./bench -scale -reps 1   # 2..256 ranks, LLCP and LVCP: docs/scaling.csv, docs/scaling-*.png
//	go run ./bench -scale-plot docs/scaling.csv # redraw the plots and print the table from the CSV
//	go run ./bench -run '^halo' -reps 5 -out docs/bench/overhead.csv   # append the results to a CSV file
//	go run ./bench -tables docs/performance.md  # regenerate the page's tables from the files it names
//	go run ./bench -table polls -reps 5   # measure one recorded table, add its rows to docs/bench/polls.csv
//	go run ./bench -table wait-mpich -max-interleavings 2 -table-out /tmp/t.csv   # a quick check of a mode
//
// The programs (bench/programs) time themselves with MPI_Wtime and print
// "RESULT name=value"; launching and recording costs outside the timed region
// are not what is measured, except for metric "wall", the wall time of the
// whole run as the harness sees it (for replays: the time per replayed
// interleaving against one native run). Lower is better for every value.
//
// The files: main.go the benchmarks and the overhead measurement; apps.go
// the real applications; slack.go the buffering-aware exploration;
// scale.go and scaleplot.go the scaling series and its plots; results.go
// the result files (-out) and the generated blocks of docs/performance.md
// (-tables); tables.go the table files of its recorded measurements and
// what measures each (-table); modes.go and replays.go the tables measured
// by explorations (scripts/bench-parallel) and by --wait spin against
// sleep; omp.go the table of OpenMP threads per rank; apps_omp.go LAMMPS
// with its OPENMP package (scripts/lammps-omp); programs/ the benchmark
// programs.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"mpivet/driver"
	"mpivet/explore"
	"mpivet/launch"
)

type benchmark struct {
	name, src, metric string
	np                int
	args              []string
	clocks, buffers   string // mpivet settings ("": the defaults, or -buffers)
	replay            bool   // mpivet runs replay the first run's matches (a decision file)
	arguments         string // mpivet's --arguments ("": -arguments)
}

var benchmarks = []benchmark{
	{"pingpong-8B", "pingpong.c", "latency_us", 2, []string{"8", "200000"}, "", "", false, ""},
	{"halo-256", "halo.c", "iter_us", 2, []string{"256", "2000"}, "", "", false, ""},
	// The interior updated while the halo is in flight: pages holding
	// pending buffers are touched, the worst case of the buffer checker.
	{"halo-overlap", "halo.c", "iter_us", 2, []string{"256", "2000", "overlap"}, "", "", false, ""},
	// Recording and the live wait state alone (what deadlock detection needs).
	{"halo-state", "halo.c", "iter_us", 2, []string{"256", "2000"}, "off", "off", false, ""},
	// The clock protocol alone (no wildcards: piggybacks and collective
	// clock synchronisation only).
	{"halo-clocks", "halo.c", "iter_us", 2, []string{"256", "2000"}, "lamport", "off", false, ""},
	// The buffer checker alone, without and with accesses to pages of
	// pending buffers.
	{"halo-buffers", "halo.c", "iter_us", 2, []string{"256", "2000"}, "off", "on", false, ""},
	{"halo-overlap-buffers", "halo.c", "iter_us", 2, []string{"256", "2000", "overlap"}, "off", "on", false, ""},
	// The same for ten times as long, as in a real run of minutes.
	{"halo-overlap-long", "halo.c", "iter_us", 2, []string{"256", "20000", "overlap"}, "", "", false, ""},
	// The same at 4 ranks (on 2 cores, oversubscribed: mpivet's ranks
	// sleep where they wait, native ones spin), with each part alone.
	{"halo-4", "halo.c", "iter_us", 4, []string{"256", "500"}, "", "", false, ""},
	{"halo-4-state", "halo.c", "iter_us", 4, []string{"256", "500"}, "off", "off", false, ""},
	{"halo-4-clocks", "halo.c", "iter_us", 4, []string{"256", "500"}, "lamport", "off", false, ""},
	{"halo-4-buffers", "halo.c", "iter_us", 4, []string{"256", "500"}, "off", "on", false, ""},
	// Nothing but small exchanges (16x16 doubles, 1 us per iteration
	// natively): the worst case for recording and for the buffer checker,
	// which watches only as many operations as a fifth of the run pays for.
	{"halo-16", "halo.c", "iter_us", 2, []string{"16", "100000"}, "", "", false, ""},
	{"halo-16-state", "halo.c", "iter_us", 2, []string{"16", "100000"}, "off", "off", false, ""},
	{"halo-16-buffers", "halo.c", "iter_us", 2, []string{"16", "100000"}, "off", "on", false, ""},
	// A polling loop (MPI_Testany and MPI_Iprobe, 2M polls per rank of
	// which a few hundred find something), as in HPCC's RandomAccess: per
	// poll, and the wall time of the whole run.
	{"polls", "polls.c", "poll_ns", 2, []string{"100", "10000"}, "", "", false, ""},
	{"polls-wall", "polls.c", "wall_ms", 2, []string{"100", "10000"}, "", "", false, ""},
	{"polls-state", "polls.c", "poll_ns", 2, []string{"100", "10000"}, "off", "off", false, ""},
	{"polls-clocks", "polls.c", "poll_ns", 2, []string{"100", "10000"}, "lamport", "off", false, ""},
	{"polls-buffers", "polls.c", "poll_ns", 2, []string{"100", "10000"}, "off", "on", false, ""},
	// LLCP and LVCP latency on multi-pair ping-pong (seed 000, Fig. 5.25).
	{"multipair-2-llcp", "multipair.c", "latency_us", 2, []string{"50000"}, "lamport", "off", false, ""},
	{"multipair-2-lvcp", "multipair.c", "latency_us", 2, []string{"50000"}, "vector", "off", false, ""},
	{"multipair-8-llcp", "multipair.c", "latency_us", 8, []string{"5000"}, "lamport", "off", false, ""},
	{"multipair-8-lvcp", "multipair.c", "latency_us", 8, []string{"5000"}, "vector", "off", false, ""},
	{"multipair-32-llcp", "multipair.c", "latency_us", 32, []string{"1000"}, "lamport", "off", false, ""},
	{"multipair-32-lvcp", "multipair.c", "latency_us", 32, []string{"1000"}, "vector", "off", false, ""},
	{"multipair-64-llcp", "multipair.c", "latency_us", 64, []string{"500"}, "lamport", "off", false, ""},
	{"multipair-64-lvcp", "multipair.c", "latency_us", 64, []string{"500"}, "vector", "off", false, ""},
	// Deterministic mode (--deterministic; clocks "deterministic" here),
	// buffer checker off: what determinism costs (dMPI: 8% on NPB).
	{"halo-256-determ", "halo.c", "iter_us", 2, []string{"256", "2000"}, "deterministic", "off", false, ""},
	{"halo-256-determ-8", "halo.c", "iter_us", 8, []string{"256", "500"}, "deterministic", "off", false, ""},
	{"pingpong-8B-determ", "pingpong.c", "latency_us", 2, []string{"8", "50000"}, "deterministic", "off", false, ""},
	{"multipair-8-determ", "multipair.c", "latency_us", 8, []string{"5000"}, "deterministic", "off", false, ""},
	{"multipair-32-determ", "multipair.c", "latency_us", 32, []string{"1000"}, "deterministic", "off", false, ""},
	{"multipair-64-determ", "multipair.c", "latency_us", 64, []string{"500"}, "deterministic", "off", false, ""},
	{"mw-2-determ", "masterworker.c", "run_ms", 2, []string{"200", "0", "time"}, "deterministic", "off", false, ""},
	{"mw-8-determ", "masterworker.c", "run_ms", 8, []string{"50", "200", "time"}, "deterministic", "off", false, ""},
	{"mw-32-determ", "masterworker.c", "run_ms", 32, []string{"10", "200", "time"}, "deterministic", "off", false, ""},
	{"mw-64-determ", "masterworker.c", "run_ms", 64, []string{"5", "200", "time"}, "deterministic", "off", false, ""},
	// One-sided halo exchange (bench/programs/rma_stencil.c): MPI_Put into
	// the neighbours' windows, synchronised by fences or by lock_all, flush
	// and a barrier; and the same with 16x16 blocks, where the calls are
	// most of the time.
	{"rma-fence", "rma_stencil.c", "iter_us", 2, []string{"256", "2000", "fence"}, "", "", false, ""},
	{"rma-lock", "rma_stencil.c", "iter_us", 2, []string{"256", "2000", "lock"}, "", "", false, ""},
	{"rma-fence-16", "rma_stencil.c", "iter_us", 2, []string{"16", "20000", "fence"}, "", "", false, ""},
	{"rma-lock-16", "rma_stencil.c", "iter_us", 2, []string{"16", "20000", "lock"}, "", "", false, ""},
	{"rma-cpu-fence", "rma_stencil.c", "cpu_iter_us", 1, []string{"256", "2000", "fence"}, "", "", false, ""},
	{"rma-cpu-lock", "rma_stencil.c", "cpu_iter_us", 1, []string{"256", "2000", "lock"}, "", "", false, ""},
	// One guided replay (every wildcard event forced) against a native run.
	{"replay-master-worker", "../../testdata/programs/wildcard_master_worker.c", "wall_ms", 3, []string{"40"}, "lamport", "", true, ""},
	// One MPI call on one rank, clocks and buffer checker off so that the
	// wrapper is all there is, with the argument checks on and off; 20,000
	// calls, whose records fit in the log's first part (a longer loop also
	// pays for the log's growth, about 100 ns per call more).
	{"calls-send", "calls.c", "call_ns", 1, []string{"send", "20000"}, "off", "off", false, "on"},
	{"calls-send-unchecked", "calls.c", "call_ns", 1, []string{"send", "20000"}, "off", "off", false, "off"},
	{"calls-allreduce", "calls.c", "call_ns", 1, []string{"allreduce", "20000"}, "off", "off", false, "on"},
	{"calls-allreduce-unchecked", "calls.c", "call_ns", 1, []string{"allreduce", "20000"}, "off", "off", false, "off"},
	// Python (mpi4py, Debian's: Open MPI only), with every check of a C
	// program and the Python line of each call: a NumPy ping-pong, and a
	// NumPy halo exchange with a Jacobi step (the interpreter's own work).
	{"py-pingpong", "pingpong.py", "latency_us", 2, []string{"20000"}, "", "", false, ""},
	{"py-halo-256", "halo.py", "iter_us", 2, []string{"256", "1000"}, "", "", false, ""},
}

// python is the interpreter of the Python benchmarks: Debian's, whose
// mpi4py and NumPy scripts/setup installs.
const python = "/usr/bin/python3"

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
	only := flag.String("run", "", "only benchmarks whose name matches this `regexp`")
	flag.StringVar(&buffers, "buffers", "on", "mpivet's --buffers setting for the mpivet runs")
	flag.StringVar(&arguments, "arguments", "on", "mpivet's --arguments setting for the mpivet runs (off: what the argument checks cost, against on)")
	withSlack := flag.Bool("slack", false, "measure whole mpivet runs with and without the buffering-aware exploration (--slack=minimal against off) instead")
	withApps := flag.Bool("apps", false, "measure whole runs of real applications instead (the halo exchange, LAMMPS, PETSc's SNES ex5, an mpi4py halo, HPCC: -run selects by name), wall and CPU time, native and under mpivet")
	withScale := flag.Bool("scale", false, "measure how the costs grow with the ranks instead (Open MPI; -ranks, -run selects halo or masterworker)")
	ranks := flag.String("ranks", "2,4,8,16,32,64,128,256", "rank counts of -scale")
	scaleOut := flag.String("scale-out", "docs/scaling.csv", "the CSV file -scale writes (the plots go beside it)")
	scaleAppend := flag.Bool("scale-append", false, "add the rows of -scale to those of -scale-out instead of replacing them")
	scalePlot := flag.String("scale-plot", "", "draw the plots and print the table of a CSV file -scale wrote, into its directory, and exit")
	out := flag.String("out", "", "also append each result, with the date, machine, load and command, to this CSV `file`")
	tables := flag.String("tables", "", "regenerate the tables of this Markdown `page` from the result files it names, and exit")
	table := flag.String("table", "", "measure the recorded table `name` of docs/performance.md ("+strings.Join(tableNames(), ", ")+") and append its rows to its file (-table apps: -run narrows its applications)")
	flag.IntVar(&capInterleavings, "max-interleavings", 0, "cap the explorations of -table parallel-8, timeline, wait-openmpi and wait-mpich (a quick check of the mode)")
	tableOut := flag.String("table-out", "", "the table file -table appends to (default docs/bench/NAME.csv)")
	flag.Parse()
	if *tables != "" {
		rewriteTables(*tables)
		return
	}
	if *scalePlot != "" {
		redrawScale(*scalePlot)
		return
	}
	match, err := regexp.Compile(*only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: -run:", err)
		os.Exit(2)
	}
	work, err := os.MkdirTemp("", "mpivet-bench-")
	if err != nil {
		fail(err)
	}
	workDir = work
	defer os.RemoveAll(work)
	if *table != "" {
		if *only != "" {
			onlyRun = match
		}
		if *tableOut == "" {
			*tableOut = filepath.Join("docs", "bench", *table+".csv")
		}
		measureTable(*table, work, *reps, strings.Split(*mpis, ","), *tableOut)
		return
	}
	if *withApps {
		runApps(work, *reps, match)
		return
	}
	if *withScale {
		ns, err := parseRanks(*ranks)
		if err != nil {
			fail(err)
		}
		runScale(work, ns, *reps, *scaleOut, *scaleAppend, match.MatchString)
		return
	}
	if *withSlack {
		runSlack(work, *reps, strings.Split(*mpis, ","), match)
		return
	}
	runOverhead(work, *reps, strings.Split(*mpis, ","), match, recorder(*out, *reps))
}

// runOverhead measures every benchmark natively and under mpivet under
// each MPI and prints the medians and best values and their ratios, and
// gives each result to rec.
func runOverhead(work string, reps int, mpis []string, match *regexp.Regexp, rec func(result)) {
	src := sourceDir()
	fmt.Printf("%-8s %-14s %-10s %10s %10s %8s %10s %10s %8s\n", "MPI", "benchmark", "metric",
		"native", "mpivet", "ratio", "native", "mpivet", "ratio")
	fmt.Printf("%-34s %30s %30s\n", "", "--------- median ---------", "---------- best ----------")
	for _, m := range mpis {
		cc := compilers[m]
		if _, err := exec.LookPath(cc); err != nil {
			fmt.Printf("%-8s (not installed)\n", m)
			continue
		}
		for _, b := range benchmarks {
			if !match.MatchString(b.name) {
				continue
			}
			if m == "mpich" && b.np > 4 {
				continue // MPICH busy-polls: more ranks than cores take minutes
			}
			bin := filepath.Join(work, b.name+"-"+m)
			if strings.HasSuffix(b.src, ".py") {
				if m != "openmpi" {
					continue // Debian's mpi4py is built on Open MPI
				}
				bin = python
				b.args = append([]string{filepath.Join(src, b.src)}, b.args...)
			} else if out, err := exec.Command(cc, "-O2", "-o", bin, filepath.Join(src, b.src)).CombinedOutput(); err != nil {
				fail(fmt.Errorf("%s: %v\n%s", cc, err, out))
			}
			native, under, err := measure(b, bin, work, reps, launchers[m])
			if err != nil {
				fail(fmt.Errorf("%s/%s: %v", m, b.name, err))
			}
			nm, um, nb, ub := median(native), median(under), native[0], under[0]
			fmt.Printf("%-8s %-14s %-10s %10.3f %10.3f %8.3f %10.3f %10.3f %8.3f\n", m, b.name, b.metric, nm, um, um/nm, nb, ub, ub/nb)
			rec(result{MPI: m, Benchmark: b.name, Metric: b.metric, NativeMedian: nm, MpivetMedian: um, NativeBest: nb, MpivetBest: ub})
		}
	}
}

var buffers string
var arguments string

// measure alternates native and mpivet runs and returns both samples, sorted.
func measure(b benchmark, bin, work string, reps int, launcher string) ([]float64, []float64, error) {
	var buf bytes.Buffer
	sess, run, err := prepare(b, bin, launcher, &buf)
	if err != nil {
		return nil, nil, err
	}
	var decisions []explore.Decision
	if b.replay { // the matches of a first run, forced in every measured one
		res, err := run(filepath.Join(work, "first-"+filepath.Base(bin)), driver.RunFiles{})
		if err != nil {
			return nil, nil, err
		}
		decisions = explore.Complete(res.Run)
	}
	wall := b.metric == "wall_ms"
	re := regexp.MustCompile(b.metric + `=([0-9.]+)`)
	value := func(start time.Time, out string) (float64, error) {
		if wall {
			return float64(time.Since(start).Microseconds()) / 1000, nil
		}
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
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if err != nil {
			return nil, nil, fmt.Errorf("native run: %v\n%s", err, out)
		}
		v, err := value(start, string(out))
		if err != nil {
			return nil, nil, err
		}
		native = append(native, v)

		buf.Reset()
		dir := filepath.Join(work, fmt.Sprintf("run-%s-%d", filepath.Base(bin), i))
		var files driver.RunFiles
		if decisions != nil {
			os.MkdirAll(dir, 0o755)
			files.Decisions = filepath.Join(dir, "decisions")
			if err := explore.WriteDecisions(files.Decisions, decisions); err != nil {
				return nil, nil, err
			}
		}
		start = time.Now()
		res, err := run(dir, files)
		if err != nil {
			return nil, nil, err
		}
		if res.LauncherExit != 0 {
			return nil, nil, fmt.Errorf("run under mpivet failed (exit %d)", res.LauncherExit)
		}
		if v, err = value(start, buf.String()); err != nil {
			return nil, nil, err
		}
		under = append(under, v)
	}
	sort.Float64s(native)
	sort.Float64s(under)
	return native, under, nil
}

// prepare makes the session of a benchmark and a function that runs it
// once under mpivet in a directory, with the ranks' settings mpivet run
// would give them (driver.WriteLayerConf) and the files given.
func prepare(b benchmark, bin, launcher string, out io.Writer) (*launch.Session, func(string, driver.RunFiles) (*launch.Result, error), error) {
	return prepareWith(b, bin, launcher, out, nil)
}

// prepareWith is prepare with set, if not nil, changing mpivet's options
// (e.g. --wait) after the benchmark's own.
func prepareWith(b benchmark, bin, launcher string, out io.Writer, set func(*driver.Options)) (*launch.Session, func(string, driver.RunFiles) (*launch.Result, error), error) {
	bufs := buffers
	if b.buffers != "" {
		bufs = b.buffers
	}
	if b.np > 2 { // more ranks than cores: no binding
		launcher = strings.Replace(strings.Replace(launcher, "--bind-to core", "--bind-to none", 1), "-bind-to core", "-bind-to none", 1)
	}
	sess, err := launch.Prepare(launch.Options{NP: b.np, Program: bin, Args: b.args, Launcher: launcher,
		Timeout: 10 * time.Minute, Stdout: out, Stderr: os.Stderr})
	if err != nil {
		return nil, nil, err
	}
	opts := driver.Defaults()
	opts.Program, opts.Args, opts.NP, opts.Buffers, opts.Clocks = bin, b.args, b.np, bufs, b.clocks
	opts.Arguments = arguments
	if b.arguments != "" {
		opts.Arguments = b.arguments
	}
	if b.clocks == "deterministic" { // --deterministic, seed 0 (Validate turns the clocks off)
		opts.Clocks, opts.Deterministic = "lamport", true
	}
	if set != nil {
		set(&opts)
	}
	if err := opts.Validate(); err != nil {
		return nil, nil, err
	}
	run := func(dir string, files driver.RunFiles) (*launch.Result, error) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if err := driver.WriteLayerConf(dir, sess, opts, files); err != nil {
			return nil, err
		}
		return sess.Run(context.Background(), dir)
	}
	return sess, run, nil
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

// workDir is the benchmark's scratch directory, which fail removes.
var workDir string

// onlyRun, set by -run beside -table, narrows the table's rows to the
// applications it matches (-table apps -run 'halo|petsc': those rows only).
var onlyRun *regexp.Regexp

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	if workDir != "" {
		os.RemoveAll(workDir)
	}
	os.Exit(2)
}
