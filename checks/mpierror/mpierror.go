// Package mpierror defines the check of errors MPI calls return.
package mpierror

import (
	"fmt"

	"mpivet/check"
)

// Check reports errors that MPI calls returned to the program.
var Check = &check.Check{
	Name:  "mpi-error",
	Kinds: []string{"mpi-error", "truncation"},
	Doc: `errors MPI calls returned: truncated receives and every other MPI error

A receive whose buffer is too small for the message that matched it
(MPI_ERR_TRUNCATE) is reported as truncation; any other error an MPI call
returns as mpi-error, with the call and its source line. Programs that keep
MPI's default error handler do not see such errors returned: the MPI ends
the job inside the call, and mpivet reports that with the MPI's own words
(program-failure, or truncation when the MPI says a message was truncated).

MPI-IO calls are the exception: a file's default error handler is
MPI_ERRORS_RETURN (MPI 4.0 §14.7), so an MPI_File_open of a file that does
not exist, a write to a file opened read-only, and the like return an error
the program may well ignore, and go on with a file handle that is not
valid. The finding names the file (as given to MPI_File_open or
MPI_File_delete).`,
	KindDocs: map[string]string{"truncation": `a receive returned MPI_ERR_TRUNCATE: its buffer was too small for the message

A receive must give room for the whole message that matches it (MPI 3.1
§3.2.4): a message longer than count x datatype of the receive is an
MPI_ERR_TRUNCATE error. A program that set an error handler other than
MPI_ERRORS_ARE_FATAL (MPI_ERRORS_RETURN, or its own) gets the error back
from the receive, or from the Wait or Test that completes it; mpivet
reports it with the call and its line, whether or not the program looks at
the return code. The received data is undefined. The sender and the
receiver disagree on the message's size: check the counts and datatypes on
both sides, or probe (MPI_Probe, MPI_Get_count) before receiving messages of
varying length.`},
	Run: run,
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
