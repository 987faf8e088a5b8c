// Package all lists every check mpivet runs, in report order. A new check
// is one package under checks/ and one line here: the shared analyses it
// requires run by themselves (check.Unit), mpivet checks lists it,
// mpivet explain explains its kinds (from its KIND.md files), docs/checks.md
// gets its sections (go test ./cmd/mpivet -run Reference -update), and
// tests validate the registry and the reference.
package all

import (
	"mpivet/check"
	"mpivet/checks/arguments"
	"mpivet/checks/bufferreuse"
	"mpivet/checks/collective"
	"mpivet/checks/deadlock"
	"mpivet/checks/failure"
	"mpivet/checks/heap"
	"mpivet/checks/leak"
	"mpivet/checks/lifecycle"
	"mpivet/checks/mpierror"
	"mpivet/checks/rma"
	"mpivet/checks/threadlevel"
	"mpivet/checks/threadsharing"
	"mpivet/checks/timeout"
	"mpivet/checks/typematch"
	"mpivet/checks/unreceived"
)

// Checks are all checks, in report order.
var Checks = []*check.Check{
	arguments.Check,
	failure.Check,
	deadlock.Check,
	timeout.Check,
	collective.Check,
	leak.Check,
	lifecycle.Check,
	bufferreuse.Check,
	heap.Check,
	rma.Check,
	mpierror.Check,
	typematch.Check,
	unreceived.Check,
	threadlevel.Check,
	threadsharing.Check,
}
