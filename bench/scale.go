package main

// The scaling benchmark (go run ./bench -scale): how mpivet's costs grow
// with the number of ranks, for each clock protocol (LLCP: Lamport clocks,
// a constant piggyback; LVCP: vector clocks, P words per message), on a
// halo exchange and on a wildcard-heavy master/worker program. Each rank
// count runs natively and under mpivet, alternated; the rows go to a CSV
// file, from which scaleplot.go draws the curves.

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"mpivet/check"
	"mpivet/checks/all"
	"mpivet/explore"
	"mpivet/symbolize"
	"mpivet/trace"
)

// scaleProgram is a program of the scaling benchmark with its arguments
// (the same at every rank count: the work per rank stays the same).
type scaleProgram struct {
	name, src string
	args      []string
	flags     []string // mpivet flags beyond --clocks
}

var scalePrograms = []scaleProgram{
	// 64x64 doubles per rank, 100 iterations: a ring halo exchange with
	// an Allreduce every 10 iterations (no wildcard).
	{"halo", "halo.c", []string{"64", "100"}, nil},
	// One task per worker, no delay: the master takes every result with
	// MPI_Iprobe(MPI_ANY_SOURCE) and a wildcard MPI_Recv, P-1 wildcard
	// events whose alternatives grow with P. Only the first interleaving
	// runs (its exploration would be (P-1)! replays); the analysis
	// computes every alternative all the same.
	{"masterworker", "masterworker.c", []string{"1", "0"}, []string{"--max-interleavings=1"}},
}

// scaleRow is one measured run: native, or mpivet with one clock mode.
type scaleRow struct {
	Program      string
	Ranks        int
	Mode         string  // native, lamport, vector
	Rep          int     // repetition
	WallS        float64 // the whole run as the user sees it (mpivet: run and analysis)
	PBBytesMsg   float64 // piggyback bytes per point-to-point message
	CollBytes    float64 // clock bytes each rank gives a collective
	RankRSSKB    float64 // mean peak resident memory of a rank (native: the largest process of the launcher's tree)
	RankRSSMaxKB float64 // the largest rank's
	ReadS        float64 // reading the records (trace.ReadRun)
	AnalysisS    float64 // every check, and the alternatives of every wildcard event (explore.Points)
	WildEvents   int     // matched wildcard events
	Alternatives int     // their alternative matches
	MpivetPeakKB float64 // mpivet's own peak resident memory (VmHWM) in the run
	RecordsKB    float64 // the records on disk
	Load1        float64 // 1-minute load average when the run ended
}

var scaleHeader = []string{"program", "ranks", "mode", "rep", "wall_s", "pb_bytes_per_msg", "coll_bytes",
	"rank_rss_kb", "rank_rss_max_kb", "read_s", "analysis_s", "wild_events", "alternatives", "mpivet_peak_kb", "records_kb", "load1"}

func (r scaleRow) fields() []string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	return []string{r.Program, strconv.Itoa(r.Ranks), r.Mode, strconv.Itoa(r.Rep), f(r.WallS), f(r.PBBytesMsg), f(r.CollBytes),
		f(r.RankRSSKB), f(r.RankRSSMaxKB), f(r.ReadS), f(r.AnalysisS), strconv.Itoa(r.WildEvents), strconv.Itoa(r.Alternatives),
		f(r.MpivetPeakKB), f(r.RecordsKB), f(r.Load1)}
}

// runScale measures every program at every rank count, natively and under
// mpivet with each clock mode, reps times alternated, appending each row to
// the CSV file out as it is measured (a long run that is stopped keeps what
// it measured), then draws the plots beside it.
//
// With appendTo, the rows are added to the file's (a rank count measured
// again, or a program measured apart); the plots and table are of all.
func runScale(work string, ranks []int, reps int, out string, appendTo bool, match func(string) bool) {
	mpivet := filepath.Join(work, "mpivet")
	if b, err := exec.Command("go", "build", "-o", mpivet, "mpivet/cmd/mpivet").CombinedOutput(); err != nil {
		fail(fmt.Errorf("building mpivet: %v\n%s", err, b))
	}
	var rows []scaleRow
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if appendTo {
		if old, err := os.Open(out); err == nil {
			rows, err = readScaleCSV(old)
			old.Close()
			if err != nil {
				fail(fmt.Errorf("%s: %v", out, err))
			}
			flags = os.O_WRONLY | os.O_APPEND
		}
	}
	f, err := os.OpenFile(out, flags, 0o644)
	if err != nil {
		fail(err)
	}
	if flags&os.O_TRUNC != 0 {
		fmt.Fprintln(f, strings.Join(scaleHeader, ","))
	}
	src := sourceDir()
	for _, p := range scalePrograms {
		if !match(p.name) {
			continue
		}
		bin := filepath.Join(work, p.name)
		if b, err := exec.Command("mpicc.openmpi", "-O2", "-g", "-o", bin, filepath.Join(src, p.src)).CombinedOutput(); err != nil {
			fail(fmt.Errorf("mpicc.openmpi: %v\n%s", err, b))
		}
		for _, np := range ranks {
			for rep := 0; rep < reps; rep++ {
				for _, mode := range []string{"native", "lamport", "vector"} {
					// Heavily oversubscribed, a launch can fail (see
					// docs/performance.md, "Running 256 ranks"): said, and tried once more.
					r, err := scaleRun(p, bin, mpivet, work, np, mode)
					if err != nil {
						fmt.Fprintf(os.Stderr, "bench: %s, %d ranks, %s failed, trying again: %v\n", p.name, np, mode, err)
						r, err = scaleRun(p, bin, mpivet, work, np, mode)
					}
					if err != nil { // no row: the plots and table show the others
						fmt.Fprintf(os.Stderr, "bench: %s, %d ranks, %s failed again, left out: %v\n", p.name, np, mode, firstLines(err.Error(), 3))
						continue
					}
					r.Rep = rep
					rows = append(rows, r)
					fmt.Fprintln(f, strings.Join(r.fields(), ","))
					fmt.Printf("%-12s %4d %-8s wall %8.2f s  pb %6.0f B/msg  rank %7.0f KiB  analysis %7.3f s  mpivet %7.0f KiB  load %.1f\n",
						r.Program, r.Ranks, r.Mode, r.WallS, r.PBBytesMsg, r.RankRSSKB, r.AnalysisS, r.MpivetPeakKB, r.Load1)
				}
			}
		}
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
	if err := plotScale(rows, filepath.Dir(out)); err != nil {
		fail(err)
	}
	printScaleTable(os.Stdout, rows)
}

// openMPILauncher is the launcher of both variants, as mpivet's default for
// Open MPI: oversubscribed, which leaves ranks unbound and makes them yield
// when idle (see docs/performance.md, "Scaling").
var openMPILauncher = []string{"mpirun.openmpi", "--oversubscribe"}

// scaleRun is one run of a program at np ranks: native, or under mpivet
// with clocks mode, whose records are then analysed again in this process
// to time the analysis apart from the run.
func scaleRun(p scaleProgram, bin, mpivet, work string, np int, mode string) (scaleRow, error) {
	r := scaleRow{Program: p.name, Ranks: np, Mode: mode}
	env := append(os.Environ(), "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "MPIVET_SCALE_STATS=1")
	var cmd *exec.Cmd
	dir := filepath.Join(work, fmt.Sprintf("run-%s-%d-%s", p.name, np, mode))
	defer os.RemoveAll(dir)
	if mode == "native" {
		args := append(append(append([]string{}, openMPILauncher[1:]...), "-n", strconv.Itoa(np), bin), p.args...)
		cmd = exec.Command(openMPILauncher[0], args...)
	} else {
		args := append([]string{"run", "-n", strconv.Itoa(np), "--clocks=" + mode, "--keep-records", "--timeout=20m", "--dir", dir}, p.flags...)
		cmd = exec.Command(mpivet, append(append(args, bin), p.args...)...)
	}
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = nil, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return r, err
	}
	peak := watchPeak(cmd.Process.Pid)
	var ranksPeak func() (float64, float64, int)
	if mode == "native" {
		ranksPeak = watchRanks(bin)
	}
	err := cmd.Wait()
	r.WallS = time.Since(start).Seconds()
	r.Load1 = load1()
	if mode == "native" {
		if err != nil {
			return r, fmt.Errorf("%v\n%s\n...\n%s", err, firstLines(stderr.String(), 30), lastLines(stderr.String(), 10))
		}
		var seen int
		r.RankRSSKB, r.RankRSSMaxKB, seen = ranksPeak()
		if seen < np {
			fmt.Fprintf(os.Stderr, "bench: %d of %d ranks seen for their memory\n", seen, np)
		}
		return r, nil
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 && code != 3 { // 3: --max-interleavings reached
		return r, fmt.Errorf("mpivet exited %d\n%s", code, lastLines(stderr.String(), 20))
	}
	r.MpivetPeakKB = float64(peak())
	r.RecordsKB = float64(dirSize(dir)) / 1024
	if err := rankStats(stderr.String(), np, &r); err != nil {
		return r, err
	}
	return r, analyse(dir, np, &r)
}

// rankStats reads the ranks' MPIVET_SCALE_STATS lines.
func rankStats(out string, np int, r *scaleRow) error {
	var n int
	var msgs, bytes, syncs, cbytes, rss float64
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		l := sc.Text()
		i := strings.Index(l, "mpivet-stats ")
		if i < 0 {
			continue
		}
		kv := map[string]float64{}
		for _, w := range strings.Fields(l[i:])[1:] {
			if k, v, ok := strings.Cut(w, "="); ok {
				kv[k], _ = strconv.ParseFloat(v, 64)
			}
		}
		n++
		msgs += kv["pb_msgs"]
		bytes += kv["pb_bytes"]
		syncs += kv["coll_syncs"]
		cbytes += kv["coll_bytes"]
		rss += kv["vmhwm_kb"]
		if kv["vmhwm_kb"] > r.RankRSSMaxKB {
			r.RankRSSMaxKB = kv["vmhwm_kb"]
		}
	}
	if n != np {
		return fmt.Errorf("%d of %d ranks printed their statistics", n, np)
	}
	if msgs > 0 {
		r.PBBytesMsg = bytes / msgs
	}
	if syncs > 0 {
		r.CollBytes = cbytes / syncs
	}
	r.RankRSSKB = rss / float64(n)
	return nil
}

// analyse reads the records of the first interleaving and runs what mpivet
// runs on them: every check, and the alternatives of every wildcard event.
func analyse(dir string, np int, r *scaleRow) error {
	runtime.GC()
	start := time.Now()
	run, err := trace.ReadRun(dir)
	if err != nil {
		return err
	}
	r.ReadS = time.Since(start).Seconds()
	start = time.Now()
	u := check.NewUnit(&check.Input{Run: run, NP: np, Sym: symbolize.New()})
	if _, err := u.Findings(all.Checks); err != nil {
		return err
	}
	for _, pt := range explore.Points(run) {
		r.WildEvents++
		r.Alternatives += len(pt.Alts)
	}
	r.AnalysisS = time.Since(start).Seconds()
	return nil
}

// watchPeak follows a process's VmHWM until it exits; the function it
// returns gives the highest value seen, in KiB.
func watchPeak(pid int) func() int64 {
	stop, peakc := make(chan struct{}), make(chan int64, 1)
	go func() {
		var peak int64
		for {
			if kb := vmHWM(pid); kb > peak {
				peak = kb
			}
			select {
			case <-stop:
				peakc <- peak
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	return func() int64 { close(stop); return <-peakc }
}

// watchRanks follows the VmHWM of every process running bin until the
// function it returns is called, and then gives their mean and largest
// value in KiB and how many processes it saw.
func watchRanks(bin string) func() (float64, float64, int) {
	stop, res := make(chan struct{}), make(chan [3]float64, 1)
	go func() {
		peaks := map[int]int64{}
		for {
			ents, _ := os.ReadDir("/proc")
			for _, e := range ents {
				pid, err := strconv.Atoi(e.Name())
				if err != nil {
					continue
				}
				if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); exe == bin {
					if kb := vmHWM(pid); kb > peaks[pid] {
						peaks[pid] = kb
					}
				}
			}
			select {
			case <-stop:
				var sum, max float64
				for _, kb := range peaks {
					sum += float64(kb)
					if float64(kb) > max {
						max = float64(kb)
					}
				}
				mean := 0.0
				if len(peaks) > 0 {
					mean = sum / float64(len(peaks))
				}
				res <- [3]float64{mean, max, float64(len(peaks))}
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	return func() (float64, float64, int) { close(stop); r := <-res; return r[0], r[1], int(r[2]) }
}

// load1 is the 1-minute load average.
func load1() float64 {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	x, _ := strconv.ParseFloat(f[0], 64)
	return x
}

func firstLines(s string, n int) string {
	ls := strings.SplitN(s, "\n", n+1)
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, "\n")
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

// parseRanks reads a list such as "2,4,8".
func parseRanks(s string) ([]int, error) {
	var ns []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			return nil, fmt.Errorf("-ranks: %q is not a rank count of 2 or more", f)
		}
		ns = append(ns, n)
	}
	sort.Ints(ns)
	return ns, nil
}
