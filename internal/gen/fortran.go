package main

// The Fortran wrappers: for every call the F77/`use mpi` symbols (mpi_x_
// and its other spellings) and the `use mpi_f08` ones, which convert
// handles to C only to record them and call the MPI's own Fortran binding.

import (
	"fmt"
	"strings"

	"mpivet/api"
)

const fortranPrelude = `/* Fortran wrappers. Both MPIs' Fortran bindings may call PMPI_* directly
 * (Open MPI always, MPICH for mpi_f08), so the Fortran symbols are wrapped
 * themselves, and each calls the MPI's own binding (the next definition of
 * the same symbol): Fortran-specific constants (MPI_BOTTOM, MPI_IN_PLACE,
 * ...) and choice buffers (MPICH's f08 descriptors of array sections) stay
 * the binding's business. Around that call the wrapper does what the C
 * wrapper does around PMPI_X, on C views of the Fortran arguments: a
 * variable of the C parameter's type and name for each (handles converted
 * with MPI_*_f2c, 1-based indexes made 0-based, statuses converted with
 * MPI_Status_f2c after the call), so that the records and the clock
 * protocol's hooks are the C wrapper's. What a hook rewrites reaches the
 * binding through its own Fortran variable (a forced source, whose Fortran
 * argument may be a constant) or the program's (a request hidden from a
 * Waitany, or re-created). A status the program ignores is replaced by one of
 * the wrapper's, to learn the source of a wildcard receive. The guard makes a
 * binding that calls the C MPI_* (MPICH's F77 bindings) pass through the C
 * wrapper without recording twice. */

static void *mpivet_next(const char *sym)
{
	void *f = dlsym(RTLD_NEXT, sym);
	if (!f) {
		fprintf(stderr, "mpivet: the MPI library has no Fortran symbol %s\n", sym);
		abort();
	}
	return f;
}

#if defined(MPICH_VERSION)
#define MPIVET_F08_BUF(name) name##_f08ts_
#define MPIVET_F08_BUFNAME(name) #name "_f08ts_"
#define MPIVET_F08_PTR(p) MPIVET_CFI_ADDR(p)
#define MPIVET_F08_LARGE(name) name##_f08ts_large_
#define MPIVET_F08_LARGENAME(name) #name "_f08ts_large_"
#else
#define MPIVET_F08_BUF(name) name##_f08_
#define MPIVET_F08_BUFNAME(name) #name "_f08_"
#define MPIVET_F08_PTR(p) (p)
#define MPIVET_F08_LARGE(name) name##_f08_large_
#define MPIVET_F08_LARGENAME(name) #name "_f08_large_"
#endif

/* A Fortran status is MPI_STATUS_SIZE integers; type(MPI_Status) of mpi_f08
 * has the same layout in both MPIs (Open MPI's f08 bindings hand it to the
 * F77 code, MPICH's is MPI_F08_status), and so does MPI_Status in C. */
#ifdef MPI_F_STATUS_SIZE
#define MPIVET_F_STATUS_SIZE MPI_F_STATUS_SIZE
#else
#define MPIVET_F_STATUS_SIZE (sizeof(MPI_Status) / sizeof(MPI_Fint))
#endif

/* mpivet_f_ignored reports whether a Fortran status (statuses: array)
 * argument is MPI_STATUS_IGNORE (MPI_STATUSES_IGNORE). MPICH's mpi_f08 has
 * its own; Open MPI's is the F77 one. */
static int mpivet_f_ignored(const void *p, int f08, int statuses)
{
#if defined(MPICH_VERSION)
	if (f08)
		return p == (const void *)(statuses ? MPI_F08_STATUSES_IGNORE : MPI_F08_STATUS_IGNORE);
#endif
	(void)f08;
	return p == (const void *)(statuses ? MPI_F_STATUSES_IGNORE : MPI_F_STATUS_IGNORE);
}

/* mpivet_f_index_base tells how a binding numbers the indexes it returns
 * from Waitany, Testany, Waitsome and Testsome: from 1, as the standard says,
 * or from 0, as MPICH 4.0's mpi_f08 does. The request the reported index i
 * names is one the call set to MPI_REQUEST_NULL (before: the requests on
 * entry, after: the program's array on return), which tells them apart; the
 * first call that tells decides for the binding. */
static int mpivet_f_index_base(int f08, int i, const MPI_Request *before, const MPI_Fint *after, int n)
{
	static int base[2] = {-1, -1};
	if (base[f08] >= 0 || i == MPI_UNDEFINED)
		return base[f08] >= 0 ? base[f08] : 1;
	MPI_Fint null = MPI_Request_c2f(MPI_REQUEST_NULL);
	int one = i >= 1 && i <= n && before[i - 1] != MPI_REQUEST_NULL && after[i - 1] == null;
	int zero = i >= 0 && i < n && before[i] != MPI_REQUEST_NULL && after[i] == null;
	if (one == zero)
		return 1; /* persistent requests, or both: not told yet */
	return base[f08] = one;
}

/* mpivet_f_string gives a C view of a Fortran CHARACTER argument of length
 * n: its text without trailing blanks in buf (cut to its size), ended by a
 * NUL. */
static const char *mpivet_f_string(const void *f, size_t n, char *buf, size_t size)
{
	if (!f)
		return NULL;
	while (n > 0 && ((const char *)f)[n - 1] == ' ')
		n--;
	if (n >= size)
		n = size - 1;
	for (size_t i = 0; i < n; i++)
		buf[i] = ((const char *)f)[i];
	buf[n] = 0;
	return buf;
}

/* mpivet_f_alloc returns room for n elements of size bytes: stack (of
 * room elements) when they fit. */
static void *mpivet_f_alloc(int n, size_t size, void *stack, int room)
{
	if (n <= room)
		return stack;
	void *p = malloc((size_t)n * size);
	if (!p) {
		fprintf(stderr, "mpivet: out of memory\n");
		abort();
	}
	return p;
}

`

var f2c = map[api.HandleKind]string{
	"comm": "MPI_Comm_f2c", "group": "MPI_Group_f2c", "datatype": "MPI_Type_f2c", "op": "MPI_Op_f2c",
	"request": "MPI_Request_f2c", "info": "MPI_Info_f2c", "errhandler": "MPI_Errhandler_f2c", "message": "MPI_Message_f2c",
	"win": "MPI_Win_f2c", "file": "MPI_File_f2c",
}

var c2f = map[api.HandleKind]string{
	"comm": "MPI_Comm_c2f", "group": "MPI_Group_c2f", "datatype": "MPI_Type_c2f", "op": "MPI_Op_c2f",
	"request": "MPI_Request_c2f", "info": "MPI_Info_c2f", "errhandler": "MPI_Errhandler_c2f", "message": "MPI_Message_c2f",
	"win": "MPI_Win_c2f", "file": "MPI_File_c2f",
}

var null = map[api.HandleKind]string{
	"comm": "MPI_COMM_NULL", "group": "MPI_GROUP_NULL", "datatype": "MPI_DATATYPE_NULL", "op": "MPI_OP_NULL",
	"request": "MPI_REQUEST_NULL", "info": "MPI_INFO_NULL", "errhandler": "MPI_ERRHANDLER_NULL", "message": "MPI_MESSAGE_NULL",
	"win": "MPI_WIN_NULL", "file": "MPI_FILE_NULL",
}

// fortranParams are the parameters of the Fortran binding: the program's
// command line (argc and argv of MPI_Init, MPI_Info_create_env) does not
// exist there (MPI_Comm_spawn's argv, without argc, does).
func fortranParams(c *api.Call) []api.Param {
	var ps []api.Param
	cmdline := c.Param("argc") >= 0
	for _, p := range c.Params {
		if !cmdline || (p.Name != "argc" && p.Name != "argv") {
			ps = append(ps, p)
		}
	}
	return ps
}

// fortranHooked reports whether the Fortran wrapper calls the clock
// protocol's hooks. Not for MPI_Comm_idup, whose new communicator the hook
// reads through the program's variable when the request completes, which a
// C view cannot be: a communicator it makes has no shadow, on every rank.
func fortranHooked(c *api.Call) bool {
	if !clockHooked(c) {
		return false
	}
	for _, p := range c.Params {
		if p.Role == api.New && p.Handle == "comm" && c.Has("nonblocking") {
			return false
		}
	}
	return true
}

// isStatuses reports whether p is an array of statuses.
func isStatuses(p api.Param) bool { return p.Base == "MPI_Status" && p.Array }

// rewritable reports whether a hook may rewrite p before the call (the
// source of a receive or probe): an int passed by value.
func rewritable(p api.Param) bool {
	return p.Role == api.Value && p.Base == "int" && p.Ptrs == 0 && !p.Array && p.Name == "source"
}

// genFortran writes the body shared by the F77 and f08 symbols of c, the F77
// wrapper (four spellings) and the f08 wrapper.
func genFortran(w writer, c *api.Call) {
	newFortranGen(w, c, false).gen()
}

// gen writes the body and the entries.
func (f *fortranGen) gen() {
	w, c := f.w, f.c
	f.header()
	f.views()
	if f.large {
		w("%s", largeViews(c))
	}
	f.recordIn()
	if f.hooked {
		f.pre()
	} else if argsChecked(c) {
		f.hookViews()
		argsPreFortran(w, c)
	}
	heapRMA(w, c)
	f.call()
	f.results()
	f.post()
	f.entries()
}

// fortranGen writes the Fortran wrappers of one call (genFortran).
type fortranGen struct {
	w                             writer
	c                             *api.Call
	large                         bool        // the wrappers of c's large-count twin (large.go)
	body                          string      // the name of the body: mpivet_f_NAME
	lower                         string      // the call's name in lower case
	ps                            []api.Param // its Fortran parameters
	hasIerr, hasBuf, hooked       bool
	formals, args, callArgs       []string // of the wrappers, given to the body, given to the binding
	reqs, indices, statuses, flag *api.Param
	cleanup                       []string // C statements that free what the body allocated
}

// fint is the Fortran integer of parameter p, in C.
func fint(p api.Param) string { return "*(MPI_Fint *)f_" + p.Name }

// newFortranGen finds what the wrappers of c (of its large-count twin if
// large) are made of, and writes the type of the MPI's binding (the
// twin's is the call's: every argument is an address).
func newFortranGen(w writer, c *api.Call, large bool) *fortranGen {
	lower := strings.ToLower(c.Name)
	ps := fortranParams(c)
	hasIerr := !c.Has("pcontrol") // MPI_PCONTROL(LEVEL) has no IERROR
	hasBuf := false
	var formals, args, types []string
	for _, p := range ps {
		formals = append(formals, "void *f_"+p.Name)
		args = append(args, "f_"+p.Name)
		types = append(types, "void *")
		hasBuf = hasBuf || p.IsBuffer()
	}
	if hasIerr {
		formals = append(formals, "MPI_Fint *ierr")
		args = append(args, "ierr")
		types = append(types, "MPI_Fint *")
	}
	for _, p := range stringParams(ps) { // hidden lengths of CHARACTER arguments
		formals = append(formals, "size_t l_"+p.Name)
		args = append(args, "l_"+p.Name)
		types = append(types, "size_t")
	}
	if len(types) == 0 {
		types = append(types, "void")
	}
	body := "mpivet_f_" + c.Name
	if large {
		body = "mpivet_f_" + c.LargeName()
	} else {
		w("typedef void (*mpivet_ft_%s)(%s);\n\n", c.Name, strings.Join(types, ", "))
	}
	hooked := fortranHooked(c)
	var reqs, indices, statuses, flag *api.Param
	for i, p := range c.Params {
		switch {
		case p.Role == api.Reqs:
			reqs = &c.Params[i]
		case p.Role == api.Indices:
			indices = &c.Params[i]
		case isStatuses(p):
			statuses = &c.Params[i]
		case p.Role == api.Out && p.Name == "flag":
			flag = &c.Params[i]
		}
	}
	// The arguments given to the binding: the program's, but statuses
	// may be replaced, and rewritten sources are.
	callArgs := make([]string, len(args))
	copy(callArgs, args)
	for i, p := range ps {
		if p.Role == api.Status || (p.Role == api.Ignore && isStatuses(p)) || (hooked && rewritable(p)) {
			callArgs[i] = "a_" + p.Name
		}
	}
	return &fortranGen{w: w, c: c, large: large, body: body, lower: lower, ps: ps, hasIerr: hasIerr, hasBuf: hasBuf, hooked: hooked,
		formals: formals, args: args, callArgs: callArgs, reqs: reqs, indices: indices, statuses: statuses, flag: flag}
}

// header opens the body shared by the F77 and f08 symbols.
func (f *fortranGen) header() {
	w, c, formals, reqs := f.w, f.c, f.formals, f.reqs
	bodyFormals := append([]string{"mpivet_ft_" + c.Name + " real_", "int f08_", "uint64_t pc_"}, formals...)
	w("static void %s(%s)\n{\n", f.body, strings.Join(bodyFormals, ", "))
	w("\tmpivet_guard++;\n")
	if !c.Has("init") {
		w("\tif (!mpivet_inited)\n\t\tmpivet_lazy_init();\n")
	}
	w("\t(void)f08_;\n")
	// The request array's length, for the arrays of the same length.
	if reqs != nil {
		w("\tint n_ = %s;\n\tif (n_ < 0)\n\t\tn_ = 0;\n", fint(c.Params[c.Param(reqs.Len)]))
	}
}

// views declares the C views of the parameters, with their C names and
// types.
func (f *fortranGen) views() {
	w, c := f.w, f.c
	for _, p := range c.Params {
		n := p.Name
		switch p.Role {
		case api.Value:
			switch {
			case p.Ptrs == 0 && !p.Array && p.Handle != "":
				w("\t%s %s = %s(%s);\n", p.Base, n, f2c[p.Handle], fint(p))
			case f.large && c.LargeType(p) != "" && !p.Array: // INTEGER(KIND=MPI_COUNT_KIND) ...
				w("\t%s %s = *(%s *)f_%s;\n", c.LargeType(p), n, c.LargeType(p), n)
			case p.Ptrs == 0 && !p.Array && (p.Base == "MPI_Aint" || p.Base == "MPI_Offset" || p.Base == "MPI_Count"):
				w("\t%s %s = *(%s *)f_%s;\n", p.Base, n, p.Base, n)
			case p.Ptrs == 0 && !p.Array:
				w("\tint %s = %s;\n", n, fint(p))
			case p.IsBuffer():
				w("\tvoid *%s = f08_ ? MPIVET_F08_PTR(f_%s) : f_%s;\n", n, n, n)
			default:
				// Integer arrays, handle arrays (of Fortran integers: no
				// hook reads them), functions: only the address is recorded.
				w("\tvoid *%s = f_%s;\n", n, n)
			}
		case api.New:
			w("\t%s c_%s = %s, *%s = &c_%s;\n", p.Base, n, null[p.Handle], n, n)
		case api.Free, api.Inout:
			w("\t%s c_%s = %s(%s), *%s = &c_%s;\n", p.Base, n, f2c[p.Handle], fint(p), n, n)
		case api.Reqs:
			w("\tMPI_Request rs_[16], *%s = mpivet_f_alloc(n_, sizeof(MPI_Request), rs_, 16);\n", n)
			w("\tfor (int i_ = 0; i_ < n_; i_++)\n\t\t%s[i_] = MPI_Request_f2c(((MPI_Fint *)f_%s)[i_]);\n", n, n)
			f.cleanup = append(f.cleanup, fmt.Sprintf("\tif (%s != rs_)\n\t\tfree(%s);\n", n, n))
		case api.News:
			// The C handles the binding returned, converted after it; the
			// elements it does not fill stay null, as in the C wrapper.
			w("\t%s nh_[16], *%s = mpivet_f_alloc(%s, sizeof(%s), nh_, 16);\n", p.Base, n, p.Len, p.Base)
			w("\tif (f_%s)\n\t\tfor (int i_ = 0; i_ < %s; i_++)\n\t\t\t((MPI_Fint *)f_%s)[i_] = %s(%s);\n", n, p.Len, n, c2f[p.Handle], nullHandle[p.Handle])
			f.cleanup = append(f.cleanup, fmt.Sprintf("\tif (%s != nh_)\n\t\tfree(%s);\n", n, n))
		case api.Out:
			w("\tint c_%s = 0, *%s = &c_%s;\n", n, n, n)
		case api.Index:
			w("\tint c_%s = MPI_UNDEFINED, *%s = &c_%s;\n", n, n, n)
		case api.Indices:
			w("\tint is_[16], *%s = mpivet_f_alloc(n_, sizeof(int), is_, 16);\n", n)
			f.cleanup = append(f.cleanup, fmt.Sprintf("\tif (%s != is_)\n\t\tfree(%s);\n", n, n))
		case api.Status:
			w("\tMPI_Status st_, *sp_ = &st_;\n\tMPI_Fint fst_[MPIVET_F_STATUS_SIZE] = {0};\n")
			w("\tvoid *a_%s = mpivet_f_ignored(f_%s, f08_, 0) ? fst_ : f_%s;\n", n, n, n)
		case api.Ignore:
			if p.IsString() {
				stringView(w, p)
			} else if isStatuses(p) {
				// Only the hooks read statuses: made when they run.
				w("\tMPI_Status ss_[16], *%s = ss_;\n\tMPI_Fint fss_[16 * MPIVET_F_STATUS_SIZE];\n\tvoid *a_%s = f_%s;\n", n, n, n)
				w("\tif (mpivet_ck_on) {\n\t\t%s = mpivet_f_alloc(n_, sizeof(MPI_Status), ss_, 16);\n", n)
				w("\t\tif (mpivet_f_ignored(f_%s, f08_, 1))\n\t\t\ta_%s = mpivet_f_alloc(n_, MPIVET_F_STATUS_SIZE * sizeof(MPI_Fint), fss_, 16);\n\t}\n", n, n)
				f.cleanup = append(f.cleanup, fmt.Sprintf("\tif (%s != ss_)\n\t\tfree(%s);\n\tif (a_%s != f_%s && a_%s != fss_)\n\t\tfree(a_%s);\n", n, n, n, n, n, n))
			} else if p.Ptrs > 0 || p.Array { // not read: argv, arrays of strings, of error codes ...
				w("\t%s = NULL;\n", p.Decl)
			} else { // argc, a session
				w("\t%s = {0};\n", p.Decl)
			}
		}
	}
}

// hookViews declares k_, the addresses through which the hooks see the
// parameters (a twin's wide ones through their views).
func (f *fortranGen) hookViews() {
	k := fmt.Sprintf("\tvoid *k_[] = {%s};\n", strings.Join(hookViews(f.c), ", "))
	f.w("%s", f.viewed(k, `\(void \*\)&`))
}

// viewed is s with a twin's wide parameters named after before replaced
// by their views; s itself for the call.
func (f *fortranGen) viewed(s, before string) string {
	if !f.large {
		return s
	}
	return viewed(f.c, s, before)
}

// recordIn writes the entry record.
func (f *fortranGen) recordIn() {
	w, c := f.w, f.c
	inArgs := append([]string{"pc_"}, recordIn(c,
		func(p api.Param) string { return "MPIVET_A(f_" + p.Name + ")" },
		func(p api.Param) string { return "(int64_t)sizeof(MPI_Fint)" })...)
	w("\tuint64_t e_ = mpivet_in_%s(%s);\n", c.Name, strings.Join(append(inArgs, fastArg(c, "0")...), ", "))
}

// writeBack gives the binding what the hooks changed in the views.
func (f *fortranGen) writeBack(indent string) {
	w, c := f.w, f.c
	for _, p := range c.Params {
		switch {
		case p.Role == api.Inout:
			w("%s{\n%s\tMPI_Fint v_ = %s(c_%s);\n%s\tif (v_ != %s)\n%s\t\t%s = v_;\n%s}\n",
				indent, indent, c2f[p.Handle], p.Name, indent, fint(p), indent, fint(p), indent)
		case p.Role == api.Reqs:
			w("%sfor (int i_ = 0; i_ < n_; i_++) {\n%s\tMPI_Fint v_ = MPI_Request_c2f(%s[i_]);\n%s\tif (v_ != ((MPI_Fint *)f_%s)[i_])\n%s\t\t((MPI_Fint *)f_%s)[i_] = v_;\n%s}\n",
				indent, indent, p.Name, indent, p.Name, indent, p.Name, indent)
		}
	}
}

// pre runs the clock protocol's hooks before the call.
func (f *fortranGen) pre() {
	w, c, ps := f.w, f.c, f.ps
	for _, p := range ps {
		if rewritable(p) {
			w("\tMPI_Fint w_%s;\n\tvoid *a_%s = f_%s;\n", p.Name, p.Name, p.Name)
		}
	}
	f.hookViews()
	argsPreFortran(w, c)
	w("\tif (__builtin_expect(%s, 0)) {\n\t\tif (__builtin_expect(mpivet_dt_on, 0))\n\t\t\tmpivet_dt_pre(MPIVET_ID_%s, e_, k_);\n\t\tmpivet_ck_pre(MPIVET_ID_%s, e_, k_);\n", hookOn(c, "mpivet_ck_on"), c.Name, c.Name)
	for _, p := range ps {
		if rewritable(p) {
			w("\t\tif ((w_%s = %s) != %s)\n\t\t\ta_%s = &w_%s;\n", p.Name, p.Name, fint(p), p.Name, p.Name)
		}
	}
	f.writeBack("\t\t")
	w("\t}\n")
}

// call calls the MPI's binding (its synchronous send's under zero
// buffering). A twin, while its wide arguments fit (fits_), calls what the
// call's wrapper calls, on Fortran views of them, as its C wrapper does (an
// MPI may not describe a datatype made by a large-count constructor to the
// layer's int queries); otherwise the MPI's large-count binding.
func (f *fortranGen) call() {
	w, c := f.w, f.c
	beforeCall(w, c)
	real, callArgs := "real_", f.callArgs
	if f.large && largeDirect(c) { // the MPI's twin, on the program's arrays
		w("\treal_(%s);\n", strings.Join(callArgs, ", "))
		f.callEnd()
		return
	}
	if f.large {
		real, callArgs = f.largeCall()
	}
	if slackSend(c) {
		// A send mpivet buffers (slack/) goes through its C views.
		w("\tif (mpivet_slack_on && mpivet_slack_next(dest)) {\n")
		req := "NULL"
		if c.Has("nonblocking") {
			req = "request"
		}
		w("%s", f.viewed(fmt.Sprintf("\t\tint r_ = mpivet_slack_send(buf, count, datatype, dest, tag, comm, %s);\n", req), `\b`))
		if c.Has("nonblocking") {
			w("\t\tif (r_ == MPI_SUCCESS)\n\t\t\t*(MPI_Fint *)f_request = MPI_Request_c2f(c_request);\n")
		}
		w("\t\tif (ierr)\n\t\t\t*ierr = r_;\n\t} else {\n")
	}
	args := strings.Join(callArgs, ", ")
	if layerSync(c) {
		// Under zero buffering, the layer's own call on the C views; the
		// status goes back to the Fortran one, which is read below.
		var cargs []string
		for _, p := range c.Params {
			if p.Role == api.Status {
				cargs = append(cargs, "sp_")
			} else {
				cargs = append(cargs, p.Name)
			}
		}
		w("\tif (mpivet_zero_buffering) {\n\t\tint r_ = %s(%s);\n", c.Sync, f.viewed(strings.Join(cargs, ", "), `\b`))
		w("\t\tPMPI_Status_c2f(sp_, a_status);\n\t\tif (ierr)\n\t\t\t*ierr = r_;\n")
		w("\t} else\n\t\t%s(%s);\n", real, args)
	} else if c.Sync != "" {
		// Under zero buffering, the MPI's binding of the synchronous send.
		sync := strings.ToLower(c.Sync)
		w("\tstatic mpivet_ft_%s sync_[2];\n", c.Name)
		w("\tif (mpivet_zero_buffering && !sync_[f08_])\n\t\tsync_[f08_] = (mpivet_ft_%s)mpivet_next(f08_ ? %s : %q);\n", c.Name,
			f08Name(sync, f.hasBuf), sync+"_")
		w("\t(mpivet_zero_buffering ? sync_[f08_] : %s)(%s);\n", real, args)
	} else {
		w("\t%s(%s);\n", real, args)
	}
	if slackSend(c) {
		w("\t}\n")
	}
	if f.large {
		w("\t}\n")
	}
	f.callEnd()
}

// largeCall opens the twin's call: the MPI's large-count binding unless
// the wide arguments fit (fits_), then the call's binding (int_, returned
// with its arguments: the views in the call's types).
func (f *fortranGen) largeCall() (string, []string) {
	w, c := f.w, f.c
	w("\tstatic mpivet_ft_%s int_;\n\tif (fits_ && !int_)\n\t\tint_ = (mpivet_ft_%s)mpivet_next(%s);\n", c.Name, c.Name, f08Name(f.lower, f.hasBuf))
	w("\tif (!fits_)\n\t\treal_(%s);\n\telse {\n", strings.Join(f.callArgs, ", "))
	callArgs := append([]string(nil), f.callArgs...)
	for i, p := range f.ps {
		switch {
		case c.LargeType(p) != "" && p.Array: // the copy in the call's type
			callArgs[i] = p.Name + "_v_"
		case c.LargeType(p) != "":
			callArgs[i] = "&" + p.Name + "_v_"
		}
	}
	return "int_", callArgs
}

// callEnd ends the call: the layer's start after an init, rc_.
func (f *fortranGen) callEnd() {
	if f.c.Has("init") {
		f.w("\tmpivet_post_init();\n")
	}
	if f.hasIerr {
		f.w("\tint rc_ = ierr ? *ierr : 0;\n")
	} else {
		f.w("\tint rc_ = 0;\n")
	}
}

// f08Sym is the C expression naming the mpi_f08 symbol of a call (lower
// case name) with the parameters of this one: of its large-count binding
// for a twin.
func (f *fortranGen) f08Sym(lower string) string {
	switch {
	case !f.large:
		return f08Name(lower, f.hasBuf)
	case f.hasBuf:
		return "MPIVET_F08_LARGENAME(" + lower + ")"
	}
	return fmt.Sprintf("%q", lower+"_f08_large_")
}

// results converts what the call gave to C. Indexes first, while the
// views still hold the requests on entry.
func (f *fortranGen) results() {
	w, c, reqs, indices, statuses, flag, hooked := f.w, f.c, f.reqs, f.indices, f.statuses, f.flag, f.hooked
	if reqs != nil && (indices != nil || c.Param("index") >= 0) {
		first := "*(MPI_Fint *)f_index"
		if indices != nil {
			first = fmt.Sprintf("(*(MPI_Fint *)f_%s > 0 ? *(MPI_Fint *)f_%s : MPI_UNDEFINED)", indices.Len, indices.Name)
		}
		w("\tint b_ = mpivet_f_index_base(f08_, %s, %s, f_%s, n_);\n", first, reqs.Name, reqs.Name)
	}
	for _, p := range c.Params {
		n := p.Name
		switch p.Role {
		case api.New:
			w("\tif (rc_ == MPI_SUCCESS)\n\t\tc_%s = %s(%s);\n", n, f2c[p.Handle], fint(p))
		case api.Inout:
			w("\tc_%s = %s(%s);\n", n, f2c[p.Handle], fint(p))
		case api.Reqs:
			w("\tfor (int i_ = 0; i_ < n_; i_++)\n\t\t%s[i_] = MPI_Request_f2c(((MPI_Fint *)f_%s)[i_]);\n", n, n)
		case api.News:
			w("\tif (rc_ == MPI_SUCCESS && f_%s)\n\t\tfor (int i_ = 0; i_ < %s; i_++)\n\t\t\t%s[i_] = %s(((MPI_Fint *)f_%s)[i_]);\n", n, p.Len, n, f2c[p.Handle], n)
		case api.Out:
			w("\tc_%s = %s;\n", n, fint(p))
		case api.Index:
			w("\tc_%s = %s == MPI_UNDEFINED ? MPI_UNDEFINED : %s - b_;\n", n, fint(p), fint(p))
		case api.Indices:
			w("\tfor (int i_ = 0; i_ < c_%s && c_%s != MPI_UNDEFINED && i_ < n_; i_++)\n\t\t%s[i_] = ((MPI_Fint *)f_%s)[i_] - b_;\n", p.Len, p.Len, n, n)
		case api.Status:
			w("\tPMPI_Status_f2c(a_%s, &st_);\n", n)
		}
	}
	argsPost(w, c)
	if statuses != nil && hooked {
		// As many statuses as the call filled.
		filled := "n_"
		switch {
		case indices != nil:
			filled = fmt.Sprintf("(c_%s == MPI_UNDEFINED ? 0 : c_%s)", indices.Len, indices.Len)
		case flag != nil:
			filled = "(c_flag ? n_ : 0)"
		}
		w("\tif (mpivet_ck_on)\n\t\tfor (int i_ = 0; i_ < %s; i_++)\n\t\t\tPMPI_Status_f2c((MPI_Fint *)a_%s + i_ * MPIVET_F_STATUS_SIZE, &%s[i_]);\n",
			filled, statuses.Name, statuses.Name)
	}
}

// post runs the hooks after the call, records an error, a new
// communicator and the exit record, and frees what the body allocated.
func (f *fortranGen) post() {
	w, c, hooked := f.w, f.c, f.hooked
	if hooked {
		if c.Has("init") { // where the protocol starts
			w("\tmpivet_ck_post(MPIVET_ID_%s, e_, k_, rc_);\n", c.Name)
			w("\tmpivet_dt_post(MPIVET_ID_%s, e_, k_, rc_);\n", c.Name)
		} else {
			w("\tif (__builtin_expect(%s, 0)) {\n\t\tmpivet_ck_post(MPIVET_ID_%s, e_, k_, rc_);\n\t\tif (__builtin_expect(mpivet_dt_on, 0))\n\t\t\tmpivet_dt_post(MPIVET_ID_%s, e_, k_, rc_);\n", hookOn(c, "mpivet_ck_on"), c.Name, c.Name)
			f.writeBack("\t\t")
			w("\t}\n")
		}
	}
	for _, h := range rmaHook(c, false) {
		w("\tif (rc_ == MPI_SUCCESS)\n\t\t%s;\n", f.viewed(h, `\b`))
	}
	w("\tif (__builtin_expect(rc_ != MPI_SUCCESS, 0))\n\t\tmpivet_error(MPIVET_ID_%s, rc_, pc_);\n", c.Name)
	fileHooks(w, filePost(c, true))
	for _, p := range newComms(c) {
		w("\tif (rc_ == MPI_SUCCESS)\n\t\tmpivet_record_comm(*%s);\n", p.Name)
	}
	w("\tmpivet_out_%s(%s);\n", c.Name, strings.Join(append(append([]string{"e_", "rc_"}, recordOut(c)...), fastArg(c, "0")...), ", "))
	for _, s := range f.cleanup {
		w("%s", s)
	}
	if f.large {
		w("%s", largeEnd(c))
	}
	w("\tmpivet_guard--;\n}\n\n")
}

// entries writes the F77 wrapper (four spellings) and the f08 wrapper,
// which call the body.
func (f *fortranGen) entries() {
	w, c, lower, formals, args := f.w, f.c, f.lower, f.formals, f.args
	entry := func(name, sym string, f08 bool) {
		w("void %s(%s)\n{\n", name, strings.Join(formals, ", "))
		w("\tstatic mpivet_ft_%s real_;\n\tif (!real_)\n\t\treal_ = (mpivet_ft_%s)mpivet_next(%s);\n", c.Name, c.Name, sym)
		w("\tif (!mpivet_should_record()) {\n\t\treal_(%s);\n\t\treturn;\n\t}\n", strings.Join(args, ", "))
		binding := 0
		if f08 {
			binding = 1
		}
		w("\t%s(%s);\n}\n", f.body, strings.Join(append([]string{"real_", fmt.Sprint(binding), "MPIVET_PC()"}, args...), ", "))
	}
	// The F77 symbols of the call and of its other Fortran names, each
	// calling the MPI's binding of the same name; a twin has only f08 ones.
	var f77 []string
	if !f.large {
		f77 = append([]string{c.Name}, c.FortranNames...)
	}
	for _, name := range f77 {
		l := strings.ToLower(name)
		entry(l+"_", fmt.Sprintf("%q", l+"_"), false)
		for _, alias := range []string{l + "__", l, strings.ToUpper(name)} {
			w("void %s(%s) __attribute__((alias(\"%s_\")));\n", alias, strings.Join(formals, ", "), l)
		}
		w("\n")
	}
	switch {
	case f.large && f.hasBuf:
		entry("MPIVET_F08_LARGE("+lower+")", f.f08Sym(lower), true)
	case f.large:
		entry(lower+"_f08_large_", f.f08Sym(lower), true)
	case f.hasBuf:
		entry("MPIVET_F08_BUF("+lower+")", f.f08Sym(lower), true)
	default:
		entry(lower+"_f08_", f.f08Sym(lower), true)
	}
	w("\n")
}

// f08Name is the C expression naming the mpi_f08 symbol of a call (lower
// case name), whose binding takes choice buffers if buf.
func f08Name(lower string, buf bool) string {
	if buf {
		return "MPIVET_F08_BUFNAME(" + lower + ")"
	}
	return fmt.Sprintf("%q", lower+"_f08_")
}
