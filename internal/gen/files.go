package main

// MPI-IO: what the wrappers of file calls give the layer's MPI-IO service
// (layer/src/mpiio) and argument checks beyond the records their
// parameters make.

import "mpivet/api"

// filePre returns the calls to the MPI-IO service a wrapper makes before
// the MPI call, on the C views of its parameters: the name and access
// mode of an open (MetaFile, before the call, so that a failed open is
// named too), the etype and data representation of a view (MetaView).
func filePre(c *api.Call) []string {
	switch c.Name {
	case "MPI_File_open":
		return []string{"mpivet_file_open(e_, filename, amode)"}
	case "MPI_File_set_view":
		return []string{"mpivet_file_view(e_, etype, datarep, bad_)"}
	case "MPI_File_close":
		return []string{"MPI_File fh_closed_ = fh ? *fh : MPI_FILE_NULL"}
	}
	return nil
}

// filePost returns what a wrapper tells the MPI-IO service once the MPI
// call returned rc_: the file an open made, the file a close closed, an
// independent read completed (settled), and, after an error
// (mpivet_error), which file the failed call was on. A Fortran wrapper
// gives the program the request a settled read put in its C view.
func filePost(c *api.Call, fortran bool) []string {
	if !c.Has("file") {
		return nil
	}
	var hs []string
	switch c.Name {
	case "MPI_File_open":
		hs = append(hs, "if (rc_ == MPI_SUCCESS && fh)\n\t\tmpivet_file_opened(*fh, filename)",
			"if (rc_ != MPI_SUCCESS)\n\t\tmpivet_file_error_named(filename)")
	case "MPI_File_delete":
		hs = append(hs, "if (rc_ != MPI_SUCCESS)\n\t\tmpivet_file_error_named(filename)")
	case "MPI_File_close":
		hs = append(hs, "if (rc_ != MPI_SUCCESS)\n\t\tmpivet_file_error(fh_closed_)",
			"if (rc_ == MPI_SUCCESS)\n\t\tmpivet_file_closed(fh_closed_)")
	default:
		if settled(c) {
			settle := "if (rc_ == MPI_SUCCESS && request && mpivet_bc_on)\n\t\tmpivet_file_settle(request)"
			if fortran {
				settle = "if (rc_ == MPI_SUCCESS && mpivet_bc_on) {\n\t\tmpivet_file_settle(request);\n\t\t*(MPI_Fint *)f_request = MPI_Request_c2f(c_request);\n\t}"
			}
			hs = append(hs, settle)
		}
		if c.Param("fh") >= 0 {
			hs = append(hs, "if (rc_ != MPI_SUCCESS)\n\t\tmpivet_file_error(fh)")
		}
	}
	return hs
}

// settled reports whether the wrapper of c completes the operation it
// started before it returns, when the buffer checker is on: an independent
// nonblocking read, whose buffer the kernel fills with no MPI call in
// progress (layer/src/buffers/hooks.c, files).
func settled(c *api.Call) bool {
	return c.Has("file") && c.Has("read") && c.Has("nonblocking") && !c.Has("fcoll")
}

// fileHooks writes the calls hs, one statement each.
func fileHooks(w writer, hs []string) {
	for _, h := range hs {
		w("\t%s;\n", h)
	}
}

// stringParams are the C strings and arrays of strings (CHARACTER arrays:
// MPI_Comm_spawn's argv ...) among the Fortran parameters of c, whose
// lengths the Fortran compiler passes as hidden arguments after the
// others, in order.
func stringParams(ps []api.Param) []api.Param {
	var ss []api.Param
	for _, p := range ps {
		if p.Base == "char" && (p.Ptrs > 0 || p.Array) {
			ss = append(ss, p)
		}
	}
	return ss
}

// stringView declares the C view of a Fortran CHARACTER argument: a copy
// without its trailing blanks, ended by a NUL (the MPI-IO service keeps
// names; a name longer than the view is cut).
func stringView(w writer, p api.Param) {
	w("\tchar s_%s[1024];\n\tconst char *%s = mpivet_f_string(f_%s, l_%s, s_%s, sizeof s_%s);\n",
		p.Name, p.Name, p.Name, p.Name, p.Name, p.Name)
}

// fileArg is true for the parameters the argument checks read of a file
// call: an offset, size or displacement that must not be negative, the
// access mode of an open, the etype and filetype of a view, the whence of
// a seek.
func fileArg(names ...string) func(*api.Call) int {
	return func(c *api.Call) int {
		if !c.Has("file") {
			return -1
		}
		for i, p := range c.Params {
			for _, n := range names {
				if p.Name == n && p.Role == api.Value && p.Ptrs == 0 {
					return i
				}
			}
		}
		return -1
	}
}
