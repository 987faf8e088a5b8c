package typematch

import (
	"testing"

	"mpivet/symbolize"
)

// What a datatype's basic type may lie over: the same kind and size, the
// 1-byte types over anything (raw bytes), signed over unsigned of one
// size, a complex number over two floats
// and a float over half a complex number; nothing is said over a union or
// a pointer, and padding is skipped.
func TestCompare(t *testing.T) {
	leaf := func(k symbolize.LeafKind, size, within int64) symbolize.Leaf {
		return symbolize.Leaf{Kind: k, Size: size, Within: within}
	}
	cases := []struct {
		name  string
		class int
		size  int64
		l     symbolize.Leaf
		want  verdict
	}{
		{"MPI_INT over int", classInt, 4, leaf(symbolize.LeafSigned, 4, 0), fits},
		{"MPI_DOUBLE over int", classFloat, 8, leaf(symbolize.LeafSigned, 4, 0), differs},
		{"MPI_INT over double", classInt, 4, leaf(symbolize.LeafFloat, 8, 0), differs},
		{"MPI_INT over the middle of a double", classInt, 4, leaf(symbolize.LeafFloat, 8, 4), differs},
		{"MPI_LONG over int", classInt, 8, leaf(symbolize.LeafSigned, 4, 0), differs},
		{"MPI_LONG over long long", classInt, 8, leaf(symbolize.LeafSigned, 8, 0), fits},
		{"MPI_REAL over real(8)", classFloat, 4, leaf(symbolize.LeafFloat, 8, 0), differs},
		{"MPI_UNSIGNED over int", classUint, 4, leaf(symbolize.LeafSigned, 4, 0), fits},
		{"MPI_UNSIGNED over float", classUint, 4, leaf(symbolize.LeafFloat, 4, 0), differs},
		{"MPI_INT over an enum", classInt, 4, leaf(symbolize.LeafEnum, 4, 0), fits},
		{"MPI_UNSIGNED_CHAR over char", classChar, 1, leaf(symbolize.LeafChar, 1, 0), fits},
		{"MPI_INT8_T over unsigned char", classInt, 1, leaf(symbolize.LeafChar, 1, 0), fits},
		{"MPI_CHAR over int", classChar, 1, leaf(symbolize.LeafSigned, 4, 0), fits},
		{"MPI_C_BOOL over bool", classBool, 1, leaf(symbolize.LeafBool, 1, 0), fits},
		{"MPI_LOGICAL over logical", classLogical, 4, leaf(symbolize.LeafBool, 4, 0), fits},
		{"MPI_C_BOOL over int", classBool, 1, leaf(symbolize.LeafSigned, 4, 0), differs},
		{"MPI_C_DOUBLE_COMPLEX over double complex", classComplex, 16, leaf(symbolize.LeafComplex, 16, 0), fits},
		{"MPI_C_DOUBLE_COMPLEX over double", classComplex, 16, leaf(symbolize.LeafFloat, 8, 0), fits},
		{"MPI_DOUBLE over the imaginary part", classFloat, 8, leaf(symbolize.LeafComplex, 16, 8), fits},
		{"MPI_FLOAT over double complex", classFloat, 4, leaf(symbolize.LeafComplex, 16, 0), differs},
		{"MPI_WCHAR over wchar_t", classWchar, 4, leaf(symbolize.LeafSigned, 4, 0), fits},
		{"MPI_INT over a union", classInt, 4, leaf(symbolize.LeafUnknown, 0, 0), unknown},
		{"MPI_INT over padding", classInt, 4, leaf(symbolize.LeafPadding, 0, 0), skip},
		{"a pair type", classPair, 1, leaf(symbolize.LeafSigned, 4, 0), unknown},
	}
	for _, c := range cases {
		if got := compare(c.class, c.size, c.l); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
