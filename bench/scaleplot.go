package main

// The scaling benchmark's curves and table, from its rows (or its CSV file:
// go run ./bench -scale-plot docs/scaling.csv redraws them). Plots are
// drawn with gonum.org/v1/plot: x is the number of ranks on a log scale,
// one curve per program and clock mode, each point the median of the
// repetitions.

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// redrawScale draws the plots of a CSV file runScale wrote, beside it, and
// prints its table (-scale-plot).
func redrawScale(path string) {
	f, err := os.Open(path)
	if err != nil {
		fail(err)
	}
	rows, err := readScaleCSV(f)
	f.Close()
	if err != nil {
		fail(fmt.Errorf("%s: %v", path, err))
	}
	if err := plotScale(rows, filepath.Dir(path)); err != nil {
		fail(err)
	}
	printScaleTable(os.Stdout, rows)
}

// readScaleCSV reads the rows runScale wrote.
func readScaleCSV(r io.Reader) ([]scaleRow, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 || len(recs[0]) != len(scaleHeader) {
		return nil, fmt.Errorf("not a scaling CSV: want the columns %v", scaleHeader)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	var rows []scaleRow
	for n, rec := range recs[1:] {
		num := func(h string) float64 {
			x, e := strconv.ParseFloat(rec[col[h]], 64)
			if e != nil && err == nil {
				err = fmt.Errorf("line %d, %s: %v", n+2, h, e)
			}
			return x
		}
		rows = append(rows, scaleRow{Program: rec[col["program"]], Ranks: int(num("ranks")), Mode: rec[col["mode"]], Rep: int(num("rep")),
			WallS: num("wall_s"), PBBytesMsg: num("pb_bytes_per_msg"), CollBytes: num("coll_bytes"), RankRSSKB: num("rank_rss_kb"),
			RankRSSMaxKB: num("rank_rss_max_kb"), ReadS: num("read_s"), AnalysisS: num("analysis_s"), WildEvents: int(num("wild_events")),
			Alternatives: int(num("alternatives")), MpivetPeakKB: num("mpivet_peak_kb"), RecordsKB: num("records_kb"), Load1: num("load1")})
		if err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// scaleKey names a curve: a program under a mode.
type scaleKey struct{ program, mode string }

// medians groups rows by curve and rank count and takes the median of f.
func medians(rows []scaleRow, f func(scaleRow) float64) map[scaleKey]map[int]float64 {
	groups := map[scaleKey]map[int][]float64{}
	for _, r := range rows {
		k := scaleKey{r.Program, r.Mode}
		if groups[k] == nil {
			groups[k] = map[int][]float64{}
		}
		groups[k][r.Ranks] = append(groups[k][r.Ranks], f(r))
	}
	out := map[scaleKey]map[int]float64{}
	for k, byN := range groups {
		out[k] = map[int]float64{}
		for n, xs := range byN {
			sort.Float64s(xs)
			out[k][n] = xs[len(xs)/2]
		}
	}
	return out
}

// ratios is mpivet's median wall time over the native one, per curve.
func ratios(rows []scaleRow) map[scaleKey]map[int]float64 {
	wall := medians(rows, func(r scaleRow) float64 { return r.WallS })
	out := map[scaleKey]map[int]float64{}
	for k, byN := range wall {
		if k.mode == "native" {
			continue
		}
		native := wall[scaleKey{k.program, "native"}]
		out[k] = map[int]float64{}
		for n, w := range byN {
			if nw := native[n]; nw > 0 {
				out[k][n] = w / nw
			}
		}
	}
	return out
}

// scaleFigure is one plot: its file, labels, and the curves it draws.
type scaleFigure struct {
	file, title, ylabel string
	logY                bool
	curves              map[scaleKey]map[int]float64
}

// plotScale draws the scaling curves into dir as PNG files.
func plotScale(rows []scaleRow, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	mpivetOnly := func(m map[scaleKey]map[int]float64) map[scaleKey]map[int]float64 {
		delete(m, scaleKey{"halo", "native"})
		delete(m, scaleKey{"masterworker", "native"})
		return m
	}
	figs := []scaleFigure{
		{"scaling-overhead.png", "Wall time of mpivet run over native mpirun", "ratio", false, ratios(rows)},
		{"scaling-piggyback.png", "Piggyback per point-to-point message", "bytes", true,
			mpivetOnly(medians(rows, func(r scaleRow) float64 { return r.PBBytesMsg }))},
		{"scaling-rank-memory.png", "Peak resident memory per rank (mean)", "MiB", false,
			medians(rows, func(r scaleRow) float64 { return r.RankRSSKB / 1024 })},
		{"scaling-analysis.png", "Analysis of one interleaving (records read, checks, alternatives)", "seconds", true,
			mpivetOnly(medians(rows, func(r scaleRow) float64 { return r.ReadS + r.AnalysisS }))},
		{"scaling-mpivet-memory.png", "mpivet's peak resident memory", "MiB", false,
			mpivetOnly(medians(rows, func(r scaleRow) float64 { return r.MpivetPeakKB / 1024 }))},
	}
	for _, f := range figs {
		if err := drawFigure(f, filepath.Join(dir, f.file)); err != nil {
			return fmt.Errorf("%s: %v", f.file, err)
		}
	}
	return nil
}

// drawFigure draws one figure: ranks on a log2 axis, one line per curve.
func drawFigure(f scaleFigure, path string) error {
	p := plot.New()
	p.Title.Text = f.title
	p.X.Label.Text = "ranks (Open MPI, 2 cores, oversubscribed)"
	p.Y.Label.Text = f.ylabel
	p.X.Scale = plot.LogScale{}
	if f.logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Legend.Top, p.Legend.Left = true, true
	keys := make([]scaleKey, 0, len(f.curves))
	ranks := map[int]bool{}
	for k, byN := range f.curves {
		keys = append(keys, k)
		for n := range byN {
			ranks[n] = true
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].program+keys[i].mode < keys[j].program+keys[j].mode
	})
	var lines []interface{}
	for _, k := range keys {
		var xys plotter.XYs
		for n, y := range f.curves[k] {
			if f.logY && y <= 0 {
				continue // no point on a log axis
			}
			xys = append(xys, plotter.XY{X: float64(n), Y: y})
		}
		sort.Slice(xys, func(i, j int) bool { return xys[i].X < xys[j].X })
		if len(xys) > 0 {
			lines = append(lines, k.program+" "+k.mode, xys)
		}
	}
	if len(lines) == 0 {
		return fmt.Errorf("nothing to draw")
	}
	if err := plotutil.AddLinePoints(p, lines...); err != nil {
		return err
	}
	var ticks []plot.Tick
	for n := range ranks {
		ticks = append(ticks, plot.Tick{Value: float64(n), Label: strconv.Itoa(n)})
	}
	sort.Slice(ticks, func(i, j int) bool { return ticks[i].Value < ticks[j].Value })
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	if !f.logY {
		p.Y.Min = 0
	}
	return p.Save(7*vg.Inch, 4.5*vg.Inch, path)
}

// printScaleTable prints the medians as docs/performance.md's Markdown table.
func printScaleTable(w io.Writer, rows []scaleRow) {
	wall := medians(rows, func(r scaleRow) float64 { return r.WallS })
	ratio := ratios(rows)
	pb := medians(rows, func(r scaleRow) float64 { return r.PBBytesMsg })
	rss := medians(rows, func(r scaleRow) float64 { return r.RankRSSKB / 1024 })
	ana := medians(rows, func(r scaleRow) float64 { return r.ReadS + r.AnalysisS })
	peak := medians(rows, func(r scaleRow) float64 { return r.MpivetPeakKB / 1024 })
	alts := medians(rows, func(r scaleRow) float64 { return float64(r.Alternatives) })
	load := medians(rows, func(r scaleRow) float64 { return r.Load1 })
	fmt.Fprintln(w, "| program | ranks | native s | mode | mpivet s | ratio | piggyback B/msg | rank MiB (native) | analysis s | alternatives | mpivet MiB | load |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	var keys []scaleKey
	for k := range wall {
		if k.mode != "native" {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].program < keys[j].program || keys[i].program == keys[j].program && keys[i].mode < keys[j].mode
	})
	for _, k := range keys {
		nat := scaleKey{k.program, "native"}
		var ns []int
		for n := range wall[k] {
			ns = append(ns, n)
		}
		sort.Ints(ns)
		for _, n := range ns {
			native, r, nrss := "-", "-", "-" // a native run that failed twice
			if nw, ok := wall[nat][n]; ok {
				native, r, nrss = fmt.Sprintf("%.2f", nw), fmt.Sprintf("%.2f×", ratio[k][n]), fmt.Sprintf("%.1f", rss[nat][n])
			}
			fmt.Fprintf(w, "| %s | %d | %s | %s | %.2f | %s | %.0f | %.1f (%s) | %.3f | %.0f | %.0f | %.0f |\n",
				k.program, n, native, k.mode, wall[k][n], r, pb[k][n], rss[k][n], nrss,
				ana[k][n], alts[k][n], peak[k][n], math.Round(load[k][n]))
		}
	}
}
