// Package lifecycle defines the request-lifecycle check.
package lifecycle

import (
	"embed"
	"fmt"
	"strings"

	"mpivet/check"
	"mpivet/checks/internal/objects"
)

// The check's documentation: request-lifecycle.md is its Doc, and every other
// KIND.md explains a kind (mpivet explain KIND, docs/checks.md).
//
//go:embed *.md
var docFiles embed.FS

var checkDoc, kindDocs = check.Docs(docFiles, "request-lifecycle")

// Check reports nonblocking and persistent operations used against their life cycle.
var Check = &check.Check{
	Name:     "request-lifecycle",
	Doc:      checkDoc,
	KindDocs: kindDocs,
	Requires: []*check.Check{objects.Analyzer},
	Run:      run,
}

func run(pass *check.Pass) (any, error) {
	objs := pass.ResultOf[objects.Analyzer].(*objects.Result)
	for _, p := range pass.In.Run.Procs {
		st := objs.Of(p)
		for _, e := range st.Events {
			created := pass.At(p, e.Object.Created)
			created.Note = "operation created here"
			at := pass.At(p, e.Call)
			switch e.What {
			case objects.StartedActive:
				at.Note = "started again here"
				pass.Report(check.Finding{
					Message:   fmt.Sprintf("persistent request of %s is started while its previous operation is still active", e.Object.Created.Name()),
					Locations: []check.Location{at, created},
				})
			case objects.UsedPending:
				at.Note = "used here"
				created.Note = "made here; its request not completed yet"
				pass.Report(check.Finding{
					Message:   fmt.Sprintf("communicator made by %s is used before its request completed (MPI_Wait/MPI_Test): it is not valid until then", e.Object.Created.Name()),
					Locations: []check.Location{at, created},
				})
			case objects.BegunActive, objects.ClosedActive:
				created.Note = "begun here"
				at.Note = "begun again here"
				what := "another split collective is begun on the file"
				if e.What == objects.ClosedActive {
					at.Note = "closed here"
					what = "the file is closed"
				}
				pass.Report(check.Finding{
					Message:   fmt.Sprintf("split collective %s is not ended when %s: at most one may be active on a file, and it must end before the file is closed", e.Object.Created.Name(), what),
					Locations: []check.Location{at, created},
				})
			case objects.FreedActive:
				at.Note = "freed here"
				pass.Report(check.Finding{
					Severity:  check.Warning,
					Message:   fmt.Sprintf("request of %s is freed before its operation completed; the program cannot know when it is safe to reuse its buffer", e.Object.Created.Name()),
					Locations: []check.Location{at, created},
				})
			}
		}
		if st.Finalize == nil {
			continue
		}
		for _, o := range st.Live {
			if o.Kind == objects.Split {
				begun := pass.At(p, o.Created)
				begun.Note = "begun here"
				fin := pass.At(p, st.Finalize)
				fin.Note = "MPI_Finalize called with it pending"
				pass.Report(check.Finding{
					Message:   fmt.Sprintf("split collective %s is never ended (%s) before MPI_Finalize", o.Created.Name(), strings.Replace(o.Created.Name(), "_begin", "_end", 1)),
					Locations: []check.Location{begun, fin},
				})
				continue
			}
			if o.Kind != "request" || !o.Active {
				continue
			}
			by := o.Created
			if o.Persistent && o.Started != nil {
				by = o.Started
			}
			created := pass.At(p, by)
			created.Note = "operation started here"
			fin := pass.At(p, st.Finalize)
			fin.Note = "MPI_Finalize called with the operation pending"
			what := "never waited or tested to completion"
			if o.Cancelled {
				what = "cancelled but never completed (MPI_Cancel needs a Wait or Test afterwards)"
			}
			pass.Report(check.Finding{
				Message:   fmt.Sprintf("operation of %s is %s before MPI_Finalize", by.Name(), what),
				Locations: []check.Location{created, fin},
			})
		}
	}
	return nil, nil
}
