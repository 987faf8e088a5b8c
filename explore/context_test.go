package explore

import "testing"

// Contexts that differ only by a shift of every tag (tags numbering the
// iterations) are one context; another pattern of tags, or another call,
// is another.
func TestContextTagsRelative(t *testing.T) {
	call := func(h uint64, tag int64) pastCall {
		p := pastCall{h: h}
		p.tags[0], p.has[0] = tag, true
		return p
	}
	ring := func(calls ...pastCall) uint64 {
		var r [contextCalls]pastCall
		copy(r[:], calls)
		return contextSum(r[:], len(calls))
	}
	it5 := ring(call(1, 5), call(1, 5), call(2, 6), call(2, 6))
	it9 := ring(call(1, 9), call(1, 9), call(2, 10), call(2, 10))
	if it5 != it9 {
		t.Errorf("tags shifted by 4: two contexts")
	}
	if other := ring(call(1, 5), call(1, 6), call(2, 6), call(2, 6)); other == it5 {
		t.Errorf("another pattern of tags: one context")
	}
	if other := ring(call(1, 5), call(1, 5), call(3, 6), call(3, 6)); other == it5 {
		t.Errorf("other calls: one context")
	}
	if any := ring(call(1, -1), call(1, 5)); any == ring(call(1, -1), call(1, 9)) {
		// MPI_ANY_TAG is absolute, the first real tag the base: equal
	} else {
		t.Errorf("a wildcard tag before shifted tags: two contexts")
	}
	if ring(call(1, -1)) == ring(call(1, 0)) {
		t.Errorf("MPI_ANY_TAG taken for a tag")
	}
}
