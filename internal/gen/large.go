package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"mpivet/api"
)

// The MPI 4.0 large-count twins (MPI_Send_c, MPI_Put_c, MPI_Type_vector_c
// ...) have the parameters of their call, some of them wider: MPI_Count
// counts, MPI_Aint displacement units. The twin's wrapper is the call's
// wrapper with the twin's parameters: it records the same call ID (the
// records keep every integer as a 64-bit word, so the wide counts are
// recorded as they are), and the layer's hooks see the wide parameters
// through views of the call's own types (a count beyond INT_MAX seen as
// INT_MAX). While every wide argument fits the call's type, the twin calls
// what the call's wrapper calls (the call itself, the layer's waiting,
// buffering or synchronous forms), which moves the same data; otherwise it
// calls the MPI's twin. Only an MPI whose mpi.h is MPI 4.0 or later
// declares the twins: they are compiled under MPI_VERSION >= 4.
//
// An array whose length a parameter gives (MPI_Type_indexed_c's
// blocklengths, of count elements) is seen through a copy in the call's
// type, made while the arguments fit so far, and the twin calls the call
// (its datatype is then one the layer can look into: MPICH's
// MPI_Type_get_contents cannot give a large-count one's).
//
// A twin whose counts or displacements are arrays of a collective's size
// (MPI_Gatherv_c: MPI_Count counts, MPI_Aint displacements where MPI_Gatherv
// has int), or whose pointers are wider (MPI_Buffer_detach_c's size,
// MPI_Op_create_c's function), always calls the MPI's twin: its arrays are
// not copied. The records keep their addresses, as the call's; the layer's
// readers of a collective's arrays (collectives/decode.h) read them as wide
// while the wrapper sets mpivet_large_arrays.

// largePrelude defines the saturating view of a count as an int, and the
// copies of arrays of counts as int and MPI_Aint: NULL and *fits 0 when
// *fits is 0 already or an element does not fit (freed by the caller).
const largePrelude = `#if MPI_VERSION >= 4
static inline int mpivet_count_int(MPI_Count c)
{
	return c > INT_MAX ? INT_MAX : c < INT_MIN ? INT_MIN : (int)c;
}

static int *mpivet_count_ints(const MPI_Count *a, MPI_Count n, int *fits)
{
	int *v = *fits && a && n >= 0 && n <= INT_MAX ? malloc((size_t)(n + 1) * sizeof *v) : NULL;
	for (MPI_Count i = 0; v && i < n; i++) {
		v[i] = (int)a[i];
		if ((MPI_Count)v[i] != a[i])
			free(v), v = NULL;
	}
	*fits = v != NULL;
	return v;
}

static MPI_Aint *mpivet_count_aints(const MPI_Count *a, MPI_Count n, int *fits)
{
	MPI_Aint *v = *fits && a && n >= 0 && n <= INT_MAX ? malloc((size_t)(n + 1) * sizeof *v) : NULL;
	for (MPI_Count i = 0; v && i < n; i++) {
		v[i] = (MPI_Aint)a[i];
		if ((MPI_Count)v[i] != a[i])
			free(v), v = NULL;
	}
	*fits = v != NULL;
	return v;
}
#endif

`

// genLarge writes the C wrapper of c's large-count twin, if c has one.
func genLarge(w writer, c *api.Call) {
	name := c.LargeName()
	if name == "" {
		return
	}
	var b bytes.Buffer
	genC(func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }, c)
	src := b.String()
	src = strings.Replace(src, "int "+c.Name+"("+cParams(c)+")", "int "+name+"("+largeParams(c)+")", 1)
	src = strings.Replace(src, "return P"+c.Name+"(", "return P"+name+"(", 1)
	src = strings.Replace(src, "\tmpivet_guard++;\n", "\tmpivet_guard++;\n"+largeViews(c), 1)
	direct := largeDirect(c)
	if end := largeEnd(c); end != "" {
		src = strings.Replace(src, "\tmpivet_guard--;\n\treturn rc_;\n", end+"\tmpivet_guard--;\n\treturn rc_;\n", 1)
	}
	var lines []string
	for _, l := range strings.SplitAfter(src, "\n") {
		switch {
		case strings.Contains(l, "mpivet_rma_"): // the rma service takes the call's types
			l = viewed(c, l, `\b`)
		case strings.HasPrefix(l, "\tvoid *k_[] = "):
			l = viewed(c, l, `\(void \*\)&`)
		case strings.HasPrefix(l, "\tint rc_ = ") && direct:
			l = fmt.Sprintf("\tint rc_ = P%s(%s);\n", name, strings.Join(largeCallArgs(c), ", "))
		case strings.HasPrefix(l, "\tint rc_ = "):
			expr := strings.TrimSuffix(strings.TrimPrefix(l, "\tint rc_ = "), ";\n")
			l = fmt.Sprintf("\tint rc_ = fits_ ? (%s) : P%s(%s);\n", viewed(c, expr, `\b`), name, strings.Join(largeCallArgs(c), ", "))
		}
		lines = append(lines, l)
	}
	w("#if MPI_VERSION >= 4\n%s#endif\n\n", strings.TrimSuffix(strings.Join(lines, ""), "\n"))
}

// genFortranLarge writes the mpi_f08 wrapper of c's large-count twin, if c
// has one (mpi_send_f08ts_large_, mpi_type_vector_f08_large_,
// mpi_gatherv_f08ts_large_ ...: `use mpi_f08` calls it for
// INTEGER(KIND=MPI_COUNT_KIND) counts, arrays of them by reference; mpif.h
// and `use mpi` have no large-count bindings). It is the call's Fortran
// wrapper with the twin's wide views and fits_, as the C twin's
// (fortran.go): a constructor's arrays copied while they fit, a
// collective's read as wide by the hooks and given to the MPI's binding.
func genFortranLarge(w writer, c *api.Call) {
	if c.LargeName() == "" || !c.FortranLarge() {
		return
	}
	w("#if MPI_VERSION >= 4\n")
	newFortranGen(w, c, true).gen()
	w("#endif\n\n")
}

// largeArrays reports whether c's twin widens arrays of no given length
// (a collective's), read as wide while mpivet_large_arrays is set.
func largeArrays(c *api.Call) bool {
	for _, l := range c.Large {
		if c.Params[c.Param(l.Name)].Array && l.Len == "" {
			return true
		}
	}
	return false
}

// largeDirect reports whether c's twin always calls the MPI's twin: it
// widens arrays of no given length or pointers.
func largeDirect(c *api.Call) bool {
	for _, l := range c.Large {
		if p := c.Params[c.Param(l.Name)]; (p.Array && l.Len == "") || p.Ptrs > 0 {
			return true
		}
	}
	return false
}

// largeEnd is what the twin's wrapper does before it returns: frees the
// copies of arrays, clears mpivet_large_arrays.
func largeEnd(c *api.Call) string {
	var s strings.Builder
	for _, l := range c.Large {
		if l.Len != "" {
			fmt.Fprintf(&s, "\tfree(%s_v_);\n", l.Name)
		}
	}
	if largeArrays(c) {
		s.WriteString("\tmpivet_large_arrays = 0;\n")
	}
	return s.String()
}

// largeParams is the twin's C parameter list.
func largeParams(c *api.Call) string {
	var ps []string
	for _, p := range c.Params {
		switch t := c.LargeType(p); {
		case t != "" && (p.Array || p.Ptrs > 0):
			ps = append(ps, strings.Replace(p.Decl, p.Base, t, 1))
		case t != "":
			ps = append(ps, t+" "+p.Name)
		default:
			ps = append(ps, p.Decl)
		}
	}
	return strings.Join(ps, ", ")
}

// largeViews declares, for each wide scalar parameter, its view NAME_v_ in
// the call's type, and fits_: whether every wide argument fits its view;
// for a twin with wide arrays, it sets mpivet_large_arrays instead.
func largeViews(c *api.Call) string {
	var s strings.Builder
	var fits []string
	for _, l := range c.Large {
		p := c.Params[c.Param(l.Name)]
		switch {
		case p.Array || p.Ptrs > 0:
			continue
		case p.Base == "int":
			fmt.Fprintf(&s, "\tint %s_v_ = mpivet_count_int(%s);\n", p.Name, p.Name)
		default:
			fmt.Fprintf(&s, "\t%s %s_v_ = (%s)%s;\n", p.Base, p.Name, p.Base, p.Name)
		}
		fits = append(fits, fmt.Sprintf("(MPI_Count)%s_v_ == (MPI_Count)%s", p.Name, p.Name))
	}
	if largeArrays(c) {
		s.WriteString("\tmpivet_large_arrays = 1; /* the hooks read the wide arrays */\n")
	}
	if largeDirect(c) {
		return s.String()
	}
	if len(fits) == 0 {
		fits = []string{"1"}
	}
	fmt.Fprintf(&s, "\tint fits_ = %s;\n", strings.Join(fits, " && "))
	for _, l := range c.Large {
		p := c.Params[c.Param(l.Name)]
		if l.Len == "" {
			continue
		}
		conv := map[string]string{"int": "mpivet_count_ints", "MPI_Aint": "mpivet_count_aints"}[p.Base]
		if conv == "" {
			panic(c.Name + ": no copy of an array of " + p.Base)
		}
		fmt.Fprintf(&s, "\t%s *%s_v_ = %s(%s, %s, &fits_);\n", p.Base, p.Name, conv, p.Name, l.Len)
	}
	return s.String()
}

// viewed replaces, in s, each wide parameter's name that follows the
// pattern before by the name of its view (scalars, arrays copied).
func viewed(c *api.Call, s, before string) string {
	for _, l := range c.Large {
		if p := c.Params[c.Param(l.Name)]; (p.Array && l.Len == "") || p.Ptrs > 0 {
			continue
		}
		re := regexp.MustCompile("(" + before + ")" + l.Name + `\b`)
		s = re.ReplaceAllString(s, "${1}"+l.Name+"_v_")
	}
	return s
}

// largeCallArgs are the arguments of the MPI's twin: the wrapper's own,
// the status through sp_.
func largeCallArgs(c *api.Call) []string {
	var args []string
	for _, p := range c.Params {
		if p.Role == api.Status {
			args = append(args, "sp_")
		} else {
			args = append(args, p.Name)
		}
	}
	return args
}
