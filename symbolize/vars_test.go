package symbolize

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"mpivet/trace"
)

const varsSource = `
struct pair { int a; double b; };
union word { int i; float f; };
int gints[8];
struct pair gpair[2];
union word gword;
double gmat[3][4];
int work(int n)
{
	double local[5];
	long l2[2];
	local[0] = n;
	l2[0] = n;
	return (int)local[0] + (int)l2[0];
}
int main(void) { return work(1); }
`

// buildVars compiles varsSource with debug information (a position-
// independent executable) and maps it as the loader would, at base.
func buildVars(t *testing.T) (string, []trace.Mapping, map[string]uint64) {
	t.Helper()
	if _, err := exec.LookPath("cc"); err != nil {
		t.Skip("no C compiler")
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "v.c"), filepath.Join(dir, "v")
	if err := os.WriteFile(src, []byte(varsSource), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cc", "-g", "-O0", "-fPIE", "-pie", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, _ := f.Symbols()
	addrs := map[string]uint64{}
	for _, y := range syms {
		addrs[y.Name] = y.Value
	}
	st, _ := os.Stat(bin)
	const base = 0x555500000000
	return bin, []trace.Mapping{{Start: base, End: base + uint64(st.Size()), Offset: 0, Path: bin}}, addrs
}

// A global's address in the process (PIE: moved by the load base) gives
// the variable, and the basic type at each offset: elements, members,
// padding; a union is not known.
func TestGlobalVariables(t *testing.T) {
	_, maps, addrs := buildVars(t)
	const base = 0x555500000000
	s := New()
	cases := []struct {
		sym  string
		off  int64
		kind LeafKind
		size int64
		path string
	}{
		{"gints", 12, LeafSigned, 4, "[3]"},
		{"gpair", 16 + 8, LeafFloat, 8, "[1].b"},
		{"gpair", 4, LeafPadding, 0, ""},
		{"gword", 0, LeafUnknown, 0, ""},
		{"gmat", 8 * 6, LeafFloat, 8, "[1][2]"},
	}
	for _, c := range cases {
		v, ok := s.Global(maps, base+addrs[c.sym]+uint64(c.off))
		if !ok || v.Name != c.sym || v.Offset != c.off || v.Local {
			t.Fatalf("%s+%d: got %+v %v", c.sym, c.off, v, ok)
		}
		l := v.At(v.Offset)
		if l.Kind != c.kind || l.Kind != LeafPadding && l.Kind != LeafUnknown && (l.Size != c.size || l.Path != c.path) {
			t.Errorf("%s+%d: leaf %+v, want kind %d size %d path %q", c.sym, c.off, l, c.kind, c.size, c.path)
		}
	}
	if v, _ := s.Global(maps, base+addrs["gmat"]); v.TypeName() != "double[3][4]" || v.Size() != 96 {
		t.Errorf("gmat: %s of %d bytes", v.TypeName(), v.Size())
	}
	if l, ok := (Variable{}).Homogeneous(); ok {
		t.Errorf("no variable is homogeneous: %+v", l)
	}
	if _, ok := s.Global(maps, base+addrs["main"]); ok {
		t.Error("a function's address is a global variable")
	}
}

// A local variable is found from the calling function's frame address
// (CFA): each byte of the frame below it belongs to at most one variable,
// of the function whose code the call site is in.
func TestLocalVariables(t *testing.T) {
	_, maps, addrs := buildVars(t)
	const base, cfa = 0x555500000000, 0x7ffc00010000
	s := New()
	pc := base + addrs["work"] + 8
	seen := map[string]int64{}
	for a := uint64(cfa - 256); a < cfa; a++ {
		v, ok := s.Local(maps, pc, cfa, a)
		if !ok {
			continue
		}
		if !v.Local || v.Offset < 0 || v.Offset >= v.Size() {
			t.Fatalf("%#x: %+v", a, v)
		}
		seen[v.Name] = v.Size()
	}
	if seen["local"] != 40 || seen["l2"] != 16 || seen["n"] != 4 {
		t.Errorf("locals found: %v", seen)
	}
	if l, ok := func() (Leaf, bool) {
		for a := uint64(cfa - 256); a < cfa; a++ {
			if v, ok := s.Local(maps, pc, cfa, a); ok && v.Name == "local" {
				return v.Homogeneous()
			}
		}
		return Leaf{}, false
	}(); !ok || l.Kind != LeafFloat || l.Size != 8 {
		t.Errorf("local's leaves: %+v %v", l, ok)
	}
	if _, ok := s.Local(maps, base+addrs["main"]+4, cfa, cfa-8); ok {
		t.Error("main has no local variable")
	}
	if _, ok := s.Local(maps, pc, 0, cfa-8); ok {
		t.Error("a local found without the frame's address")
	}
}

// Fortran's arrays start at 1: real(8) :: a(10) is 80 bytes, not 88, and
// b(2:4, 0:1) holds 6 elements; their elements are named as Fortran
// writes them, the first subscript fastest.
func TestFortranArrayBounds(t *testing.T) {
	if _, err := exec.LookPath("gfortran"); err != nil {
		t.Skip("no gfortran")
	}
	dir := t.TempDir()
	src, bin := filepath.Join(dir, "v.f90"), filepath.Join(dir, "v")
	code := "module m\n  real(8) :: a(10)\n  integer :: b(2:4, 0:1)\nend module m\nprogram p\n  use m\n  a = 1\n  b = 2\n  print *, a(1), b(2, 0)\nend program p\n"
	if err := os.WriteFile(src, []byte(code), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gfortran", "-g", "-O0", "-J", dir, "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gfortran: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	syms, _ := f.Symbols()
	f.Close()
	st, _ := os.Stat(bin)
	const base = 0x555500000000
	maps := []trace.Mapping{{Start: base, End: base + uint64(st.Size()), Offset: 0, Path: bin}}
	sizes := map[string]int64{}
	for _, y := range syms {
		if v, ok := New().Global(maps, base+y.Value); ok && elf.ST_TYPE(y.Info) == elf.STT_OBJECT {
			sizes[v.Name] = v.Size()
			if l := v.At(8); v.Name == "a" && (l.Kind != LeafFloat || l.Size != 8 || l.Path != "(2)") {
				t.Errorf("a(2): %+v", l)
			}
			if l := v.At(4 * 4); v.Name == "b" && (l.Kind != LeafSigned || l.Size != 4 || l.Path != "(3,1)") {
				t.Errorf("b(3,1): %+v", l)
			}
			if n := v.TypeName(); v.Name == "b" && n != "integer(kind=4), dimension(2:4,0:1)" {
				t.Errorf("b declared %s", n)
			}
		}
	}
	if sizes["a"] != 80 || sizes["b"] != 24 {
		t.Errorf("sizes %v, want a 80 and b 24 bytes", sizes)
	}
}
