package main

import (
	"slices"

	"mpivet/api"
)

// The argument checks (layer/src/arguments) find the parameters they check
// through per-call tables of positions among the parameters (k_: what the
// hooks see), -1 where a call has none. They are named after the
// parameters' roles in the standard, read from the description: which
// parameter is a peer, a tag, a root, the buffer, count and datatype of the
// send or the receive side of a point-to-point call, an operation, or a
// handle the call makes or frees. Collectives' buffers, counts and types
// come from the decoder's tables (mpivet_call_k_sendbuf ...).

func paramWhere(c *api.Call, ok func(api.Param) bool) int {
	for i, p := range c.Params {
		if ok(p) {
			return i
		}
	}
	return -1
}

// named returns the position of the first parameter of c with one of the
// names, if pred holds for c.
func namedIf(pred func(*api.Call) bool, names ...string) func(*api.Call) int {
	return func(c *api.Call) int {
		if !pred(c) {
			return -1
		}
		return paramWhere(c, func(p api.Param) bool { return slices.Contains(names, p.Name) })
	}
}

// sends: a point-to-point call that sends (and does not receive as well
// with the same buffer names); receives: one that receives or probes.
func p2pSends(c *api.Call) bool { return c.Has("p2p") && c.Has("send") }
func p2pRecvs(c *api.Call) bool {
	return c.Has("p2p") && (c.Has("recv") || c.Has("probe")) && !c.Has("send")
}
func p2pAny(c *api.Call) bool { return c.Has("p2p") }

// rmaData: a one-sided communication call.
func rmaData(c *api.Call) bool { return c.Has("rma") && c.Param("target_rank") >= 0 }

// recvType is the position of the datatype of the memory c writes: the
// receive side of a point-to-point call, the data of a file read, the
// origin or result buffer of a one-sided call that fetches.
func recvType(c *api.Call) int {
	switch {
	case c.Has("p2p") && c.Has("probe"):
		return -1
	case c.Has("p2p") && c.Param("recvtype") >= 0:
		return c.Param("recvtype")
	case c.Has("p2p") && c.Has("recv"), c.Has("file") && c.Has("read"):
		return c.Param("datatype")
	case c.Name == "MPI_Get" || c.Name == "MPI_Rget":
		return c.Param("origin_datatype")
	case rmaData(c):
		if i := c.Param("result_datatype"); i >= 0 {
			return i
		}
		if c.Param("result_addr") >= 0 {
			return c.Param("datatype")
		}
	}
	return -1
}

// dataAny: a call with one buffer, count and datatype of data to check,
// point-to-point or file.
func dataAny(c *api.Call) bool { return (c.Has("p2p") || c.Has("file")) && c.Param("datatype") >= 0 }

// lifeKind is the kind (api.Obj*) of an object whose handle the argument
// checks follow, or 0.
func lifeKind(p api.Param) int {
	switch p.Handle {
	case "comm":
		return api.ObjComm
	case "datatype":
		return api.ObjDatatype
	case "op":
		return api.ObjOp
	case "file":
		return api.ObjFile
	}
	return 0
}

func roleParam(role api.Role) func(*api.Call) int {
	return func(c *api.Call) int {
		return paramWhere(c, func(p api.Param) bool { return p.Role == role && lifeKind(p) != 0 })
	}
}

func roleKind(role api.Role) func(*api.Call) int {
	return func(c *api.Call) int {
		if i := roleParam(role)(c); i >= 0 {
			return lifeKind(c.Params[i])
		}
		return -1
	}
}

var argTables = []table{
	{"k_dest", namedIf(p2pAny, "dest")},
	{"k_source", namedIf(p2pAny, "source")},
	// Tags a send gives (no wildcard allowed), and those a receive or
	// probe matches (MPI_ANY_TAG allowed); communicator constructors' tags
	// are of the first kind.
	{"k_stag", func(c *api.Call) int {
		if i := c.Param("sendtag"); i >= 0 {
			return i
		}
		if p2pSends(c) || (c.Has("comm") && !c.Has("p2p")) {
			return c.Param("tag")
		}
		return -1
	}},
	{"k_rtag", func(c *api.Call) int {
		if i := c.Param("recvtag"); i >= 0 {
			return i
		}
		if p2pRecvs(c) {
			return c.Param("tag")
		}
		return -1
	}},
	{"k_sbuf", namedIf(p2pAny, "sendbuf")},
	{"k_scount", namedIf(p2pAny, "sendcount")},
	{"k_stype", namedIf(p2pAny, "sendtype")},
	{"k_rbuf", namedIf(p2pAny, "recvbuf")},
	{"k_rcount", namedIf(p2pAny, "recvcount")},
	{"k_rtype", namedIf(p2pAny, "recvtype")},
	// One buffer, count and datatype (sends, receives, Sendrecv_replace).
	{"k_buf", namedIf(dataAny, "buf")},
	{"k_count", namedIf(dataAny, "count")},
	{"k_type", namedIf(dataAny, "datatype")},
	// MPI-IO (files.go): the file, offsets, an open's access mode, a
	// view's etype and filetype, a seek's whence.
	{"k_file", func(c *api.Call) int {
		return paramWhere(c, func(p api.Param) bool { return p.Handle == "file" && p.Role == api.Value })
	}},
	{"k_offset", fileArg("offset", "size", "disp")},
	{"k_amode", fileArg("amode")},
	{"k_etype", fileArg("etype")},
	{"k_filetype", fileArg("filetype")},
	{"k_whence", fileArg("whence")},
	// A window synchronisation's assertion (MPI_Win_fence ...).
	{"k_assert", namedIf(func(c *api.Call) bool { return c.Has("rma") }, "assertion")},
	{"k_op", namedIf(func(c *api.Call) bool { return c.Has("coll") }, "op")},
	{"k_oldtype", namedIf(func(c *api.Call) bool { return c.Has("type") }, "oldtype")},
	// One-sided calls' datatypes, which must be valid and committed.
	{"k_otype", namedIf(rmaData, "origin_datatype")},
	{"k_ttype", namedIf(rmaData, "target_datatype")},
	{"k_restype", namedIf(rmaData, "result_datatype")},
	// The datatypes that describe memory the call writes, whose entries must
	// not overlap (MPI 4.0 §5.1, §12.3): a receive's, a read's, a one-sided
	// call's origin or result buffer it fetches into; k_wtarget, the target
	// buffer a one-sided call writes.
	{"k_wtype", recvType},
	{"k_wtarget", func(c *api.Call) int {
		if rmaData(c) && c.Name != "MPI_Get" && c.Name != "MPI_Rget" {
			return c.Param("target_datatype")
		}
		return -1
	}},
	{"k_new", roleParam(api.New)},
	{"a_kind", roleKind(api.New)},
	{"k_free", roleParam(api.Free)},
	{"f_kind", roleKind(api.Free)},
	{"k_news", roleParam(api.News)},
	{"k_newslen", func(c *api.Call) int {
		if i := roleParam(api.News)(c); i >= 0 {
			return c.Param(c.Params[i].Len)
		}
		return -1
	}},
}

// argsChecked reports whether the wrappers of c call the argument checks:
// calls with a parameter a rule is about, or that make or free an object
// whose life the checks follow.
func argsChecked(c *api.Call) bool {
	if c.Has("init") || c.Has("finalize") || c.Has("abort") {
		return false
	}
	for _, t := range argTables {
		if t.val(c) >= 0 {
			return true
		}
	}
	return c.Name == "MPI_Type_commit" || collData(c) ||
		paramWhere(c, func(p api.Param) bool { return p.Handle == "comm" && p.Role == api.Value }) >= 0
}

// argsLife reports whether the checks follow what the call makes or frees.
func argsLife(c *api.Call) bool {
	return argsChecked(c) && (roleParam(api.New)(c) >= 0 || roleParam(api.Free)(c) >= 0 || roleParam(api.News)(c) >= 0 || c.Name == "MPI_Type_commit")
}

// argsPre writes the call of the checks, before the MPI sees the arguments
// (and before the other hooks, which would pass them to the MPI first).
func argsPre(w writer, c *api.Call) {
	if argsChecked(c) {
		w("\tint bad_ = __builtin_expect(mpivet_args_on, 1) ? mpivet_args_pre(MPIVET_ID_%s, k_) : 0;\n\t(void)bad_;\n", c.Name)
	}
	if heapChecked(c) {
		w("\tif (__builtin_expect(mpivet_heap_on && !bad_, 1))\n\t\tmpivet_heap_pre(MPIVET_ID_%s, k_);\n", c.Name)
	}
}

// heapChecked reports whether the wrappers of c check its buffers against
// the heap blocks that hold them (layer/src/heap) through k_: the calls
// with a buffer the argument checks find (point-to-point) or decode
// (collectives).
func heapChecked(c *api.Call) bool {
	return argsChecked(c) && (collData(c) || namedIf(dataAny, "buf")(c) >= 0 ||
		namedIf(p2pAny, "sendbuf")(c) >= 0 || namedIf(p2pAny, "recvbuf")(c) >= 0)
}

// heapRMA writes the checks of a one-sided call's origin, result and
// compare buffers against the heap (layer/src/heap), before the call.
func heapRMA(w writer, c *api.Call) {
	if !c.Has("rma") {
		return
	}
	for _, b := range [][3]string{{"origin_addr", "origin_count", "origin_datatype"}, {"result_addr", "result_count", "result_datatype"},
		{"origin_addr", "1", "datatype"}, {"result_addr", "1", "datatype"}, {"compare_addr", "1", "datatype"}} {
		k := c.Param(b[0])
		if k < 0 || c.Param(b[2]) < 0 || (b[1] != "1" && c.Param(b[1]) < 0) {
			continue
		}
		w("\tif (__builtin_expect(mpivet_heap_on, 1))\n\t\tmpivet_heap_buf(MPIVET_ID_%s, %d, %s, %s, %s);\n", c.Name, k, b[0], b[1], b[2])
	}
}

// argsPreFortran writes the call of the checks in a Fortran wrapper: where
// the call takes an array of datatypes (MPI_Type_create_struct's), whose
// elements are Fortran handles the checks convert, it tells them so.
func argsPreFortran(w writer, c *api.Call) {
	if !argsChecked(c) || paramWhere(c, func(p api.Param) bool { return p.Handle == "datatype" && p.Array && p.Role == api.Value }) < 0 {
		argsPre(w, c)
		return
	}
	w("\tmpivet_args_fortran = 1;\n")
	argsPre(w, c)
	w("\tmpivet_args_fortran = 0;\n")
}

// hookOn is the condition under which the wrapper of c calls the clock
// protocol's or deterministic mode's hooks (on: mpivet_ck_on,
// mpivet_dt_on): not for a call whose handles the argument checks found
// invalid (null, freed), which the hooks would give to the MPI themselves
// (a freed datatype's signature, a freed communicator's piggyback) and
// crash in the layer before the MPI says anything.
func hookOn(c *api.Call, on string) string {
	if argsChecked(c) {
		return on + " && !bad_"
	}
	return on
}

// argsPost writes the call that tells the checks what the call made or freed.
func argsPost(w writer, c *api.Call) {
	if argsLife(c) {
		w("\tif (__builtin_expect(mpivet_args_on, 1))\n\t\tmpivet_args_post(MPIVET_ID_%s, k_, rc_);\n", c.Name)
	}
}

// zeroSync writes, for a blocking collective with data, the barrier that
// makes it synchronise under zero buffering (--buffering=zero): the
// standard lets every collective synchronise, and an MPI's MPI_Bcast,
// MPI_Reduce, MPI_Gather... of a small message mostly does not, so a
// program that relies on the root leaving early would pass the zero
// buffering run. Every member must call the collective anyway: the barrier
// adds no wait a correct program does not allow. (Barriers, communicator
// constructors and nonblocking collectives are left as they are, and so
// are collectives on communicators with processes mpivet did not launch,
// which run without the layer and would not join the barrier.)
func zeroSync(w writer, c *api.Call) {
	if !collData(c) || !c.Has("blocking") || c.Param("comm") < 0 {
		return
	}
	w("\tif (__builtin_expect(mpivet_zero_buffering, 0) && !bad_ && comm != MPI_COMM_NULL && !mpivet_ck_foreign(comm))\n\t\tPMPI_Barrier(comm);\n")
}
