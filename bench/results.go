package main

// Result files: the overhead benchmark appends one row per benchmark and
// MPI to a CSV file (-out), with the date, the machine, the load and the
// command that measured it, and docs/performance.md's tables are generated
// from such files and from docs/scaling.csv (-tables rewrites them; a test
// checks that they are current).

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"
)

var resultHeader = []string{"date", "machine", "load_start", "load_end", "command", "mpi", "benchmark", "metric",
	"native_median", "mpivet_median", "native_best", "mpivet_best", "reps"}

// result is one benchmark measured under one MPI.
type result struct {
	Date, Machine, Command, MPI, Benchmark, Metric string
	LoadStart, LoadEnd                             float64
	NativeMedian, MpivetMedian                     float64
	NativeBest, MpivetBest                         float64
	Reps                                           int
}

func (r result) fields() []string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	return []string{r.Date, r.Machine, f(r.LoadStart), f(r.LoadEnd), r.Command, r.MPI, r.Benchmark, r.Metric,
		f(r.NativeMedian), f(r.MpivetMedian), f(r.NativeBest), f(r.MpivetBest), strconv.Itoa(r.Reps)}
}

// appendResult adds r to the CSV file path, with the header if the file is new.
func appendResult(path string, r result) error {
	_, err := os.Stat(path)
	isNew := os.IsNotExist(err)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	if isNew {
		w.Write(resultHeader)
	}
	w.Write(r.fields())
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func readResults(r io.Reader) ([]result, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 || strings.Join(recs[0], ",") != strings.Join(resultHeader, ",") {
		return nil, fmt.Errorf("not a results file: the header must be %s", strings.Join(resultHeader, ","))
	}
	var out []result
	for i, rec := range recs[1:] {
		var x result
		var nums [6]float64
		for j, k := range []int{2, 3, 8, 9, 10, 11} {
			if nums[j], err = strconv.ParseFloat(rec[k], 64); err != nil {
				return nil, fmt.Errorf("row %d, %s: %v", i+2, resultHeader[k], err)
			}
		}
		if x.Reps, err = strconv.Atoi(rec[12]); err != nil {
			return nil, fmt.Errorf("row %d, reps: %v", i+2, err)
		}
		x.Date, x.Machine, x.Command, x.MPI, x.Benchmark, x.Metric = rec[0], rec[1], rec[4], rec[5], rec[6], rec[7]
		x.LoadStart, x.LoadEnd, x.NativeMedian, x.MpivetMedian, x.NativeBest, x.MpivetBest = nums[0], nums[1], nums[2], nums[3], nums[4], nums[5]
		out = append(out, x)
	}
	return out, nil
}

// printResultsTable prints the results as Markdown: one table per
// invocation (date, machine and command), which heads it.
func printResultsTable(w io.Writer, rows []result) {
	same := func(a, b result) bool { return a.Date == b.Date && a.Command == b.Command && a.Machine == b.Machine }
	for i, r := range rows {
		if i == 0 || !same(r, rows[i-1]) {
			if i > 0 {
				fmt.Fprintln(w)
			}
			last := r // the invocation's last row: its load at the end
			for _, n := range rows[i:] {
				if !same(n, r) {
					break
				}
				last = n
			}
			fmt.Fprintf(w, "Measured %s on %s, load average %.0f at the start and %.0f at the end, %d alternated runs of each variant:\n`%s`\n\n",
				r.Date, r.Machine, r.LoadStart, last.LoadEnd, r.Reps, r.Command)
			fmt.Fprintln(w, "| benchmark | MPI | metric | native (median) | mpivet (median) | ratio (median) | ratio (best) |")
			fmt.Fprintln(w, "|---|---|---|---:|---:|---:|---:|")
		}
		fmt.Fprintf(w, "| `%s` | %s | %s | %.3f | %.3f | %.2f× | %.2f× |\n", r.Benchmark, mpiName(r.MPI), r.Metric,
			r.NativeMedian, r.MpivetMedian, r.MpivetMedian/r.NativeMedian, r.MpivetBest/r.NativeBest)
	}
}

func mpiName(m string) string {
	switch m {
	case "openmpi":
		return "Open MPI"
	case "mpich":
		return "MPICH"
	}
	return m
}

// machine describes the machine a benchmark runs on: cores, processor,
// memory and operating system.
func machine() string {
	model := "unknown processor"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		if m := regexp.MustCompile(`(?m)^model name\s*:\s*(.*)$`).FindSubmatch(b); m != nil {
			model = strings.TrimSpace(string(m[1]))
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if m := regexp.MustCompile(`MemTotal:\s*(\d+) kB`).FindSubmatch(b); m != nil {
			kb, _ := strconv.ParseFloat(string(m[1]), 64)
			mem = fmt.Sprintf(", %.0f GiB", kb/(1<<20))
		}
	}
	osName := runtime.GOOS
	if b, err := os.ReadFile("/etc/debian_version"); err == nil {
		osName = "Debian " + strings.TrimSpace(string(b))
	}
	return fmt.Sprintf("%d cores (%s)%s, %s", runtime.NumCPU(), model, mem, osName)
}

// recorder returns the function that appends a result to the file out
// (none if out is ""), adding what every row of this invocation shares.
func recorder(out string, reps int) func(result) {
	if out == "" {
		return func(result) {}
	}
	start, mach := load1(), machine()
	cmd := commandLine()
	return func(r result) {
		r.Date, r.Machine, r.Command, r.Reps = today(), mach, cmd, reps
		r.LoadStart, r.LoadEnd = start, load1()
		if err := appendResult(out, r); err != nil {
			fail(err)
		}
	}
}

// commandLine is the command that runs this benchmark, as a shell line.
func commandLine() string {
	args := []string{"go", "run", "./bench"}
	for _, a := range os.Args[1:] {
		if regexp.MustCompile(`[^A-Za-z0-9_./=:,-]`).MatchString(a) {
			a = "'" + a + "'"
		}
		args = append(args, a)
	}
	return strings.Join(args, " ")
}

func today() string { return time.Now().UTC().Format("2006-01-02") }

// generated marks a table of a Markdown page that is generated from a file:
//
//	<!-- generated: results docs/bench/overhead.csv -->
//	...
//	<!-- end generated -->
//
// (kind results: a file -out wrote; scaling: a file -scale wrote; table: a
// table file, tables.go).
var generated = regexp.MustCompile(`(?s)(<!-- generated: (results|scaling|table) (\S+) -->\n)(.*?)(<!-- end generated -->)`)

// regenerate returns the page with every generated table made again from
// its file, which is relative to root.
func regenerate(page []byte, root string) ([]byte, error) {
	var firstErr error
	out := generated.ReplaceAllFunc(page, func(m []byte) []byte {
		g := generated.FindSubmatch(m)
		var b bytes.Buffer
		if err := tableOf(&b, string(g[2]), filepath.Join(root, string(g[3]))); err != nil && firstErr == nil {
			firstErr = err
		}
		return append(append(append([]byte{}, g[1]...), b.Bytes()...), g[5]...)
	})
	return out, firstErr
}

func tableOf(w io.Writer, kind, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if kind == "table" {
		t, err := readTable(f)
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		printTable(w, t)
		return nil
	}
	if kind == "scaling" {
		rows, err := readScaleCSV(f)
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		printScaleTable(w, rows)
		return nil
	}
	rows, err := readResults(f)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	printResultsTable(w, rows)
	return nil
}

// rewriteTables regenerates the tables of a Markdown page in place (-tables).
func rewriteTables(page string) {
	b, err := os.ReadFile(page)
	if err != nil {
		fail(err)
	}
	root := filepath.Dir(filepath.Dir(page)) // docs/x.md: the repository
	out, err := regenerate(b, root)
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(page, out, 0o644); err != nil {
		fail(err)
	}
}
