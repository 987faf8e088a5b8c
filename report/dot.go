package report

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"

	"mpivet/rundir"
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
		if err := rundir.WriteFile(dot, []byte(g.DOT)); err != nil {
			errs = append(errs, err)
			continue
		}
		if lookErr == nil {
			if err := writeSVG(filepath.Join(g.Dir, g.Name+".svg"), dot); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// writeSVG has Graphviz draw the graph of the file dot into the file svg,
// created as every file of a run directory is (package rundir).
func writeSVG(svg, dot string) error {
	f, err := rundir.Create(svg)
	if err != nil {
		return err
	}
	var stderr bytes.Buffer
	cmd := exec.Command("dot", "-Tsvg", dot)
	cmd.Stdout, cmd.Stderr = f, &stderr
	err = cmd.Run()
	if cerr := f.Close(); err == nil && cerr != nil {
		return cerr
	}
	if err != nil {
		return errors.New("dot -Tsvg " + dot + ": " + err.Error() + ": " + stderr.String())
	}
	return nil
}
