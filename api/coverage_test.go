package api

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// unwrapped is api/unwrapped.api: the functions the layer does not wrap,
// with their reasons.
type unwrapped struct {
	reason   map[string]string // lower-case name (or prefix, with *) -> heading key
	fortran  map[string]string // names listed for their Fortran bindings only
	prefixes []string
}

func readUnwrapped(t *testing.T) *unwrapped {
	t.Helper()
	f, err := os.Open("unwrapped.api")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	u := &unwrapped{reason: map[string]string{}, fortran: map[string]string{}}
	key := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "=="):
			k, reason, ok := strings.Cut(strings.TrimSpace(line[2:]), ":")
			if !ok || strings.TrimSpace(reason) == "" {
				t.Fatalf("unwrapped.api:%d: a heading is '== KEY: reason'", n)
			}
			key = strings.TrimSpace(k)
			continue
		}
		if key == "" {
			t.Fatalf("unwrapped.api:%d: names before any heading (no reason)", n)
		}
		for _, name := range strings.Fields(line) {
			m := u.reason
			if rest, ok := strings.CutPrefix(name, "fortran:"); ok {
				name, m = rest, u.fortran
			}
			if !strings.HasPrefix(name, "MPI_") {
				t.Fatalf("unwrapped.api:%d: %q is not an MPI function name", n, name)
			}
			l := strings.ToLower(name)
			if m[l] != "" {
				t.Fatalf("unwrapped.api:%d: %s listed twice", n, name)
			}
			m[l] = key
			if p, ok := strings.CutSuffix(l, "*"); ok {
				u.prefixes = append(u.prefixes, p)
			}
		}
	}
	return u
}

// why returns the reason (heading key) name is listed under, "" if none.
func (u *unwrapped) why(name string, fortran bool) string {
	if k := u.reason[name]; k != "" {
		return k
	}
	if k := u.fortran[name]; fortran && k != "" {
		return k
	}
	for _, p := range u.prefixes {
		if strings.HasPrefix(name, p) {
			return u.reason[p+"*"]
		}
	}
	return ""
}

var sizeofSpecific = regexp.MustCompile(`^(mpi_sizeof)_[a-z]+[0-9]*_(r[0-9]+|scalar)$`)

// function returns the MPI function an exported symbol is a binding of, in
// lower case (large-count forms end in _c), and whether it is a Fortran
// binding; ok is false for symbols that are no MPI function (PMPI_*,
// MPIX_*, the MPI's internals).
func function(sym string) (name string, fortran, ok bool) {
	l := strings.ToLower(sym)
	if !strings.HasPrefix(l, "mpi_") || len(sym) < 5 {
		return "", false, false
	}
	// C bindings: MPI_ and a capital, then a lower-case letter somewhere
	// (MPI_Send, MPI_T_cvar_read); Fortran: mpi_send_, MPI_SEND, mpi_send_f08_.
	// Open MPI also exports MPI_Send_f and MPI_Send_f08 (its Fortran
	// bindings' C functions).
	fortran = sym == l || sym == strings.ToUpper(sym)
	if !fortran {
		for _, suf := range []string{"_f08", "_f"} {
			if s, ok := strings.CutSuffix(l, suf); ok && !strings.HasSuffix(s, "_f2c") {
				return s, true, true
			}
		}
		return l, false, true
	}
	large := false
	for _, suf := range []string{"_f08ts_large_", "_f08_large_", "_f08ts_", "_f08_", "_f08", "__", "_", "_f"} {
		if s, ok := strings.CutSuffix(l, suf); ok {
			l, large = s, strings.HasSuffix(suf, "_large_")
			break
		}
	}
	if m := sizeofSpecific.FindStringSubmatch(l); m != nil {
		l = m[1]
	}
	if large {
		l += "_c"
	}
	return l, true, true
}

func TestFunctionNames(t *testing.T) {
	for sym, want := range map[string]string{
		"MPI_Send": "mpi_send", "MPI_Send_c": "mpi_send_c", "mpi_send_": "mpi_send", "mpi_send__": "mpi_send",
		"MPI_SEND": "mpi_send", "mpi_send": "mpi_send", "mpi_send_f08_": "mpi_send", "mpi_send_f08ts_": "mpi_send",
		"mpi_send_f08ts_large_": "mpi_send_c", "mpi_type_vector_f08_large_": "mpi_type_vector_c",
		"MPI_Send_f08": "mpi_send", "MPI_Send_f": "mpi_send", "MPI_Comm_f2c": "mpi_comm_f2c",
		"MPI_Status_f2f08": "mpi_status_f2f08", "mpi_status_f2f08_": "mpi_status_f2f08",
		"mpi_sizeof_real64_r3": "mpi_sizeof", "MPI_T_cvar_read": "mpi_t_cvar_read",
		"mpi_conversion_fn_null_f": "mpi_conversion_fn_null",
	} {
		if got, _, ok := function(sym); !ok || got != want {
			t.Errorf("function(%q) = %q, want %q", sym, got, want)
		}
	}
	for _, sym := range []string{"PMPI_Send", "pmpi_send_", "MPIX_Comm_revoke", "MPIR_Err_return_comm", "ompi_send_f"} {
		if _, _, ok := function(sym); ok {
			t.Errorf("%q taken for an MPI function", sym)
		}
	}
}

// mpiLibraries returns, for each MPI installed, the shared libraries its
// C and Fortran compiler wrappers link.
func mpiLibraries(t *testing.T) map[string][]string {
	wrappers := map[string][][]string{
		"Open MPI": {{"mpicc.openmpi", "--showme:link"}, {"mpifort.openmpi", "--showme:link"}},
		"MPICH":    {{"mpicc.mpich", "-show"}, {"mpif90.mpich", "-show"}},
	}
	libs := map[string][]string{}
	for mpi, cmds := range wrappers {
		seen := map[string]bool{}
		for _, cmd := range cmds {
			out, err := exec.Command(cmd[0], cmd[1:]...).Output()
			if err != nil {
				continue
			}
			var dirs, names []string
			for _, w := range strings.Fields(string(out)) {
				if d, ok := strings.CutPrefix(w, "-L"); ok {
					dirs = append(dirs, d)
				} else if n, ok := strings.CutPrefix(w, "-l"); ok && strings.HasPrefix(n, "mpi") {
					names = append(names, n)
				}
			}
			for _, n := range names {
				p := findLib(dirs, "lib"+n+".so")
				if r, err := filepath.EvalSymlinks(p); err == nil {
					p = r
				}
				if p != "" && !seen[p] {
					seen[p] = true
					libs[mpi] = append(libs[mpi], p)
				}
			}
		}
	}
	return libs
}

// findLib finds a shared library in dirs, or where the dynamic linker
// does (ldconfig -p).
func findLib(dirs []string, file string) string {
	for _, d := range dirs {
		if p := filepath.Join(d, file); fileExists(p) {
			return p
		}
	}
	out, _ := exec.Command("ldconfig", "-p").Output()
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == file {
			return f[len(f)-1]
		}
	}
	return ""
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// exported returns the functions a library exports (nm -D --defined-only:
// text, weak and indirect symbols), by the function they bind.
func exported(t *testing.T, lib string) map[string]bool {
	out, err := exec.Command("nm", "-D", "--defined-only", lib).Output()
	if err != nil {
		t.Fatalf("nm -D %s: %v", lib, err)
	}
	fns := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || !strings.Contains("TWi", f[1]) {
			continue
		}
		if name, fortran, ok := function(f[2]); ok {
			fns[name+map[bool]string{true: " fortran", false: ""}[fortran]] = true
		}
	}
	return fns
}

// TestExportedFunctionsCovered: every function the installed MPIs export,
// in C and in Fortran, is either wrapped (described in mpi.api; for Fortran,
// not tagged nofortran) or listed in unwrapped.api with its reason; and no
// function is both.
func TestExportedFunctionsCovered(t *testing.T) {
	u := readUnwrapped(t)
	wrapped, wrappedF := map[string]bool{}, map[string]bool{}
	for _, c := range MPI.Calls {
		l := strings.ToLower(c.Name)
		wrapped[l] = true
		wrappedF[l] = !c.Has("nofortran")
		if k := u.why(l, false); k != "" {
			t.Errorf("%s is described in mpi.api and listed in unwrapped.api (%s): remove it from the list", c.Name, k)
		}
		if k := u.fortran[l]; k != "" && wrappedF[l] {
			t.Errorf("%s is wrapped in Fortran too and listed under fortran: (%s)", c.Name, k)
		}
		for _, f := range c.FortranNames { // other names of its Fortran bindings
			n := strings.ToLower(f)
			wrappedF[n] = true
			if k := u.why(n, true); k != "" {
				t.Errorf("%s is described in mpi.api (fortran-name) and listed in unwrapped.api (%s): remove it from the list", f, k)
			}
		}
		if n := strings.ToLower(c.LargeName()); n != "" { // its large-count twin: C, and mpi_f08 (*_large_)
			wrapped[n] = true
			wrappedF[n] = wrappedF[l] && c.FortranLarge()
			if k := u.fortran[n]; k != "" && wrappedF[n] {
				t.Errorf("%s is wrapped in Fortran too and listed under fortran: (%s)", c.LargeName(), k)
			}
			if k := u.why(n, false); k != "" {
				t.Errorf("%s is described in mpi.api (large) and listed in unwrapped.api (%s): remove it from the list", c.LargeName(), k)
			}
		}
	}
	libs := mpiLibraries(t)
	if len(libs) == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("no MPI installed")
		}
		t.Skip("no MPI installed")
	}
	for mpi, ls := range libs {
		var missing []string
		gaps, total := 0, 0
		for _, lib := range ls {
			for fn := range exported(t, lib) {
				name, fortran := strings.CutSuffix(fn, " fortran")
				total++
				switch k := u.why(name, fortran); {
				case fortran && wrappedF[name], !fortran && wrapped[name]:
				case k == "":
					missing = append(missing, filepath.Base(lib)+": "+fn)
				case strings.HasPrefix(k, "gap"):
					gaps++
				}
			}
		}
		sort.Strings(missing)
		for _, m := range missing {
			t.Errorf("%s %s: neither wrapped (api/mpi.api) nor listed with a reason (api/unwrapped.api)", mpi, m)
		}
		t.Logf("%s (%s): %d functions exported (C and Fortran bindings counted apart), %d listed as gaps", mpi, strings.Join(ls, " "), total, gaps)
	}
}
