package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"mpivet/api"
)

// TestGolden fails when the checked-in generated code is not what the
// generator makes from api/mpi.api: run `go generate ./layer`.
func TestGolden(t *testing.T) {
	for path, want := range Generate(api.MPI) {
		got, err := os.ReadFile(filepath.Join("..", "..", path))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is out of date: run go generate ./layer", path)
		}
	}
}

func TestEveryCallWrapped(t *testing.T) {
	src := string(Generate(api.MPI)["layer/src/generated/wrappers.c"])
	for _, c := range api.MPI.Calls {
		if !strings.Contains(src, "\nint "+c.Name+"(") {
			t.Errorf("no C wrapper for %s", c.Name)
		}
		if n := c.LargeName(); n != "" && !strings.Contains(src, "\n#if MPI_VERSION >= 4\nint "+n+"(") {
			t.Errorf("no C wrapper for %s under MPI_VERSION >= 4", n)
		}
		lower := strings.ToLower(c.Name)
		if !c.Has("nofortran") && !strings.Contains(src, "\nvoid "+lower+"_(") {
			t.Errorf("no Fortran wrapper for %s", c.Name)
		}
	}
}

// TestSharedConstantsNotCopied keeps the constants C and Go share in one
// place: every one generated into format.h is used by the layer under its
// generated name, none is defined again by hand, and layer.conf keys are
// looked up by their MPIVET_CONF_* names, not spelled out.
func TestSharedConstantsNotCopied(t *testing.T) {
	defined := regexp.MustCompile(`(?m)^#define (MPIVET_\w+) `)
	var names []string
	for _, m := range defined.FindAllStringSubmatch(string(genFormat()), -1) {
		names = append(names, m[1])
	}
	if len(names) == 0 {
		t.Fatal("format.h defines nothing")
	}
	literalKey := regexp.MustCompile(`mpivet_conf(?:_is)?\(\s*"`)
	src := map[string]string{}
	root := filepath.Join("..", "..", "layer", "src")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(p, ".c") || strings.HasSuffix(p, ".h")) {
			return err
		}
		b, err := os.ReadFile(p)
		src[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		used := false
		for p, s := range src {
			if strings.HasSuffix(p, "format.h") {
				continue
			}
			used = used || regexp.MustCompile(`\b`+n+`\b`).MatchString(s)
			if regexp.MustCompile(`(?m)^\s*#define\s+` + n + `\b`).MatchString(s) {
				t.Errorf("%s defines %s, which generated/format.h defines", p, n)
			}
		}
		if !used {
			t.Errorf("%s is generated but the layer does not use it (a copy of its own?)", n)
		}
	}
	for p, s := range src {
		if loc := literalKey.FindStringIndex(s); loc != nil {
			t.Errorf("%s looks a layer.conf key up by a literal (use MPIVET_CONF_*): %s", p, s[loc[0]:loc[1]+10])
		}
	}
}

// TestLargeTwins: a large-count twin records its wide arguments as they
// are, shows the hooks views in the call's types, and calls the MPI's twin
// when an argument does not fit.
func TestLargeTwins(t *testing.T) {
	src := string(Generate(api.MPI)["layer/src/generated/wrappers.c"])
	n := 0
	for _, c := range api.MPI.Calls {
		name := c.LargeName()
		if name == "" {
			continue
		}
		n++
		i := strings.Index(src, "\n#if MPI_VERSION >= 4\nint "+name+"(")
		if i < 0 {
			t.Errorf("no wrapper of %s", name)
			continue
		}
		body := src[i : i+strings.Index(src[i:], "\n#endif\n")]
		for _, l := range c.Large {
			p := c.Params[c.Param(l.Name)]
			wants := []string{l.Type + " " + l.Name, "MPIVET_I(" + l.Name + ")", l.Name + "_v_ = ", "P" + name + "("}
			viewed := true
			switch {
			case p.Array && l.Len != "": // copied while it fits, freed
				wants = []string{l.Type + " " + l.Name + "[]", "MPIVET_A(" + l.Name + ")", " *" + l.Name + "_v_ = mpivet_count_", "free(" + l.Name + "_v_);",
					"fits_ ? (P" + c.Name + "(", ") : P" + name + "("}
			case p.Array: // the MPI's twin, with the arrays as they are, read as wide
				wants = []string{l.Type + " " + l.Name + "[]", "MPIVET_A(" + l.Name + ")", "mpivet_large_arrays = 1;", "mpivet_large_arrays = 0;",
					"int rc_ = P" + name + "("}
				viewed = false
			case p.Ptrs > 0: // the MPI's twin
				wants = []string{l.Type + " *" + l.Name, "int rc_ = P" + name + "("}
				viewed = false
			}
			for _, want := range wants {
				if !strings.Contains(body, want) {
					t.Errorf("%s: no %q", name, want)
				}
			}
			if viewed && (strings.Contains(body, "(void *)&"+l.Name+",") || strings.Contains(body, "(void *)&"+l.Name+"}")) {
				t.Errorf("%s: the hooks see the wide %s", name, p.Name)
			}
		}
	}
	if n < 50 {
		t.Errorf("%d large-count twins: mpi.api's large lines are not read", n)
	}
}

// TestFortranLargeTwins: the mpi_f08 wrapper of a large-count twin reads
// its wide arguments as such, records them as they are, shows the hooks
// views in the call's types, gives the call's own binding Fortran views of
// them while they fit and the MPI's large-count binding otherwise, and has
// no F77 symbols (mpif.h and `use mpi` have no large-count bindings). A
// twin whose arrays have no given length (a collective's) gives the MPI's
// large-count binding the program's arrays, which the hooks read as wide
// while mpivet_large_arrays is set.
func TestFortranLargeTwins(t *testing.T) {
	src := string(Generate(api.MPI)["layer/src/generated/wrappers.c"])
	n := 0
	for _, c := range api.MPI.Calls {
		name := c.LargeName()
		if name == "" || c.Has("nofortran") {
			continue
		}
		i := strings.Index(src, "\nstatic void mpivet_f_"+name+"(")
		if !c.FortranLarge() { // C only (api/unwrapped.api: gap-fortran-large)
			if i >= 0 {
				t.Errorf("%s: a Fortran wrapper of a twin that widens pointers", name)
			}
			continue
		}
		if i < 0 {
			t.Errorf("no Fortran wrapper of %s", name)
			continue
		}
		body := src[i : i+strings.Index(src[i:], "\n#endif\n")]
		lower := strings.ToLower(c.Name)
		if !strings.Contains(body, "\nvoid MPIVET_F08_LARGE("+lower+")(") && !strings.Contains(body, "\nvoid "+lower+"_f08_large_(") {
			t.Errorf("%s: no mpi_f08 large-count entry", name)
		}
		if strings.Contains(body, "\nvoid "+lower+"_(") {
			t.Errorf("%s: an F77 entry", name)
		}
		if largeArrays(c) {
			n++
		}
		for _, e := range fortranLargeErrors(c, body) {
			t.Errorf("%s: %s", name, e)
		}
	}
	if n == 0 {
		t.Error("no Fortran twin with a collective's wide arrays")
	}
}

// fortranLargeErrors lists what the Fortran wrapper (body) of c's twin
// lacks.
func fortranLargeErrors(c *api.Call, body string) []string {
	var errs []string
	direct := largeArrays(c)
	if direct != strings.Contains(body, "mpivet_large_arrays = 1;") || direct != strings.Contains(body, "mpivet_large_arrays = 0;") {
		errs = append(errs, fmt.Sprintf("mpivet_large_arrays set and cleared: %v", !direct))
	}
	if direct == strings.Contains(body, "if (!fits_)\n\t\treal_(") {
		errs = append(errs, fmt.Sprintf("calls the MPI's large-count binding only when the arguments do not fit: %v", direct))
	}
	for _, l := range c.Large {
		p := c.Params[c.Param(l.Name)]
		var wants []string
		var hooks string
		switch {
		case !p.Array:
			wants = []string{l.Type + " " + l.Name + " = *(" + l.Type + " *)f_" + l.Name, "MPIVET_I(" + l.Name + ")", l.Name + "_v_ = ", "&" + l.Name + "_v_"}
			hooks = "(void *)&" + l.Name
		case l.Len != "": // copied in the call's type while it fits
			wants = []string{"void *" + l.Name + " = f_" + l.Name, "MPIVET_A(" + l.Name + ")", "*" + l.Name + "_v_ = mpivet_count_", ", " + l.Name + "_v_", "free(" + l.Name + "_v_)"}
			hooks = "(void *)&" + l.Name
		default: // read as wide
			wants = []string{"void *" + l.Name + " = f_" + l.Name, "MPIVET_A(" + l.Name + ")", "(void *)&" + l.Name}
			hooks = "(void *)&" + l.Name + "_v_"
		}
		for _, want := range wants {
			if !strings.Contains(body, want) {
				errs = append(errs, fmt.Sprintf("no %q", want))
			}
		}
		if strings.Contains(body, hooks+",") || strings.Contains(body, hooks+"}") {
			errs = append(errs, "the hooks see "+hooks)
		}
	}
	return errs
}

// TestFortranNames: the other names of a call's Fortran bindings have F77
// symbols of their own, calling the MPI's binding of that name.
func TestFortranNames(t *testing.T) {
	src := string(Generate(api.MPI)["layer/src/generated/wrappers.c"])
	n := 0
	for _, c := range api.MPI.Calls {
		for _, f := range c.FortranNames {
			n++
			l := strings.ToLower(f)
			for _, want := range []string{"\nvoid " + l + "_(", "mpivet_next(\"" + l + "_\")", "\nvoid " + strings.ToUpper(f) + "("} {
				if !strings.Contains(src, want) {
					t.Errorf("%s: no %q", f, want)
				}
			}
		}
	}
	if n == 0 {
		t.Error("no fortran-name line read")
	}
}
