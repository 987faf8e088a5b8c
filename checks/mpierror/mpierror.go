// Package mpierror defines the check of errors MPI calls return.
package mpierror

import (
	"embed"
	"fmt"

	"mpivet/check"
)

// The check's documentation: mpi-error.md is its Doc, and every other
// KIND.md explains a kind (mpivet explain KIND, docs/checks.md).
//
//go:embed *.md
var docFiles embed.FS

var checkDoc, kindDocs = check.Docs(docFiles, "mpi-error")

// Check reports errors that MPI calls returned to the program.
var Check = &check.Check{
	Name:     "mpi-error",
	Kinds:    []string{"mpi-error", "truncation"},
	Doc:      checkDoc,
	KindDocs: kindDocs,
	Run:      run,
}

func run(pass *check.Pass) (any, error) {
	for _, p := range pass.In.Run.Procs {
		truncate, _ := p.Const("MPI_ERR_TRUNCATE")
		for _, e := range p.Errors {
			if e.Fatal {
				continue // the job ended there: program-failure reports it
			}
			kind, what := "mpi-error", fmt.Sprintf("%s (error code %d)", check.ErrorClass(p, e.Class), e.RC)
			if e.Class == int64(truncate) {
				kind, what = "truncation", "the message is larger than the receive buffer (MPI_ERR_TRUNCATE)"
			}
			l := pass.AtSite(p, e.Call.Name, e.PC)
			l.Note = "the call that failed"
			on := ""
			if e.OnFile && e.File != "" {
				on = fmt.Sprintf(" on file %q", e.File)
			}
			pass.Report(check.Finding{
				Kind:      kind,
				Message:   fmt.Sprintf("%s%s returned an error: %s", e.Call.Name, on, what),
				Locations: []check.Location{l},
			})
		}
	}
	return nil, nil
}
