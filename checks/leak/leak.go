// Package leak defines the resource-leak check.
package leak

import (
	"embed"
	"fmt"

	"mpivet/check"
	"mpivet/checks/internal/objects"
)

// The check's documentation: resource-leak.md is its Doc, and every other
// KIND.md explains a kind (mpivet explain KIND, docs/checks.md).
//
//go:embed *.md
var docFiles embed.FS

var checkDoc, kindDocs = check.Docs(docFiles, "resource-leak")

// Check reports MPI objects still allocated when a rank calls MPI_Finalize.
var Check = &check.Check{
	Name:     "resource-leak",
	Doc:      checkDoc,
	KindDocs: kindDocs,
	Requires: []*check.Check{objects.Analyzer},
	Run:      run,
}

var kindNames = map[string]string{
	"comm": "communicator", "group": "group", "datatype": "datatype", "op": "user-defined operation",
	"info": "info object", "errhandler": "error handler", "message": "matched message (MPI_Mprobe) never received",
	"win": "window", "file": "file",
}

var freers = map[string]string{
	"comm": "MPI_Comm_free", "group": "MPI_Group_free", "datatype": "MPI_Type_free", "op": "MPI_Op_free",
	"info": "MPI_Info_free", "errhandler": "MPI_Errhandler_free", "message": "MPI_Mrecv or MPI_Imrecv",
	"win": "MPI_Win_free", "file": "MPI_File_close",
}

func run(pass *check.Pass) (any, error) {
	objs := pass.ResultOf[objects.Analyzer].(*objects.Result)
	for _, p := range pass.In.Run.Procs {
		st := objs.Of(p)
		if st.Finalize == nil {
			continue // the rank never finalized: program-failure says so
		}
		// One finding per creation site, with a count.
		type site struct {
			kind   string
			pc     uint64
			active bool
		}
		count := map[site]int{}
		first := map[site]*objects.Object{}
		var order []site
		for _, o := range st.Live {
			if o.Kind == objects.Split { // a split collective not ended: request-lifecycle's
				continue
			}
			s := site{string(o.Kind), o.Created.PC, o.Active}
			if count[s] == 0 {
				first[s] = o
				order = append(order, s)
			}
			count[s]++
		}
		for _, s := range order {
			o, n := first[s], count[s]
			var msg string
			switch {
			case s.kind == "request" && o.Persistent:
				msg = fmt.Sprintf("persistent request created by %s is never freed (MPI_Request_free)", o.Created.Name())
			case s.kind == "request":
				msg = fmt.Sprintf("request of %s is never completed (MPI_Wait/MPI_Test) nor freed", o.Created.Name())
			case s.kind == "file" && o.Created.File() != nil:
				msg = fmt.Sprintf("file %q opened by %s is never closed (MPI_File_close)", o.Created.File().Name, o.Created.Name())
			case s.kind == "file":
				msg = fmt.Sprintf("file opened by %s is never closed (MPI_File_close)", o.Created.Name())
			case s.kind == "message":
				msg = fmt.Sprintf("message matched by %s is never received (%s)", o.Created.Name(), freers[s.kind])
			default:
				msg = fmt.Sprintf("%s created by %s is never freed (%s)", kindNames[s.kind], o.Created.Name(), freers[s.kind])
			}
			if n > 1 {
				msg = fmt.Sprintf("%d objects: %s", n, msg)
			}
			loc := pass.At(p, o.Created)
			loc.Note = "created here"
			fin := pass.At(p, st.Finalize)
			fin.Note = "still allocated at MPI_Finalize"
			pass.Report(check.Finding{Message: msg, Locations: []check.Location{loc, fin}})
		}
	}
	return nil, nil
}
