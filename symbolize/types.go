package symbolize

import (
	"debug/dwarf"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// LeafKind is the kind of basic type a variable holds at an offset.
type LeafKind byte

// The kinds of leaves.
const (
	LeafUnknown  LeafKind = iota // a union, a pointer, a bit field, a type the debug information does not size: nothing is said
	LeafPadding                  // between or after a structure's members
	LeafSigned                   // signed integer
	LeafUnsigned                 // unsigned integer
	LeafChar                     // a character type (char, signed char, unsigned char; Fortran's character)
	LeafBool                     // C's _Bool, C++'s bool, Fortran's logical
	LeafFloat                    // floating point
	LeafComplex                  // complex floating point
	LeafEnum                     // an enumeration (an integer of either signedness)
)

// Leaf is the basic type a variable holds at an offset.
type Leaf struct {
	Kind   LeafKind
	Size   int64
	Within int64  // the offset's distance from the leaf's first byte
	Type   string // its type's name
	Path   string // where in the variable: members (.x) and elements ([3])
}

// typeReader reads a module's types; debug/dwarf's cache is not safe for
// concurrent use, and it takes every array's lower bound as 0, which
// Fortran's are not (their sizes are read here).
type typeReader struct {
	d     *dwarf.Data
	mu    sync.Mutex
	units []unit // compilation units by offset: their languages
	dims  map[dwarf.Offset]arrayInfo
	// arrays: where each array type is declared, read from arrayOffs
	// (every array type's entry) at the first array looked into
	arrays     map[*dwarf.ArrayType]dwarf.Offset
	arrayOffs  []dwarf.Offset
	arraysOnce sync.Once
}

type unit struct {
	off  dwarf.Offset
	lang int64
}

func newTypeReader(d *dwarf.Data) *typeReader {
	return &typeReader{d: d, dims: map[dwarf.Offset]arrayInfo{}, arrays: map[*dwarf.ArrayType]dwarf.Offset{}}
}

// readArrays notes where each array type is declared (debug/dwarf's
// types do not say).
func (t *typeReader) readArrays() {
	for _, off := range t.arrayOffs {
		if a, ok := t.typ(off).(*dwarf.ArrayType); ok {
			t.arrays[a] = off
		}
	}
}

func (t *typeReader) typ(off dwarf.Offset) dwarf.Type {
	t.mu.Lock()
	defer t.mu.Unlock()
	ty, err := t.d.Type(off)
	if err != nil {
		return nil
	}
	return ty
}

func (t *typeReader) size(off dwarf.Offset) int64 {
	ty := t.typ(off)
	if ty == nil {
		return -1
	}
	return t.sizeOf(ty)
}

// fortran reports whether the unit holding off is in Fortran, whose arrays
// start at 1 unless they say otherwise.
func (t *typeReader) fortran(off dwarf.Offset) bool {
	i := sort.Search(len(t.units), func(i int) bool { return t.units[i].off > off }) - 1
	if i < 0 {
		return false
	}
	switch t.units[i].lang {
	case 0x7, 0x8, 0xe, 0x22, 0x23, 0x2d: // DW_LANG_Fortran77, 90, 95, 03, 08, 18
		return true
	}
	return false
}

// arrayInfo is an array type's dimensions, as declared.
type arrayInfo struct {
	dims    []dim
	fortran bool // its subscripts are written a(i,j), the first one fastest
}

type dim struct {
	n, lo int64 // extent (-1: not a constant) and lower bound
}

// arrayDims gives the dimensions of the array type at off.
func (t *typeReader) arrayDims(off dwarf.Offset) arrayInfo {
	t.mu.Lock()
	defer t.mu.Unlock()
	if d, ok := t.dims[off]; ok {
		return d
	}
	a := arrayInfo{fortran: t.fortran(off)}
	r := t.d.Reader()
	r.Seek(off)
	if e, err := r.Next(); err == nil && e != nil && e.Children {
		lower := int64(0)
		if a.fortran {
			lower = 1
		}
		for {
			k, err := r.Next()
			if err != nil || k == nil || k.Tag == 0 {
				break
			}
			if k.Tag == dwarf.TagSubrangeType {
				a.dims = append(a.dims, extent(k, lower))
			}
			if k.Children {
				r.SkipChildren()
			}
		}
	}
	t.dims[off] = a
	return a
}

func extent(k *dwarf.Entry, lower int64) dim {
	lo, ok := k.Val(dwarf.AttrLowerBound).(int64)
	if !ok {
		if k.Val(dwarf.AttrLowerBound) != nil {
			return dim{-1, 0}
		}
		lo = lower
	}
	if n, ok := k.Val(dwarf.AttrCount).(int64); ok {
		return dim{n, lo}
	}
	hi, ok := k.Val(dwarf.AttrUpperBound).(int64)
	if !ok || hi < lo-1 {
		return dim{-1, lo}
	}
	return dim{hi - lo + 1, lo}
}

// array gives an array type's element type (below all its dimensions),
// element count (-1: not known) and dimensions.
func (t *typeReader) array(a *dwarf.ArrayType) (dwarf.Type, int64, arrayInfo) {
	t.arraysOnce.Do(t.readArrays)
	off, ok := t.arrays[a]
	if !ok {
		return nil, -1, arrayInfo{}
	}
	info := t.arrayDims(off)
	if len(info.dims) == 0 {
		return nil, -1, info
	}
	elem, n := a.Type, int64(1)
	for i, d := range info.dims {
		if d.n <= 0 {
			return nil, -1, info
		}
		n *= d.n
		if i > 0 { // debug/dwarf nests the other dimensions as arrays
			inner, ok := elem.(*dwarf.ArrayType)
			if !ok {
				return nil, -1, info
			}
			elem = inner.Type
		}
	}
	return elem, n, info
}

// subscript writes element i of an array as its language does: C's
// [i][j] (the last one fastest), Fortran's (i,j) (the first one fastest,
// from their lower bounds).
func (a arrayInfo) subscript(i int64) string {
	sub := make([]int64, len(a.dims))
	for k := range a.dims {
		j := len(a.dims) - 1 - k
		if a.fortran {
			j = k
		}
		sub[j] = i%a.dims[j].n + a.dims[j].lo
		i /= a.dims[j].n
	}
	var b strings.Builder
	for k, x := range sub {
		switch {
		case !a.fortran:
			fmt.Fprintf(&b, "[%d]", x)
		case k == 0:
			fmt.Fprintf(&b, "(%d", x)
		default:
			fmt.Fprintf(&b, ",%d", x)
		}
	}
	if a.fortran {
		b.WriteString(")")
	}
	return b.String()
}

// declaration writes the array's dimensions as its language declares
// them: [n][m], or Fortran's dimension(n,m) (lo:hi where a lower bound is
// not 1).
func (a arrayInfo) declaration() string {
	var b strings.Builder
	for k, d := range a.dims {
		switch {
		case !a.fortran:
			fmt.Fprintf(&b, "[%d]", d.n)
			continue
		case k == 0:
			b.WriteString(", dimension(")
		default:
			b.WriteString(",")
		}
		if d.lo == 1 {
			fmt.Fprintf(&b, "%d", d.n)
		} else {
			fmt.Fprintf(&b, "%d:%d", d.lo, d.lo+d.n-1)
		}
	}
	if a.fortran {
		b.WriteString(")")
	}
	return b.String()
}

func (t *typeReader) sizeOf(ty dwarf.Type) int64 {
	switch x := ty.(type) {
	case *dwarf.TypedefType:
		return t.sizeOf(x.Type)
	case *dwarf.QualType:
		return t.sizeOf(x.Type)
	case *dwarf.ArrayType:
		elem, n, _ := t.array(x)
		if elem == nil {
			return -1
		}
		es := t.sizeOf(elem)
		if es <= 0 {
			return -1
		}
		return es * n
	}
	return ty.Size()
}

// leaf gives the basic type ty holds at off.
func (t *typeReader) leaf(ty dwarf.Type, off int64, path string) Leaf {
	switch x := ty.(type) {
	case *dwarf.TypedefType:
		return t.leaf(x.Type, off, path)
	case *dwarf.QualType:
		return t.leaf(x.Type, off, path)
	case *dwarf.ArrayType:
		elem, n, info := t.array(x)
		es := int64(-1)
		if elem != nil {
			es = t.sizeOf(elem)
		}
		if es <= 0 || off < 0 || off >= es*n {
			return Leaf{Kind: LeafUnknown}
		}
		return t.leaf(elem, off%es, path+info.subscript(off/es))
	case *dwarf.StructType:
		if x.Kind != "struct" && x.Kind != "class" || x.Incomplete {
			return Leaf{Kind: LeafUnknown}
		}
		for _, f := range x.Field {
			fs := t.sizeOf(f.Type)
			if fs <= 0 || f.BitSize != 0 && f.BitSize != 8*fs {
				if off >= f.ByteOffset && (fs <= 0 || off < f.ByteOffset+fs) {
					return Leaf{Kind: LeafUnknown}
				}
				continue
			}
			if off >= f.ByteOffset && off < f.ByteOffset+fs {
				return t.leaf(f.Type, off-f.ByteOffset, path+"."+f.Name)
			}
		}
		return Leaf{Kind: LeafPadding, Path: path}
	}
	l := Leaf{Kind: basicKind(ty), Size: ty.Size(), Within: off, Type: ty.String(), Path: path}
	if l.Size <= 0 || off < 0 || off >= l.Size {
		l.Kind = LeafUnknown
	}
	return l
}

func basicKind(ty dwarf.Type) LeafKind {
	switch ty.(type) {
	case *dwarf.IntType:
		return LeafSigned
	case *dwarf.UintType:
		return LeafUnsigned
	case *dwarf.CharType, *dwarf.UcharType:
		return LeafChar
	case *dwarf.BoolType:
		return LeafBool
	case *dwarf.FloatType:
		return LeafFloat
	case *dwarf.ComplexType:
		return LeafComplex
	case *dwarf.EnumType:
		return LeafEnum
	}
	return LeafUnknown
}

// name names a type as C writes it (arrays as elem[n][m]).
func (t *typeReader) name(ty dwarf.Type) string {
	if a, ok := ty.(*dwarf.ArrayType); ok {
		elem, _, info := t.array(a)
		if elem == nil {
			return "an array"
		}
		return t.name(elem) + info.declaration()
	}
	if q, ok := ty.(*dwarf.QualType); ok {
		return q.Qual + " " + t.name(q.Type)
	}
	return ty.String()
}

// At gives the basic type the variable holds at offset off from its start.
func (v Variable) At(off int64) Leaf {
	if v.Type == nil || v.types == nil {
		return Leaf{Kind: LeafUnknown}
	}
	return v.types.leaf(v.Type, off, "")
}

// Size is the variable's size in bytes (-1: not known).
func (v Variable) Size() int64 {
	if v.Type == nil || v.types == nil {
		return -1
	}
	return v.types.sizeOf(v.Type)
}

// TypeName names the variable's declared type.
func (v Variable) TypeName() string {
	if v.Type == nil || v.types == nil {
		return "?"
	}
	return v.types.name(v.Type)
}

// Homogeneous gives the one basic type every byte of the variable that is
// not padding holds, if it holds one only (an array of doubles, a
// structure of ints).
func (v Variable) Homogeneous() (Leaf, bool) {
	if v.Type == nil || v.types == nil {
		return Leaf{}, false
	}
	return v.types.homogeneous(v.Type, 0)
}

func (t *typeReader) homogeneous(ty dwarf.Type, depth int) (Leaf, bool) {
	if depth > 32 {
		return Leaf{}, false
	}
	switch x := ty.(type) {
	case *dwarf.TypedefType:
		return t.homogeneous(x.Type, depth+1)
	case *dwarf.QualType:
		return t.homogeneous(x.Type, depth+1)
	case *dwarf.ArrayType:
		elem, _, _ := t.array(x)
		if elem == nil {
			return Leaf{}, false
		}
		return t.homogeneous(elem, depth+1)
	case *dwarf.StructType:
		var first Leaf
		for _, f := range x.Field {
			if x.Kind != "struct" && x.Kind != "class" || f.BitSize != 0 {
				return Leaf{}, false
			}
			l, ok := t.homogeneous(f.Type, depth+1)
			if !ok || first.Kind != LeafUnknown && (l.Kind != first.Kind || l.Size != first.Size) {
				return Leaf{}, false
			}
			first = l
		}
		return first, first.Kind != LeafUnknown
	}
	l := t.leaf(ty, 0, "")
	return l, l.Kind != LeafUnknown && l.Kind != LeafPadding
}
