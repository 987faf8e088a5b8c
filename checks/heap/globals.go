package heap

import (
	"strings"

	"mpivet/api"
	"mpivet/check"
	"mpivet/symbolize"
	"mpivet/trace"
)

// Globals: the layer logs a buffer that starts in a writable segment of the
// executable or a library (api.HeapGlobal) with the bytes it covers, once
// per call site, parameter and extent; here it is compared with the global
// data object it starts in (an ELF STT_OBJECT symbol with its st_size, from
// .symtab or .dynsym: no debug information needed; the load bias from the
// rank's mappings).

// fromMPI: the MPI's own globals (MPI_IN_PLACE and MPI_BOTTOM of the
// Fortran bindings are common blocks and module variables of one element,
// which a buffer with absolute addresses starts in).
func fromMPI(name string) bool {
	l := strings.ToLower(name)
	for _, p := range []string{"mpi_", "mpifcmb", "mpipriv", "ompi_", "mpir_", "pmpi_", "__mpi"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// global turns a HeapGlobal record into an overrun of the global it starts
// in, with the global's name; false when the buffer lies inside it, or in
// no global of the program's.
func global(pass *check.Pass, p *trace.Process, h trace.Heap) (trace.Heap, string, bool) {
	if pass.In.Sym == nil {
		return h, "", false
	}
	o, ok := pass.In.Sym.DataObject(p.Maps, h.Buf)
	if !ok || fromMPI(o.Name) || (h.Lo >= o.Start && h.Hi <= o.Start+o.Size) {
		return h, "", false
	}
	h.What, h.Start, h.Size, h.AllocPC = api.HeapOverrun, o.Start, o.Size, 0
	return h, o.Name + " (" + symbolize.Location{Module: o.Module}.Addr() + ")", true
}
