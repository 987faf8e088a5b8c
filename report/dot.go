package report

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
)

// DOT prints the graphs that go with findings (a deadlock's wait-for graph,
// check.Finding.Graph) as files in the directory each names: NAME.dot, and
// NAME.svg drawn by Graphviz's dot where it is installed (the file
// check.Graph.Path names in the finding's message).
type DOT struct{}

// NewDOT returns a DOT printer.
func NewDOT() *DOT { return &DOT{} }

// Print writes the graphs of r's findings.
func (DOT) Print(r *Report) error {
	var errs []error
	_, lookErr := exec.LookPath("dot")
	for _, f := range r.Findings {
		g := f.Graph
		if g == nil || g.Dir == "" {
			continue
		}
		dot := filepath.Join(g.Dir, g.Name+".dot")
		if err := os.WriteFile(dot, []byte(g.DOT), 0o644); err != nil {
			errs = append(errs, err)
			continue
		}
		if lookErr == nil {
			svg := filepath.Join(g.Dir, g.Name+".svg")
			if out, err := exec.Command("dot", "-Tsvg", "-o", svg, dot).CombinedOutput(); err != nil {
				errs = append(errs, errors.New("dot -Tsvg "+dot+": "+err.Error()+": "+string(out)))
			}
		}
	}
	return errors.Join(errs...)
}
