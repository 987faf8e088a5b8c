package main

// Table files: each table of docs/performance.md's recorded measurements
// is a CSV file under docs/bench/ whose rows carry, beside the table's own
// cells, the date, machine, load and command that measured them and a note
// (the caveats of that measurement). The page renders each file between
//
//	<!-- generated: table docs/bench/NAME.csv -->
//	<!-- end generated -->
//
// one Markdown table per measurement (consecutive rows of the same date,
// machine, load, command and note), headed by what measured it. -table
// NAME runs the benchmarks of tableSpecs[NAME] and appends their rows.

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// tableProvenance are the first columns of every table file.
var tableProvenance = []string{"date", "machine", "load", "command", "note"}

// tableFile is a table file: the table's column headings (those of its
// last header) and its rows. A header row may come again further down the
// file: the rows after it have its columns (a measurement whose table
// changed its columns is appended under its own header; the older rows
// keep theirs).
type tableFile struct {
	Columns []string
	Rows    []tableRow
}

// tableRow is one row of a table, what measured it, and the columns of
// the header above it.
type tableRow struct {
	Date, Machine, Load, Command, Note string
	Cells                              []string
	Columns                            []string
}

func (r tableRow) sameMeasurement(o tableRow) bool {
	return r.Date == o.Date && r.Machine == o.Machine && r.Load == o.Load && r.Command == o.Command && r.Note == o.Note &&
		strings.Join(r.Columns, "\x00") == strings.Join(o.Columns, "\x00")
}

// isHeader tells whether a record of a table file is a header.
func isHeader(rec []string) bool {
	n := len(tableProvenance)
	return len(rec) > n && strings.Join(rec[:n], ",") == strings.Join(tableProvenance, ",")
}

func readTable(r io.Reader) (tableFile, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // each header has its own number of columns
	recs, err := cr.ReadAll()
	if err != nil {
		return tableFile{}, err
	}
	n := len(tableProvenance)
	if len(recs) == 0 || !isHeader(recs[0]) {
		return tableFile{}, fmt.Errorf("not a table file: the header must start with %s and name the table's columns", strings.Join(tableProvenance, ","))
	}
	var t tableFile
	for i, rec := range recs {
		if isHeader(rec) {
			t.Columns = rec[n:]
			continue
		}
		if len(rec) < n || rec[0] == "" || rec[1] == "" || rec[2] == "" || rec[3] == "" {
			return tableFile{}, fmt.Errorf("row %d: the date, machine, load and command are all required", i+1)
		}
		if len(rec) > n+len(t.Columns) {
			return tableFile{}, fmt.Errorf("row %d: %d cells for the %d columns of its header", i+1, len(rec)-n, len(t.Columns))
		}
		t.Rows = append(t.Rows, tableRow{rec[0], rec[1], rec[2], rec[3], rec[4], rec[n:], t.Columns})
	}
	return t, nil
}

// appendTable adds rows to the table file path, which it creates with the
// columns given; if the file's last header has other columns, a new
// header with these goes before the rows.
func appendTable(path string, columns []string, rows []tableRow) error {
	header := append(append([]string{}, tableProvenance...), columns...)
	if f, err := os.Open(path); err == nil {
		t, err := readTable(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		if strings.Join(t.Columns, "\x00") == strings.Join(columns, "\x00") {
			header = nil
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	if header != nil {
		w.Write(header)
	}
	for _, r := range rows {
		w.Write(append([]string{r.Date, r.Machine, r.Load, r.Command, r.Note}, r.Cells...))
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// printTable renders a table file as Markdown: one table per measurement,
// headed by its date, machine, load, command and note, with the columns
// of its header.
func printTable(w io.Writer, t tableFile) {
	for i, r := range t.Rows {
		if i == 0 || !r.sameMeasurement(t.Rows[i-1]) {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "Measured %s on %s; load average: %s; command: `%s`", r.Date, r.Machine, r.Load, r.Command)
			if r.Note != "" {
				fmt.Fprintf(w, "; %s", r.Note)
			}
			fmt.Fprint(w, ":\n\n| "+strings.Join(r.Columns, " | ")+" |\n|"+strings.Repeat("---|", len(r.Columns))+"\n")
		}
		cells := make([]string, len(r.Columns))
		copy(cells, r.Cells)
		fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
	}
}

// cellSpec is one cell of a measured table: the benchmarks it shows (more
// than one: their values joined by " / "), under which MPI, and how.
type cellSpec struct {
	mpi     string
	show    string // ratio: median ratio; ratio+best: and best in brackets; native, mpivet: median values; mpivet-best
	benches []string
}

// rowSpec is one row of a measured table: its label and its cells.
type rowSpec struct {
	label string
	cells []cellSpec
}

// tableSpec is a measured table: its columns, and either the rows of
// benchmarks it shows (the overhead benchmark measures them) or its own
// measurement (run, which returns the rows' cells).
type tableSpec struct {
	columns []string
	rows    []rowSpec
	run     func(work string, reps int, mpis []string) [][]string
	note    string // what the rows' note says (default: the alternated runs); %d: the -reps
}

func c(mpi, show string, benches ...string) cellSpec { return cellSpec{mpi, show, benches} }

var tableSpecs = map[string]tableSpec{
	"costs": {columns: []string{"benchmark", "LLCP", "LVCP"}, rows: []rowSpec{
		{"multi-pair latency, 2 ranks", []cellSpec{c("openmpi", "ratio", "multipair-2-llcp"), c("openmpi", "ratio", "multipair-2-lvcp")}},
		{"8 ranks", []cellSpec{c("openmpi", "ratio", "multipair-8-llcp"), c("openmpi", "ratio", "multipair-8-lvcp")}},
		{"32 ranks", []cellSpec{c("openmpi", "ratio", "multipair-32-llcp"), c("openmpi", "ratio", "multipair-32-lvcp")}},
		{"64 ranks", []cellSpec{c("openmpi", "ratio", "multipair-64-llcp"), c("openmpi", "ratio", "multipair-64-lvcp")}},
		{"halo proxy, clocks only", []cellSpec{c("openmpi", "ratio", "halo-clocks")}},
		{"one replay vs one native run (wall)", []cellSpec{c("openmpi", "ratio", "replay-master-worker")}},
	}},
	"parts": {columns: []string{"halo proxy", "Open MPI 4.1.4", "MPICH 4.0"}, rows: mpiRows("ratio",
		"recording and live wait state only (`halo-state`)", "halo-state",
		"clock protocol only (`halo-clocks`)", "halo-clocks",
		"buffer checker only (`halo-buffers`)", "halo-buffers",
		"everything, the default (`halo-256`)", "halo-256",
		"interior updated during the exchange, buffer checker only", "halo-overlap-buffers",
		"the same, everything (`halo-overlap`)", "halo-overlap",
		"the same for 20,000 iterations (`halo-overlap-long`)", "halo-overlap-long",
		"16x16 doubles, 1 µs per iteration, everything (`halo-16`)", "halo-16",
		"the same, recording and wait state only (`halo-16-state`)", "halo-16-state",
		"the same, recording and buffer checker (`halo-16-buffers`)", "halo-16-buffers")},
	"polls": {columns: []string{"polling loop", "Open MPI 4.1.4", "MPICH 4.0"}, rows: mpiRows("ratio",
		"per poll, everything, the default (`polls`)", "polls",
		"wall time of the whole `mpivet run` (`polls-wall`)", "polls-wall",
		"per poll, recording and live wait state only (`polls-state`)", "polls-state",
		"per poll, clock protocol only (`polls-clocks`)", "polls-clocks",
		"per poll, buffer checker only (`polls-buffers`)", "polls-buffers")},
	"arguments": {columns: []string{"per call", "Open MPI 4.1.4", "MPICH 4.0.2"}, rows: []rowSpec{
		{"`MPI_Send`, checks on / off", []cellSpec{c("openmpi", "mpivet-best", "calls-send", "calls-send-unchecked"), c("mpich", "mpivet-best", "calls-send", "calls-send-unchecked")}},
		{"`MPI_Allreduce`, checks on / off", []cellSpec{c("openmpi", "mpivet-best", "calls-allreduce", "calls-allreduce-unchecked"), c("mpich", "mpivet-best", "calls-allreduce", "calls-allreduce-unchecked")}},
	}},
	"python": {columns: []string{"Python benchmark", "native", "mpivet", "ratio (median)", "ratio (best)"}, rows: []rowSpec{
		pyRow("mpi4py ping-pong, 8 bytes (`py-pingpong`), latency", "py-pingpong"),
		pyRow("NumPy halo exchange (`py-halo-256`), per iteration", "py-halo-256"),
	}},
	"rma": {columns: []string{"RMA stencil, 2 ranks", "Open MPI 4.1.4", "MPICH 4.0"}, rows: mpiRows("ratio+best",
		"fence, 256x256 (`rma-fence`)", "rma-fence",
		"lock_all + flush + barrier, 256x256 (`rma-lock`)", "rma-lock",
		"fence, 16x16 (`rma-fence-16`)", "rma-fence-16",
		"lock_all + flush + barrier, 16x16 (`rma-lock-16`)", "rma-lock-16",
		"for comparison: `halo-256` in the same invocation", "halo-256")},
	"deterministic": {columns: []string{"benchmark", "ranks", "Open MPI", "MPICH"}, rows: []rowSpec{
		{"halo proxy, 256x256 per rank (`halo-256-determ`)", []cellSpec{c("", "2"), c("openmpi", "ratio+best", "halo-256-determ"), c("mpich", "ratio+best", "halo-256-determ")}},
		{"halo proxy (`halo-256-determ-8`, oversubscribed)", []cellSpec{c("", "8"), c("openmpi", "ratio+best", "halo-256-determ-8")}},
		{"ping-pong latency, 8 B", []cellSpec{c("", "2"), c("openmpi", "ratio+best", "pingpong-8B-determ"), c("mpich", "ratio+best", "pingpong-8B-determ")}},
		{"multi-pair latency, 4 B", []cellSpec{c("", "8 / 32 / 64"), c("openmpi", "ratio", "multipair-8-determ", "multipair-32-determ", "multipair-64-determ")}},
		{"master/worker, 200 tasks, no work", []cellSpec{c("", "2"), c("openmpi", "ratio+best", "mw-2-determ"), c("mpich", "ratio+best", "mw-2-determ")}},
		{"master/worker, 200 us tasks", []cellSpec{c("", "8 / 32 / 64"), c("openmpi", "ratio", "mw-8-determ", "mw-32-determ", "mw-64-determ")}},
	}},
	"slack": {columns: []string{"program", "MPI", "interleavings off / minimal", "median wall, off", "minimal", "ratio"}, run: func(work string, reps int, mpis []string) [][]string {
		return runSlack(work, reps, mpis, regexp.MustCompile(""))
	}},
	"parallel": {columns: []string{"run (Open MPI, 4 ranks, 6 tasks, 162 interleavings)", "wall", "per interleaving", "native run beside it"},
		run: func(_ string, reps int, _ []string) [][]string { return runParallel(reps) }},
	"rma-cpu": {columns: []string{"RMA stencil, CPU time per iteration, 1 rank", "native", "mpivet"}, rows: []rowSpec{
		{"MPICH 4.0, fence", []cellSpec{c("mpich", "native", "rma-cpu-fence"), c("mpich", "mpivet+ratio", "rma-cpu-fence")}},
		{"MPICH 4.0, lock_all + flush + barrier", []cellSpec{c("mpich", "native", "rma-cpu-lock"), c("mpich", "mpivet+ratio", "rma-cpu-lock")}},
		{"Open MPI 4.1.4, fence", []cellSpec{c("openmpi", "native", "rma-cpu-fence"), c("openmpi", "mpivet+ratio", "rma-cpu-fence")}},
		{"Open MPI 4.1.4, lock_all + flush + barrier", []cellSpec{c("openmpi", "native", "rma-cpu-lock"), c("openmpi", "mpivet+ratio", "rma-cpu-lock")}},
	}, note: "`bench/programs/rma_stencil.c 256 2000 fence` (and `lock`), its one rank putting to itself, timing its loop's CPU (CLOCK_PROCESS_CPUTIME_ID); %d alternated runs of native and mpivet, median"},
	"parallel-8": {columns: []string{"master/worker, 8 ranks", "`--jobs 1`", "`--jobs 2`", "`--jobs 4`"},
		run:  func(_ string, reps int, _ []string) [][]string { return runParallel8(reps) },
		note: "Open MPI, default `--wait`, scripts/bench-parallel, medians of %d round(s); speed-up against `--jobs 1`"},
	"timeline": {columns: []string{"phase of one replay", "`MPIVET_STARTUP=plain`", "default"},
		run:  func(_ string, reps int, _ []string) [][]string { return runTimeline(reps) },
		note: "`--jobs 1`, Open MPI, master/worker, 4 ranks, 6 tasks, scripts/bench-parallel with MPIVET_STARTUP=plain then without (one round each), scripts/replay-timeline; medians per interleaving"},
	"wait-openmpi": {columns: []string{"Open MPI, master/worker 8 ranks, 8 tasks, 40 interleavings", "spin wall", "spin CPU (user + sys)", "sleep wall", "sleep CPU"},
		run:  func(_ string, reps int, _ []string) [][]string { return runWaitOpenMPI(reps) },
		note: "scripts/bench-parallel, %d round(s), one value per round in each cell; spin and sleep alternated"},
	"wait-mpich": {columns: []string{"MPICH, master/worker", "spin wall", "spin CPU", "sleep wall", "sleep CPU"},
		run:  func(_ string, reps int, _ []string) [][]string { return runWaitMPICH(reps) },
		note: "scripts/bench-parallel, %d round(s), one value per round in each cell; spin and sleep alternated"},
	"wait-halo": {columns: []string{"halo, 4 ranks", "spin: time per iteration", "spin: CPU of the run", "sleep: time per iteration", "sleep: CPU"},
		run:  func(work string, reps int, mpis []string) [][]string { return runWaitHalo(work, reps, mpis) },
		note: "`bench/programs/halo.c 256 500` under `mpivet run -n 4 --wait spin` and `sleep`, 4 ranks on the 2 cores, %d alternated round(s), one value per round in each cell"},
	"records": {columns: []string{"program", "MPI", "`--records=full`", "per rank and iteration", "folded (default)", "per rank and iteration", "smaller"},
		run:  func(work string, _ int, mpis []string) [][]string { return runRecords(work, mpis) },
		note: "the bytes of records all ranks wrote, one run each way (the defaults but `--records`; `rma_ops` with `--buffers=off`)"},
	"omp": {columns: []string{"program, 2 ranks", "MPI", "OMP_NUM_THREADS", "native: per iteration, wall / CPU", "mpivet", "ratios",
		"native: CPU of the run", "mpivet", "ratio"}, run: runOmp,
		note: "bench/omp.go: native (the launcher mpivet uses) and the default `mpivet run` alternated, %d times each, medians"},
	"apps": {columns: appColumns, run: func(work string, reps int, _ []string) [][]string { return runApps(work, reps, tableApps) },
		note: "4 ranks oversubscribed on the 2 cores, %d alternated runs of each variant, medians; wall: of the whole command; CPU: user + system of the whole command, the launcher and the ranks, mpivet and all it ran"},
}

// mpiRows makes rows of one benchmark each, under Open MPI and MPICH:
// label, benchmark, label, benchmark...
func mpiRows(show string, pairs ...string) []rowSpec {
	var rows []rowSpec
	for i := 0; i+1 < len(pairs); i += 2 {
		rows = append(rows, rowSpec{pairs[i], []cellSpec{c("openmpi", show, pairs[i+1]), c("mpich", show, pairs[i+1])}})
	}
	return rows
}

func pyRow(label, bench string) rowSpec {
	return rowSpec{label, []cellSpec{c("openmpi", "native", bench), c("openmpi", "mpivet", bench),
		c("openmpi", "ratio", bench), c("openmpi", "best", bench)}}
}

// benches returns the benchmarks and MPIs a spec's rows need, as a regexp
// for -run.
func (s tableSpec) benches() (*regexp.Regexp, []string) {
	names, mpis := map[string]bool{}, map[string]bool{}
	for _, r := range s.rows {
		for _, cell := range r.cells {
			for _, b := range cell.benches {
				names[regexp.QuoteMeta(b)] = true
				mpis[cell.mpi] = true
			}
		}
	}
	return regexp.MustCompile("^(" + strings.Join(sortedKeys(names), "|") + ")$"), sortedKeys(mpis)
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// cells fills a spec's rows from the results of the overhead benchmark; a
// cell whose benchmark was not measured (an MPI not installed or not
// selected) is left empty.
func (s tableSpec) cells(results []result) [][]string {
	find := func(mpi, bench string) (result, bool) {
		for _, r := range results {
			if r.MPI == mpi && r.Benchmark == bench {
				return r, true
			}
		}
		return result{}, false
	}
	var out [][]string
	for _, row := range s.rows {
		line := []string{row.label}
		for _, cell := range row.cells {
			if len(cell.benches) == 0 { // a fixed text
				line = append(line, cell.show)
				continue
			}
			var vals []string
			unit := ""
			for _, b := range cell.benches {
				if r, ok := find(cell.mpi, b); ok {
					vals = append(vals, showResult(r, cell.show))
					unit = units[r.Metric]
				}
			}
			switch {
			case len(vals) < len(cell.benches):
				line = append(line, "")
			case cell.show == "mpivet+ratio": // the unit is inside
				line = append(line, strings.Join(vals, " / "))
			case strings.HasPrefix(cell.show, "native") || strings.HasPrefix(cell.show, "mpivet"):
				line = append(line, strings.Join(vals, " / ")+unit)
			default:
				line = append(line, strings.Join(vals, " / "))
			}
		}
		out = append(out, line)
	}
	return out
}

// value formats a measured value: three significant digits, and no
// fractional digits from 100 on.
func value(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

var units = map[string]string{"latency_us": " µs", "iter_us": " µs", "poll_ns": " ns", "call_ns": " ns", "wall_ms": " ms", "run_ms": " ms", "cpu_iter_us": " µs"}

// showResult formats what a cell shows of a result (values without their
// unit, which cells adds).
func showResult(r result, show string) string {
	switch show {
	case "ratio":
		return fmt.Sprintf("%.2f×", r.MpivetMedian/r.NativeMedian)
	case "best":
		return fmt.Sprintf("%.2f×", r.MpivetBest/r.NativeBest)
	case "ratio+best":
		return fmt.Sprintf("%.2f× (%.2f×)", r.MpivetMedian/r.NativeMedian, r.MpivetBest/r.NativeBest)
	case "native":
		return value(r.NativeMedian)
	case "mpivet":
		return value(r.MpivetMedian)
	case "mpivet+ratio":
		return fmt.Sprintf("%s%s (%.2f×)", value(r.MpivetMedian), units[r.Metric], r.MpivetMedian/r.NativeMedian)
	case "mpivet-best":
		return fmt.Sprintf("%.0f", r.MpivetBest)
	}
	panic("bench: no way to show " + show)
}

// measureTable runs the measurement of the table spec name and appends its
// rows, with the date, machine, load and command, to the table file out.
func measureTable(name, work string, reps int, mpis []string, out string) {
	spec, ok := tableSpecs[name]
	if !ok {
		fail(fmt.Errorf("-table %s: no such table (%s)", name, strings.Join(tableNames(), ", ")))
	}
	start, mach := load1(), machine()
	var cells [][]string
	if spec.run != nil {
		cells = spec.run(work, reps, mpis)
	} else {
		match, need := spec.benches()
		var results []result
		runOverhead(work, reps, intersect(mpis, need), match, func(r result) { results = append(results, r) })
		if len(results) == 0 {
			fail(fmt.Errorf("-table %s: none of its benchmarks ran (its MPIs: %s)", name, strings.Join(need, ", ")))
		}
		cells = spec.cells(results)
	}
	if len(cells) == 0 {
		fail(fmt.Errorf("-table %s: nothing measured", name))
	}
	rows := make([]tableRow, len(cells))
	note := fmt.Sprintf("%d alternated runs of each variant", reps)
	if strings.Contains(spec.note, "%d") {
		note = fmt.Sprintf(spec.note, reps)
	} else if spec.note != "" {
		note = spec.note
	}
	if capInterleavings > 0 {
		note += fmt.Sprintf("; explorations capped at %d interleavings", capInterleavings)
	}
	load := fmt.Sprintf("%.0f at the start, %.0f at the end", start, load1())
	for i, cs := range cells {
		for len(cs) < len(spec.columns) { // a row with fewer cells than columns
			cs = append(cs, "")
		}
		rows[i] = tableRow{Date: today(), Machine: mach, Load: load, Command: commandLine(), Note: note, Cells: cs}
	}
	if err := appendTable(out, spec.columns, rows); err != nil {
		fail(err)
	}
	fmt.Printf("%d rows appended to %s\n", len(rows), out)
}

func tableNames() []string {
	names := map[string]bool{}
	for n := range tableSpecs {
		names[n] = true
	}
	return sortedKeys(names)
}

// intersect keeps the MPIs of want that need names, in want's order.
func intersect(want, need []string) []string {
	var out []string
	for _, m := range want {
		for _, n := range need {
			if m == n {
				out = append(out, m)
				break
			}
		}
	}
	return out
}
