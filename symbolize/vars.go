package symbolize

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"sort"

	"mpivet/trace"
)

// Variable is a variable of the program's, as its debug information
// declares it, that holds an address a call was given.
type Variable struct {
	Name   string
	Type   dwarf.Type
	Offset int64  // of the address in the variable
	Local  bool   // a local variable or parameter of the calling function, else a global (or static)
	Module string // the executable or library whose debug information declares it
	types  *typeReader
}

// DWARF expression operators the variables' locations use.
const (
	opAddr        = 0x03 // DW_OP_addr: a static address
	opPlusUconst  = 0x23 // DW_OP_plus_uconst
	opFbreg       = 0x91 // DW_OP_fbreg: an offset from the function's frame base
	opCallFrameCF = 0x9c // DW_OP_call_frame_cfa
)

// vars is what a module's debug information says of its variables: the
// globals by address, and the functions with their frame-based locals.
type vars struct {
	types   *typeReader
	globals []variable // sorted by addr
	funcs   []function // sorted by lo
}

// variable is a variable with one location. Its size is read from its
// type when an address is looked up (the types of a large program's
// variables are not all read).
type variable struct {
	name   string
	typ    dwarf.Offset
	addr   int64       // a global's address, a local's offset from the CFA
	ranges [][2]uint64 // a local's scope (nil: the whole function)
}

type function struct {
	lo, hi uint64
	locals []variable
}

// moduleVars reads the variables of the module at path, once.
func (s *Symbolizer) moduleVars(path string) *vars {
	mod := s.module(path)
	if mod == nil {
		return nil
	}
	mod.varsOnce.Do(func() { mod.vars = loadVars(path) })
	return mod.vars
}

func loadVars(path string) *vars {
	f, err := elf.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		return nil
	}
	v := &vars{types: newTypeReader(d)}
	w := &varWalker{d: d, v: v}
	r := d.Reader()
	for {
		cu, err := r.Next()
		if err != nil || cu == nil {
			break
		}
		if cu.Tag != dwarf.TagCompileUnit || !cu.Children {
			r.SkipChildren()
			continue
		}
		lang, _ := cu.Val(dwarf.AttrLanguage).(int64)
		v.types.units = append(v.types.units, unit{cu.Offset, lang})
		w.children(r, nil, nil)
	}
	v.types.arrayOffs = w.arrays
	sort.Slice(v.globals, func(i, j int) bool { return v.globals[i].addr < v.globals[j].addr })
	sort.Slice(v.funcs, func(i, j int) bool { return v.funcs[i].lo < v.funcs[j].lo })
	return v
}

type varWalker struct {
	d      *dwarf.Data
	v      *vars
	arrays []dwarf.Offset // the array types declared
}

// children walks the entries below the one just read, within function fn
// (nil: outside any) and the scope ranges of its enclosing block.
func (w *varWalker) children(r *dwarf.Reader, fn *function, scope [][2]uint64) {
	for {
		e, err := r.Next()
		if err != nil || e == nil || e.Tag == 0 {
			return
		}
		switch e.Tag {
		case dwarf.TagSubprogram:
			w.subprogram(r, e)
			continue
		case dwarf.TagLexDwarfBlock, dwarf.TagInlinedSubroutine:
			if e.Children {
				inner := scope
				if rs, err := w.d.Ranges(e); err == nil && len(rs) > 0 {
					inner = rs
				}
				w.children(r, fn, inner)
			}
			continue
		case dwarf.TagVariable, dwarf.TagFormalParameter:
			w.variable(e, fn, scope)
		case dwarf.TagArrayType:
			w.arrays = append(w.arrays, e.Offset)
		}
		if e.Children {
			if e.Tag == dwarf.TagModule || e.Tag == dwarf.TagNamespace || e.Tag == dwarf.TagCommonDwarfBlock {
				w.children(r, fn, scope)
			} else {
				r.SkipChildren()
			}
		}
	}
}

// subprogram reads a function whose frame base is the CFA (GCC's, at every
// optimisation level); the locals of one with another frame base are not
// read.
func (w *varWalker) subprogram(r *dwarf.Reader, e *dwarf.Entry) {
	if !e.Children {
		return
	}
	fb, _ := e.Val(dwarf.AttrFrameBase).([]byte)
	rs, err := w.d.Ranges(e)
	if err != nil || len(rs) == 0 || len(fb) != 1 || fb[0] != opCallFrameCF {
		w.children(r, nil, nil) // its static locals, its nested functions
		return
	}
	fn := &function{lo: rs[0][0], hi: rs[0][1]}
	for _, x := range rs {
		fn.lo, fn.hi = min(fn.lo, x[0]), max(fn.hi, x[1])
	}
	w.children(r, fn, rs)
	if len(fn.locals) > 0 {
		w.v.funcs = append(w.v.funcs, *fn)
	}
}

// variable records a variable whose location is one address, or one offset
// from the frame base; one in a register, in pieces, or with a location
// list (optimised code) is not known, and nothing is said of it.
func (w *varWalker) variable(e *dwarf.Entry, fn *function, scope [][2]uint64) {
	loc, ok := e.Val(dwarf.AttrLocation).([]byte)
	if art, _ := e.Val(dwarf.AttrArtificial).(bool); !ok || len(loc) == 0 || art {
		return // a compiler's temporary
	}
	name, typ := w.declaration(e)
	if typ == 0 {
		return
	}
	v := variable{name: name, typ: typ}
	switch {
	case loc[0] == opAddr && len(loc) >= 9:
		v.addr = int64(binary.LittleEndian.Uint64(loc[1:9]))
		if rest := loc[9:]; len(rest) > 0 {
			n, k := uleb(rest[1:])
			if rest[0] != opPlusUconst || k != len(rest)-1 {
				return
			}
			v.addr += int64(n)
		}
		w.v.globals = append(w.v.globals, v)
	case loc[0] == opFbreg && fn != nil:
		off, k := sleb(loc[1:])
		if k != len(loc)-1 {
			return // DW_OP_deref after it: the variable holds an address, not the data
		}
		v.addr, v.ranges = off, scope
		fn.locals = append(fn.locals, v)
	}
}

// declaration gives a variable's name and type, from the entry it
// specifies or is an instance of when it has none of its own.
func (w *varWalker) declaration(e *dwarf.Entry) (string, dwarf.Offset) {
	for i := 0; i < 4 && e != nil; i++ {
		name, _ := e.Val(dwarf.AttrName).(string)
		typ, _ := e.Val(dwarf.AttrType).(dwarf.Offset)
		if typ != 0 {
			return name, typ
		}
		ref, ok := e.Val(dwarf.AttrSpecification).(dwarf.Offset)
		if !ok {
			ref, ok = e.Val(dwarf.AttrAbstractOrigin).(dwarf.Offset)
		}
		if !ok {
			return "", 0
		}
		r := w.d.Reader()
		r.Seek(ref)
		e, _ = r.Next()
	}
	return "", 0
}

func uleb(b []byte) (uint64, int) {
	var v uint64
	for i, c := range b {
		if i >= 10 {
			break
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, -1
}

func sleb(b []byte) (int64, int) {
	var v int64
	for i, c := range b {
		if i >= 10 {
			break
		}
		v |= int64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			if c&0x40 != 0 && i < 9 {
				v |= -1 << (7 * (i + 1))
			}
			return v, i + 1
		}
	}
	return 0, -1
}

// Global finds the global or static variable that holds addr, in the
// module of maps whose segments hold it.
func (s *Symbolizer) Global(maps []trace.Mapping, addr uint64) (Variable, bool) {
	done := map[string]bool{}
	for _, m := range maps {
		if m.Py != nil || done[m.Path] {
			continue
		}
		done[m.Path] = true
		if _, ok := s.placed(m, addr); !ok {
			continue
		}
		mod := s.module(m.Path)
		if mod == nil {
			continue
		}
		bias, ok := mod.bias(m)
		if !ok || !mod.holds(addr-bias) {
			continue
		}
		v := s.moduleVars(m.Path)
		if v == nil {
			return Variable{}, false
		}
		a := int64(addr - bias)
		i := sort.Search(len(v.globals), func(i int) bool { return v.globals[i].addr > a }) - 1
		if i < 0 {
			return Variable{}, false
		}
		g := v.globals[i]
		if size := v.types.size(g.typ); size <= 0 || a >= g.addr+size {
			return Variable{}, false
		}
		return Variable{Name: g.name, Type: v.types.typ(g.typ), Offset: a - g.addr, Module: m.Path, types: v.types}, true
	}
	return Variable{}, false
}

// FrameLocal finds the local variable that holds the buffer of d: of the
// function that made the call, or of one of the functions above it (a
// buffer passed down through a pointer), whose call site into the next is
// then caller (0 for the calling function itself).
func (s *Symbolizer) FrameLocal(maps []trace.Mapping, d trace.Declared) (v Variable, caller uint64, ok bool) {
	if v, ok = s.Local(maps, d.PC, d.CFA, d.Addr); ok {
		return v, 0, true
	}
	for _, f := range d.Callers {
		if v, ok = s.Local(maps, f.PC, f.CFA, d.Addr); ok {
			return v, f.PC, true
		}
	}
	return v, 0, false
}

// Local finds the local variable or parameter of the function that made
// the call at return address pc, whose frame's CFA is cfa, that holds addr.
func (s *Symbolizer) Local(maps []trace.Mapping, pc, cfa, addr uint64) (Variable, bool) {
	if cfa == 0 || pc == 0 {
		return Variable{}, false
	}
	pc-- // inside the call instruction
	for _, m := range maps {
		if pc < m.Start || pc >= m.End || m.Py != nil {
			continue
		}
		mod := s.module(m.Path)
		if mod == nil {
			return Variable{}, false
		}
		bias, ok := mod.bias(m)
		v := s.moduleVars(m.Path)
		if !ok || v == nil {
			return Variable{}, false
		}
		vaddr := pc - bias
		i := sort.Search(len(v.funcs), func(i int) bool { return v.funcs[i].lo > vaddr }) - 1
		if i < 0 || vaddr >= v.funcs[i].hi {
			return Variable{}, false
		}
		for _, l := range v.funcs[i].locals {
			start := int64(cfa) + l.addr
			if int64(addr) < start || !inRanges(l.ranges, vaddr) {
				continue
			}
			if size := v.types.size(l.typ); size <= 0 || int64(addr) >= start+size {
				continue
			}
			return Variable{Name: l.name, Type: v.types.typ(l.typ), Offset: int64(addr) - start, Local: true,
				Module: m.Path, types: v.types}, true
		}
		return Variable{}, false
	}
	return Variable{}, false
}

func inRanges(rs [][2]uint64, a uint64) bool {
	if rs == nil {
		return true
	}
	for _, r := range rs {
		if a >= r[0] && a < r[1] {
			return true
		}
	}
	return false
}

// bias is what the module's addresses are moved by in the process (its
// load address, for a position-independent one), from one of its mappings.
func (m *module) bias(mp trace.Mapping) (uint64, bool) {
	for _, p := range m.loads {
		if mp.Offset >= p.Off && mp.Offset < p.Off+p.Filesz {
			return mp.Start - (p.Vaddr + (mp.Offset - p.Off)), true
		}
	}
	return 0, false
}

// holds reports whether one of the module's loaded segments holds vaddr.
func (m *module) holds(vaddr uint64) bool {
	for _, p := range m.loads {
		if vaddr >= p.Vaddr && vaddr < p.Vaddr+p.Memsz {
			return true
		}
	}
	return false
}
