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
// A twin whose counts or displacements are arrays (MPI_Gatherv_c: MPI_Count
// counts, MPI_Aint displacements where MPI_Gatherv has int) always calls
// the MPI's twin: its arrays are not copied. The records keep their
// addresses, as the call's; the layer's readers of them (collectives/
// decode.h) read them as wide while the wrapper sets mpivet_large_arrays.

// largePrelude defines the saturating view of a count as an int.
const largePrelude = `#if MPI_VERSION >= 4
static inline int mpivet_count_int(MPI_Count c)
{
	return c > INT_MAX ? INT_MAX : c < INT_MIN ? INT_MIN : (int)c;
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
	arrays := largeArrays(c)
	if arrays {
		src = strings.Replace(src, "\tmpivet_guard--;\n\treturn rc_;\n", "\tmpivet_large_arrays = 0;\n\tmpivet_guard--;\n\treturn rc_;\n", 1)
	}
	var lines []string
	for _, l := range strings.SplitAfter(src, "\n") {
		switch {
		case strings.Contains(l, "mpivet_rma_"): // the rma service takes the call's types
			l = viewed(c, l, `\b`)
		case strings.HasPrefix(l, "\tvoid *k_[] = "):
			l = viewed(c, l, `\(void \*\)&`)
		case strings.HasPrefix(l, "\tint rc_ = ") && arrays:
			l = fmt.Sprintf("\tint rc_ = P%s(%s);\n", name, strings.Join(largeCallArgs(c), ", "))
		case strings.HasPrefix(l, "\tint rc_ = "):
			expr := strings.TrimSuffix(strings.TrimPrefix(l, "\tint rc_ = "), ";\n")
			l = fmt.Sprintf("\tint rc_ = fits_ ? (%s) : P%s(%s);\n", viewed(c, expr, `\b`), name, strings.Join(largeCallArgs(c), ", "))
		}
		lines = append(lines, l)
	}
	w("#if MPI_VERSION >= 4\n%s#endif\n\n", strings.TrimSuffix(strings.Join(lines, ""), "\n"))
}

// largeArrays reports whether c's twin widens arrays.
func largeArrays(c *api.Call) bool {
	for _, l := range c.Large {
		if c.Params[c.Param(l.Name)].Array {
			return true
		}
	}
	return false
}

// largeParams is the twin's C parameter list.
func largeParams(c *api.Call) string {
	var ps []string
	for _, p := range c.Params {
		switch t := c.LargeType(p); {
		case t != "" && p.Array:
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
		case p.Array:
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
	} else {
		fmt.Fprintf(&s, "\tint fits_ = %s;\n", strings.Join(fits, " && "))
	}
	return s.String()
}

// viewed replaces, in s, each wide scalar parameter's name that follows
// the pattern before by the name of its view.
func viewed(c *api.Call, s, before string) string {
	for _, l := range c.Large {
		if c.Params[c.Param(l.Name)].Array {
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
