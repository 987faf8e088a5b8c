package driver

import (
	"strings"

	"mpivet/launch"
)

// pythonHint completes the note of a Python program whose wildcard
// receives were not explored because several of its threads call MPI
// (threads.go): mpi4py initialises MPI_THREAD_MULTIPLE by default, and a
// program whose MPI calls all come from one thread is explored; one whose
// threads call MPI is not, whatever thread level it asks for.
func pythonHint(sess *launch.Session, off string) string {
	if sess.MPI.Python == "" || !strings.Contains(off, "MPI_THREAD_MULTIPLE") {
		return ""
	}
	return " (a Python thread other than the one that imported mpi4py.MPI called MPI)"
}
