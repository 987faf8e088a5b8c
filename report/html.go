package report

import (
	"bufio"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"os"
	"os/exec"
	"strings"

	"mpivet/check"
)

// HTML prints the report as one self-contained HTML page that opens
// offline: the verdict and summary, the findings in a table filterable by
// kind and rank, and for each finding its source lines, its locations
// (the call stack, for a crash), the wait-for graph of a deadlock and a
// space-time diagram of the interleaving that shows it; then the
// exploration's coverage, the suppressions and the notes.
//
// The drawings are SVG made by Graphviz (Render; already mpivet's
// dependency for deadlock.svg), inlined in the page: Graphviz lays out
// graphs far better than code of our own would, and needs nothing in the
// browser. The page's own script (html.js, embedded) only filters the
// table and zooms the drawings; there is no library to vendor.
type HTML struct {
	w io.Writer
	// Render turns a graph in DOT into SVG (RenderSVG by default).
	Render func(dot string) (string, error)
	// ReadFile reads a source file, for the lines around a location
	// (os.ReadFile by default).
	ReadFile func(path string) ([]byte, error)
}

// NewHTML returns an HTML printer writing to w.
func NewHTML(w io.Writer) *HTML { return &HTML{w: w, Render: RenderSVG, ReadFile: os.ReadFile} }

// RenderSVG draws a graph with Graphviz's dot, without the XML prolog (the
// SVG goes inline in a page).
func RenderSVG(dot string) (string, error) {
	cmd := exec.Command("dot", "-Tsvg")
	cmd.Stdin = strings.NewReader(dot)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("dot -Tsvg: %v: %s", err, errb.String())
	}
	s := out.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return s, nil
}

//go:embed html.tmpl
var htmlTemplate string

//go:embed html.css
var htmlCSS string

//go:embed html.js
var htmlJS string

var htmlPage = template.Must(template.New("page").Funcs(template.FuncMap{
	"ranklist":    check.RankList,
	"shortnumber": ShortNumber,
	"plural":      check.Plural,
}).Parse(htmlTemplate))

// The page's data.
type (
	htmlData struct {
		R        *Report
		Errors   int
		Warnings int
		Kinds    []string
		Findings []htmlFinding
		CSS      template.CSS
		JS       template.JS
		Coverage string
	}
	htmlFinding struct {
		N         int
		F         check.Finding
		Long      bool   // a message of many lines, folded
		RankAttr  string // " 0 1 2 " for the filter
		Summary   string
		First     string
		Locations []htmlLocation
		Graph     template.HTML // SVG of the wait-for graph
		GraphErr  string
		Trail     template.HTML // SVG of the space-time diagram
		TrailErr  string
		TrailN    int // interleaving of the trail
		Collapsed int // lanes drawn as others
	}
	htmlLocation struct {
		L      check.Location
		Ranks  []int // the ranks with this location (identical but for the rank)
		Source []htmlLine
	}
	htmlLine struct {
		N    int
		Text string
		Here bool
	}
)

// Print writes r.
func (h *HTML) Print(r *Report) error {
	d := htmlData{R: r, CSS: template.CSS(htmlCSS), JS: template.JS(htmlJS), Coverage: r.Coverage.Summary()}
	seen := map[string]bool{}
	sources := map[string][]string{}
	svgs := map[int]htmlFinding{} // trails drawn, by interleaving
	for i, f := range r.Findings {
		if f.Severity == check.Error {
			d.Errors++
		} else {
			d.Warnings++
		}
		if !seen[f.Kind] {
			seen[f.Kind] = true
			d.Kinds = append(d.Kinds, f.Kind)
		}
		hf := htmlFinding{N: i + 1, F: f, RankAttr: " " + strings.Trim(fmt.Sprint(f.Ranks), "[]") + " "}
		hf.Summary, _, _ = strings.Cut(f.Message, "\n")
		if len(f.Locations) > 0 {
			hf.First = f.Locations[0].String()
		}
		hf.Long = strings.Count(f.Message, "\n") > messageLines
		// Ranks at the same place are one entry, with the source once:
		// 64 ranks deadlocked at one line are one line of the page.
		at := map[check.Location]int{}
		for _, l := range f.Locations {
			k := l
			k.Rank = 0
			if i, ok := at[k]; ok {
				hf.Locations[i].Ranks = append(hf.Locations[i].Ranks, l.Rank)
				continue
			}
			at[k] = len(hf.Locations)
			hf.Locations = append(hf.Locations, htmlLocation{L: l, Ranks: []int{l.Rank}, Source: h.source(sources, l)})
		}
		if f.Graph != nil {
			svg, err := h.Render(withLegend(f.Graph.DOT))
			hf.Graph, hf.GraphErr = template.HTML(svg), errText(err)
		}
		if t := r.TrailOf(f); t != nil {
			drawn, ok := svgs[t.Interleaving]
			if !ok {
				svg, err := h.Render(SpaceTimeDOT(t))
				drawn = htmlFinding{Trail: template.HTML(svg), TrailErr: errText(err), TrailN: t.Interleaving,
					Collapsed: len(t.Lanes) - len(t.groups())}
				svgs[t.Interleaving] = drawn
			}
			hf.Trail, hf.TrailErr, hf.TrailN, hf.Collapsed = drawn.Trail, drawn.TrailErr, drawn.TrailN, drawn.Collapsed
		}
		d.Findings = append(d.Findings, hf)
	}
	return htmlPage.Execute(h.w, d)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	if errors.Is(err, exec.ErrNotFound) {
		return "Graphviz (dot) is not installed: no drawing"
	}
	return err.Error()
}

// withLegend adds a legend to a wait-for graph, as MUST draws it: AND arcs
// solid (the call waits for all), OR arcs dashed (for any one), the
// deadlock's core grey.
func withLegend(dot string) string {
	i := strings.LastIndex(dot, "}")
	if i < 0 {
		return dot
	}
	legend := `  subgraph cluster_legend {
    label="legend"; fontname="Helvetica"; fontsize=9; color="#999999";
    node [shape=plaintext, style="", fontsize=9];
    la [label="waits for all (AND)"]; lb [label=""];
    lc [label="waits for any (OR)"]; ld [label=""];
    le [label="in the deadlock's core", shape=box, style=filled, fillcolor="#cccccc"];
    la -> lb [style=solid]; lc -> ld [style=dashed];
  }
`
	return dot[:i] + legend + dot[i:]
}

// messageLines is how many lines of a finding's message the page shows
// unfolded.
const messageLines = 12

// sourceContext is how many lines around a location the page shows.
const sourceContext = 3

// source returns the lines around l, when its file is readable (its full
// path, or its name from the working directory).
func (h *HTML) source(cache map[string][]string, l check.Location) []htmlLine {
	if l.Line <= 0 || l.File == "" {
		return nil
	}
	var lines []string
	for _, p := range []string{l.Path, l.File} {
		if p == "" {
			continue
		}
		if ls, ok := cache[p]; ok {
			lines = ls
			break
		}
		data, err := h.ReadFile(p)
		if err != nil || len(data) > 8<<20 {
			cache[p] = nil
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		cache[p] = lines
		break
	}
	if l.Line > len(lines) {
		return nil
	}
	var out []htmlLine
	for n := max(1, l.Line-sourceContext); n <= min(len(lines), l.Line+sourceContext); n++ {
		out = append(out, htmlLine{N: n, Text: lines[n-1], Here: n == l.Line})
	}
	return out
}

// WriteHTML writes the HTML page to the file path.
func WriteHTML(path string, r *Report) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := NewHTML(f).Print(r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
