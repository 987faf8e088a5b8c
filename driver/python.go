package driver

import (
	"strings"

	"mpivet/launch"
)

// pythonHint completes the note of a Python program whose wildcard
// receives were not explored because it runs MPI_THREAD_MULTIPLE: mpi4py
// asks for it by default, whether or not the program's threads call MPI.
func pythonHint(sess *launch.Session, off string) string {
	if sess.MPI.Python == "" || !strings.Contains(off, "MPI_THREAD_MULTIPLE") {
		return ""
	}
	return ` (mpi4py asks for it by default: if only one thread of the program calls MPI, set mpi4py.rc.thread_level = "funneled" before "from mpi4py import MPI" to have them explored)`
}
