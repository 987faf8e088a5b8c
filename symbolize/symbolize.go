// Package symbolize turns the call-site addresses the layer records into
// file:line:function, from the DWARF line tables and symbol tables of the
// program and its libraries. This is done here, after the run, so that a rank
// never spends time on it.
package symbolize

import (
	"debug/dwarf"
	"debug/elf"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/ianlancetaylor/demangle"

	"mpivet/trace"
)

// Location is a source position, and the machine address it comes from.
type Location struct {
	File     string // as given to the compiler (relative to its directory), else the full path
	Path     string // full path, when known
	Line     int
	Function string
	Module   string // the executable or library
	// Offset is the address in Module as its ELF headers and symbols give
	// it, what addr2line -e Module and objdump take: the same in every
	// process, wherever the module is loaded. 0 when Module is unknown.
	Offset uint64
	// Symbol is the ELF symbol (from .symtab, or .dynsym when the module is
	// stripped) that holds Offset, as name+0xdelta; empty when none does.
	Symbol string
}

// String formats the location as file:line in function, or, without debug
// information, as module+0xoffset in symbol.
func (l Location) String() string {
	if l.File == "" && l.Module != "" {
		s := l.Addr()
		if l.Symbol != "" {
			s += " in " + l.Symbol
		}
		return s
	}
	s := l.File
	if s == "" {
		s = "??"
	} else if l.Line > 0 {
		s += ":" + strconv.Itoa(l.Line)
	}
	if l.Function != "" {
		s += " in " + l.Function
	}
	return s
}

// Addr formats the machine address as module+0xoffset (the module's base
// name), e.g. libfoo.so+0x1234; the module alone if it could not be read.
func (l Location) Addr() string {
	if l.Module == "" {
		return ""
	}
	if l.Offset == 0 {
		return filepath.Base(l.Module)
	}
	return fmt.Sprintf("%s+%#x", filepath.Base(l.Module), l.Offset)
}

type lineEntry struct {
	addr uint64
	file string
	path string
	line int // 0 marks the end of a sequence
}

type symbol struct {
	addr, size uint64
	name       string
}

type module struct {
	loads    []elf.ProgHeader
	lines    []lineEntry
	syms     []symbol
	varsOnce sync.Once
	vars     *vars    // read at the first variable looked up (vars.go)
	objs     []symbol // data objects (STT_OBJECT) with a size, by address
}

// Symbolizer caches parsed modules across lookups.
type Symbolizer struct {
	mu   sync.Mutex
	mods map[string]*module
	segs map[string][]elf.ProgHeader // the loaded segments alone, of modules not parsed whole
}

// New returns an empty Symbolizer.
func New() *Symbolizer {
	return &Symbolizer{mods: map[string]*module{}, segs: map[string][]elf.ProgHeader{}}
}

// placed returns the load bias of the module mapped at m when one of its
// segments holds the address a, reading only its program headers: a
// search by data address (Global, DataObject) parses whole only the
// module that holds it, not every library of the process (whose symbols,
// lines and names cost tens of milliseconds each).
func (s *Symbolizer) placed(m trace.Mapping, a uint64) (uint64, bool) {
	s.mu.Lock()
	loads, ok := s.segs[m.Path]
	if mod := s.mods[m.Path]; mod != nil {
		loads, ok = mod.loads, true
	}
	s.mu.Unlock()
	if !ok {
		if f, err := elf.Open(m.Path); err == nil {
			for _, p := range f.Progs {
				if p.Type == elf.PT_LOAD {
					loads = append(loads, p.ProgHeader)
				}
			}
			f.Close()
		}
		s.mu.Lock()
		s.segs[m.Path] = loads
		s.mu.Unlock()
	}
	seg := module{loads: loads}
	bias, ok := seg.bias(m)
	return bias, ok && a >= bias && seg.holds(a-bias)
}

// Lookup resolves a return address recorded in a process with maps.
func (s *Symbolizer) Lookup(maps []trace.Mapping, pc uint64) Location {
	return s.lookup(maps, pc, true)
}

// LookupExact resolves an exact instruction address (a faulting pc).
func (s *Symbolizer) LookupExact(maps []trace.Mapping, pc uint64) Location {
	return s.lookup(maps, pc, false)
}

func (s *Symbolizer) lookup(maps []trace.Mapping, pc uint64, ret bool) Location {
	if pc == 0 || pc == trace.Unknown {
		return Location{}
	}
	if ret {
		pc-- // inside the call instruction, not after it
	}
	for _, m := range maps {
		if pc < m.Start || pc >= m.End {
			continue
		}
		if m.Py != nil {
			return s.python(maps, m.Py)
		}
		loc := Location{Module: m.Path}
		mod := s.module(m.Path)
		if mod == nil {
			return loc
		}
		off := pc - m.Start + m.Offset
		vaddr, ok := uint64(0), false
		for _, p := range mod.loads {
			if off >= p.Off && off < p.Off+p.Filesz {
				vaddr, ok = off-p.Off+p.Vaddr, true
				break
			}
		}
		if !ok {
			return loc
		}
		loc.Offset = vaddr
		if i := sort.Search(len(mod.lines), func(i int) bool { return mod.lines[i].addr > vaddr }); i > 0 {
			if e := mod.lines[i-1]; e.line > 0 {
				loc.File, loc.Path, loc.Line = e.file, e.path, e.line
			}
		}
		if i := sort.Search(len(mod.syms), func(i int) bool { return mod.syms[i].addr > vaddr }); i > 0 {
			if y := mod.syms[i-1]; vaddr < y.addr+y.size || y.size == 0 {
				loc.Function = y.name
				loc.Symbol = y.name
				if vaddr > y.addr {
					loc.Symbol += fmt.Sprintf("+%#x", vaddr-y.addr)
				}
			}
		}
		return loc
	}
	return Location{}
}

// Object is a global data object of a module: its symbol, address in the
// process, and size (ELF st_size), from the symbol tables alone.
type Object struct {
	Name        string
	Module      string
	Start, Size uint64
}

// DataObject gives the global data object (an ELF STT_OBJECT symbol of the
// executable or a library, .symtab or .dynsym) that holds address a in the
// process whose executable mappings are maps. A module's load bias comes
// from its mapping: the data segments are at the same bias as its code.
func (s *Symbolizer) DataObject(maps []trace.Mapping, a uint64) (Object, bool) {
	seen := map[string]bool{}
	for _, m := range maps {
		if m.Py != nil || seen[m.Path] {
			continue
		}
		seen[m.Path] = true
		if _, ok := s.placed(m, a); !ok {
			continue
		}
		mod := s.module(m.Path)
		if mod == nil || len(mod.objs) == 0 {
			continue
		}
		var bias uint64
		found := false
		for _, p := range mod.loads {
			if m.Offset >= p.Off && m.Offset < p.Off+p.Filesz {
				bias, found = m.Start-(p.Vaddr+(m.Offset-p.Off)), true
				break
			}
		}
		if !found || a < bias {
			continue
		}
		v := a - bias
		if i := sort.Search(len(mod.objs), func(i int) bool { return mod.objs[i].addr > v }); i > 0 {
			if y := mod.objs[i-1]; v < y.addr+y.size {
				return Object{Name: y.name, Module: m.Path, Start: y.addr + bias, Size: y.size}, true
			}
		}
	}
	return Object{}, false
}

func (s *Symbolizer) module(path string) *module {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m, ok := s.mods[path]; ok {
		return m
	}
	m := load(path)
	s.mods[path] = m
	return m
}

func load(path string) *module {
	f, err := elf.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	m := &module{}
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD {
			m.loads = append(m.loads, p.ProgHeader)
		}
	}
	syms, _ := f.Symbols()
	dyn, _ := f.DynamicSymbols()
	for _, y := range append(syms, dyn...) {
		if elf.ST_TYPE(y.Info) == elf.STT_FUNC && y.Value != 0 {
			// C++ names are shown as written: Solver::Solver(), not _ZN6SolverC1Ev.
			name := demangle.Filter(y.Name, demangle.NoParams)
			m.syms = append(m.syms, symbol{y.Value, y.Size, name})
		}
	}
	sort.Slice(m.syms, func(i, j int) bool { return m.syms[i].addr < m.syms[j].addr })
	for _, y := range append(syms, dyn...) {
		if elf.ST_TYPE(y.Info) == elf.STT_OBJECT && y.Value != 0 && y.Size > 0 {
			m.objs = append(m.objs, symbol{y.Value, y.Size, y.Name})
		}
	}
	sort.Slice(m.objs, func(i, j int) bool { return m.objs[i].addr < m.objs[j].addr })
	if d, err := f.DWARF(); err == nil {
		m.lines = lines(d)
	}
	return m
}

func lines(d *dwarf.Data) []lineEntry {
	var out []lineEntry
	r := d.Reader()
	for {
		cu, err := r.Next()
		if err != nil || cu == nil {
			break
		}
		if cu.Tag != dwarf.TagCompileUnit {
			r.SkipChildren()
			continue
		}
		compDir, _ := cu.Val(dwarf.AttrCompDir).(string)
		lr, err := d.LineReader(cu)
		if err == nil && lr != nil {
			var e dwarf.LineEntry
			for lr.Next(&e) == nil {
				le := lineEntry{addr: e.Address}
				if !e.EndSequence && e.File != nil {
					le.path, le.line = e.File.Name, e.Line
					le.file = le.path
					if compDir != "" && strings.HasPrefix(le.path, compDir+"/") {
						le.file = strings.TrimPrefix(le.path, compDir+"/")
					}
				}
				out = append(out, le)
			}
		}
		r.SkipChildren()
	}
	// At equal addresses the end of one sequence sorts before the start of
	// the next, so that a lookup finds the start.
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].addr != out[j].addr {
			return out[i].addr < out[j].addr
		}
		return out[i].line == 0 && out[j].line != 0
	})
	return out
}

// python resolves a call site of a Python interpreter: the script's line,
// with the machine address of the C call below it (in mpi4py's extension
// module, say) as the location's module, offset and symbol.
func (s *Symbolizer) python(maps []trace.Mapping, py *trace.PySite) Location {
	var c Location
	if py.CPC != 0 {
		var plain []trace.Mapping
		for _, m := range maps {
			if m.Py == nil {
				plain = append(plain, m)
			}
		}
		c = s.lookup(plain, py.CPC, true)
	}
	loc := Location{File: py.File, Line: py.Line, Function: py.Function, Module: c.Module, Offset: c.Offset, Symbol: c.Symbol}
	if filepath.IsAbs(py.File) {
		loc.Path = py.File
	}
	return loc
}
