package suite

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mpivet/check"
	"mpivet/report"
)

//go:embed index.tmpl
var indexTemplate string

var indexPage = template.Must(template.New("index").Funcs(template.FuncMap{
	"plural": check.Plural,
	"kinds":  KindList,
	"class": func(outcome string) string {
		switch outcome {
		case Failed:
			return "v-failed"
		case NotVerified:
			return "v-skipped"
		}
		return "v-" + outcome
	},
}).Parse(indexTemplate))

// HTMLFile is the name of a launch's HTML report in its directory.
const HTMLFile = "report.html"

type indexRow struct {
	R                *Result
	Outcome, Command string
	Findings         string
	Link             string // to the launch's HTML report, relative to the index
	LinkErr          string // why there is no report page
}

// PrintHTML writes the suite's index page, to be saved at path: one
// self-contained page with the suite's verdict and totals, and a table of
// the launches with their verdicts, findings by kind and a link to each
// launch's own HTML report (relative to path). A launch's page is written
// from its report.json, beside it, where it is missing.
func (s *Suite) PrintHTML(w io.Writer, path string) error {
	d := struct {
		S    *Suite
		Rows []indexRow
	}{S: s}
	base, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return err
	}
	for i := range s.Results {
		r := &s.Results[i]
		row := indexRow{R: r, Outcome: r.Outcome, Command: report.Printable(r.CommandLine())}
		switch row.Outcome {
		case NotVerified:
			row.Findings = r.Reason
		case Failed:
			row.Findings = r.Problem
		default:
			errs, warns, kinds := r.Counts()
			row.Findings = fmt.Sprintf("%d %s, %d %s", errs, check.Plural(errs, "error", "errors"), warns, check.Plural(warns, "warning", "warnings"))
			if len(kinds) > 0 {
				row.Findings += ": " + KindList(kinds)
			}
			row.Link, row.LinkErr = launchPage(r, base)
		}
		d.Rows = append(d.Rows, row)
	}
	return indexPage.Execute(w, d)
}

// launchPage writes the launch's HTML report where it is missing, and
// returns the link to it from the directory base.
func launchPage(r *Result, base string) (link, problem string) {
	page, err := filepath.Abs(filepath.Join(r.Dir, HTMLFile))
	if err != nil {
		return "", err.Error()
	}
	if _, err := os.Stat(page); err != nil {
		if err := report.WriteHTML(page, withGraphs(r.Report)); err != nil {
			os.Remove(page)
			return "", fmt.Sprintf("cannot write %s: %v", page, err)
		}
	}
	rel, err := filepath.Rel(base, page)
	if err != nil {
		return (&url.URL{Scheme: "file", Path: page}).String(), ""
	}
	return (&url.URL{Path: filepath.ToSlash(rel)}).String(), ""
}

// graphLine is how a finding's message names the graph that goes with it
// (check.Graph.Path), which the report's DOT printer left in the run
// directory as NAME.dot (and NAME.svg).
const graphLine = "\nwait-for graph: "

// withGraphs gives the findings of a report read from JSON (which keeps no
// graph) the graphs their messages name, read from the .dot files the run
// left, so that the page shows them as mpivet run --html does.
func withGraphs(r *report.Report) *report.Report {
	c := *r
	c.Findings = slices.Clone(r.Findings)
	for i, f := range c.Findings {
		_, path, ok := strings.Cut(f.Message, graphLine)
		if !ok || f.Graph != nil {
			continue
		}
		path, _, _ = strings.Cut(path, "\n")
		name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		dot, err := os.ReadFile(filepath.Join(filepath.Dir(path), name+".dot"))
		if err == nil {
			c.Findings[i].Graph = &check.Graph{Dir: filepath.Dir(path), Name: name, DOT: string(dot)}
		}
	}
	return &c
}
