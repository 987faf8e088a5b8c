package symbolize

import (
	"debug/elf"
	"fmt"
	"os"
	"strings"
	"testing"

	"mpivet/trace"
)

// A stripped library (the system's libc: no .symtab, no DWARF) gives no
// line, but its module, the address in it as addr2line takes it, and the
// dynamic symbol there.
func TestStrippedLibrary(t *testing.T) {
	var path string
	for _, p := range []string{"/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6", "/usr/lib64/libc.so.6", "/lib64/libc.so.6"} {
		if _, err := os.Stat(p); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		t.Skip("no libc.so.6 found")
	}
	f, err := elf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	var fn elf.Symbol
	for _, y := range syms {
		if y.Name == "malloc" && elf.ST_TYPE(y.Info) == elf.STT_FUNC && y.Size > 0x10 {
			fn = y
		}
	}
	if fn.Name == "" {
		t.Skip("libc has no sized malloc in .dynsym")
	}
	// the library as the loader maps it: file offsets at a random base
	var fileOff uint64
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && fn.Value >= p.Vaddr && fn.Value < p.Vaddr+p.Filesz {
			fileOff = fn.Value - p.Vaddr + p.Off
		}
	}
	st, _ := os.Stat(path)
	base := uint64(0x7f1234560000)
	maps := []trace.Mapping{{Start: base, End: base + uint64(st.Size()), Offset: 0, Path: path}}

	l := New().LookupExact(maps, base+fileOff+0x10)
	if l.Module != path || l.Offset != fn.Value+0x10 {
		t.Fatalf("module %q offset %#x, want %q %#x", l.Module, l.Offset, path, fn.Value+0x10)
	}
	if !strings.HasSuffix(l.Symbol, "+0x10") || l.File != "" {
		t.Errorf("symbol %q file %q, want a symbol at malloc's address +0x10 and no file", l.Symbol, l.File)
	}
	want := fmt.Sprintf("libc.so.6+%#x in %s", fn.Value+0x10, l.Symbol)
	if got := l.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	// a return address points after the call: the call is one byte before
	if r := New().Lookup(maps, base+fileOff+0x11); r.Offset != fn.Value+0x10 {
		t.Errorf("return address: offset %#x, want %#x", r.Offset, fn.Value+0x10)
	}
	if u := New().Lookup(maps, base-0x1000); u.Module != "" || u.String() != "??" {
		t.Errorf("an address outside every mapping: %+v", u)
	}
}

// A Python site resolves to its script line, with the C frame below it
// (its return address in a module) as the machine address.
func TestPythonSite(t *testing.T) {
	path := "/lib/x86_64-linux-gnu/libc.so.6"
	if _, err := os.Stat(path); err != nil {
		t.Skip("no libc.so.6 here")
	}
	base, site := uint64(0x7f1234560000), uint64(0x7e0000003008)
	maps := []trace.Mapping{{Start: base, End: base + 0x100000, Path: path},
		{Start: site - 8, End: site + 8, Path: "race.py", Py: &trace.PySite{File: "race.py", Line: 14, Function: "worker", CPC: base + 0x30001}}}
	l := New().Lookup(maps, site)
	if l.File != "race.py" || l.Line != 14 || l.Function != "worker" || l.Path != "" {
		t.Errorf("location %+v, want race.py:14 in worker", l)
	}
	if l.Module != path || l.Offset == 0 {
		t.Errorf("location %+v: want the C frame's module and offset", l)
	}
	if got := l.String(); got != "race.py:14 in worker" {
		t.Errorf("String() = %q", got)
	}
	abs := maps[1]
	abs.Py = &trace.PySite{File: "/home/u/race.py", Line: 3, Function: "<module>"}
	if l := New().Lookup([]trace.Mapping{abs}, site); l.Path != "/home/u/race.py" || l.Module != "" {
		t.Errorf("absolute script without C frame: %+v", l)
	}
}
