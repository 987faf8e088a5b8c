package trace_test

import (
	"fmt"
	"slices"
	"testing"

	"mpivet/trace"
	"mpivet/trace/tracetest"
)

// iteration appends one iteration of a loop: an Irecv and its Wait, and
// an Allreduce (with its signature record); buf says which of two
// buffers it receives into.
func iteration(l *tracetest.Log, buf uint64) {
	l.Call("MPI_Irecv", 0x400100, map[string]any{"buf": buf, "count": 4, "datatype": tracetest.Consts["MPI_INT"], "source": 1, "tag": 7,
		"comm": tracetest.Consts["MPI_COMM_WORLD"]}, map[string]any{"request": uint64(0x9000)})
	l.Call("MPI_Wait", 0x400200, map[string]any{"request": uint64(0x9000)}, map[string]any{"request": tracetest.Consts["MPI_REQUEST_NULL"], "status": [2]int64{1, 7}})
	l.CollCall("MPI_Allreduce", 0x400300, map[string]any{"count": 1, "datatype": tracetest.Consts["MPI_INT"], "op": tracetest.Consts["MPI_SUM"],
		"comm": tracetest.Consts["MPI_COMM_WORLD"]}, map[string]any{}, 3, 11, 1, 11, 1)
}

// describe is what a test compares of a rank's calls: everything the
// checks read, offsets and sequence numbers included.
func describe(t *testing.T, p *trace.Process) []string {
	var out []string
	for _, c := range p.CallList() {
		s := fmt.Sprintf("%d %d %s pc=%x in=%v", c.Seq, c.Offset, c.Name(), c.PC, c.Words("buf"))
		for i := range c.Def.In {
			s += fmt.Sprint(" ", c.In(i))
		}
		s += fmt.Sprint(" ret=", c.Returned, c.RC)
		for i := range c.Def.Out {
			s += fmt.Sprint(" ", c.Out(i))
		}
		if d := c.Data(); d != nil {
			s += fmt.Sprintf(" data=%+v", *d)
		}
		out = append(out, s)
	}
	return out
}

// A log whose loop the layer folded (a repeat record, nested repeats, an
// unfinished repetition) reads as the calls of the same log written out
// whole: same calls, same virtual offsets and sequence numbers, exit
// records matched to their entries, collectives to their signatures; and
// CallAt finds a call inside a repetition.
func TestRepeatsExpand(t *testing.T) {
	const a, b = 0x7000, 0x8000
	// Whole: init, 2 warm-up iterations, then 3 times (a b b b), finalize;
	// folded, the inner loop (b) written twice and repeated once more, the
	// outer loop (a, b, b, repeat) written twice and repeated once more.
	whole := tracetest.New(0, 2)
	whole.Call("MPI_Init", 0x400000, nil, map[string]any{})
	for range 2 {
		iteration(whole, a)
	}
	for range 3 {
		iteration(whole, a)
		for range 3 {
			iteration(whole, b)
		}
	}
	whole.Call("MPI_Finalize", 0x400400, nil, map[string]any{})

	wantWhole := describe(t, procOf(t, whole.Bytes()))
	t.Run("nested", func(t *testing.T) {
		l := tracetest.New(0, 2)
		l.Call("MPI_Init", 0x400000, nil, map[string]any{})
		for range 2 {
			iteration(l, a)
		}
		iteration(l, a)
		iteration(l, b)
		from := l.Pos()
		iteration(l, b)
		l.Repeat(from, 1, 0)
		start := l.Pos()
		iteration(l, a)
		iteration(l, b)
		from = l.Pos()
		iteration(l, b)
		l.Repeat(from, 1, 0)
		l.Repeat(start, 1, 0)
		l.Call("MPI_Finalize", 0x400400, nil, map[string]any{})
		p := procOf(t, l.Bytes())
		if got := describe(t, p); !slices.Equal(got, wantWhole) {
			t.Errorf("folded log reads as\n%s\nwant\n%s", lines(got), lines(wantWhole))
		}
		if p.NumCalls != len(wantWhole) {
			t.Errorf("NumCalls %d, want %d", p.NumCalls, len(wantWhole))
		}
		// every call, by its offset
		for _, c := range procOf(t, whole.Bytes()).CallList() {
			got := p.CallAt(c.Offset)
			if got == nil || got.Seq != c.Seq || got.Name() != c.Name() || !got.Returned || got.Out(0) != c.Out(0) {
				t.Errorf("CallAt(%d): %+v, want %s seq %d", c.Offset, got, c.Name(), c.Seq)
			}
		}
	})
	t.Run("unfinished", func(t *testing.T) {
		// A rank killed in the fourth iteration, in its Wait: 3 records
		// of the repetition written (Irecv's entry and exit, Wait's entry).
		w := tracetest.New(0, 2)
		l := tracetest.New(0, 2)
		for _, x := range []*tracetest.Log{w, l} {
			x.Call("MPI_Init", 0x400000, nil, map[string]any{})
			iteration(x, b)
		}
		from := l.Pos()
		iteration(l, b)
		for range 2 {
			iteration(w, b)
		}
		w.Call("MPI_Irecv", 0x400100, map[string]any{"buf": uint64(b), "count": 4, "datatype": tracetest.Consts["MPI_INT"], "source": 1, "tag": 7,
			"comm": tracetest.Consts["MPI_COMM_WORLD"]}, map[string]any{"request": uint64(0x9000)})
		w.Call("MPI_Wait", 0x400200, map[string]any{"request": uint64(0x9000)}, nil)
		l.Repeat(from, 1, 3)
		want, got := describe(t, procOf(t, w.Bytes())), describe(t, procOf(t, l.Bytes()))
		if !slices.Equal(got, want) {
			t.Errorf("log ending in an unfinished repetition reads as\n%s\nwant\n%s", lines(got), lines(want))
		}
	})
}

func procOf(t *testing.T, data []byte) *trace.Process {
	t.Helper()
	p, err := trace.Decode("p.testhost.100.log", data)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func lines(s []string) string {
	out := ""
	for _, l := range s {
		out += "  " + l + "\n"
	}
	return out
}

// A reader of CallsFolded whose digest a repetition leaves as it was is
// given the first two repetitions (the one in the log, one from the
// repeat) and the last, with the offsets and sequence numbers the whole
// log has, the calls between counted in Seq (a call a repetition ends in
// is given where the last would end in it);
// the first reading counts them without decoding them; a digest that
// every repetition changes gets every call, as Calls gives them.
func TestCallsFoldedSkipsSettledRepetitions(t *testing.T) {
	const n, b = 1000, 0x8000
	for _, part := range []uint64{0, 3} {
		t.Run(fmt.Sprint("part", part), func(t *testing.T) {
			l := tracetest.New(0, 2)
			l.Call("MPI_Init", 0x400000, nil, map[string]any{})
			from := l.Pos()
			iteration(l, b)
			reps := uint64(n - 1)
			if part > 0 {
				reps-- // the last repetition unfinished: the rank ended in it
			}
			l.Repeat(from, reps, part)
			if part == 0 {
				l.Call("MPI_Finalize", 0x400400, nil, map[string]any{})
			}
			p := procOf(t, l.Bytes())
			whole := p.CallList()
			if want := 2 + 3*n; part == 0 && len(whole) != want || p.NumCalls != len(whole) {
				t.Fatalf("%d calls read, NumCalls %d", len(whole), p.NumCalls)
			}
			if first := procOf(t, l.Bytes()).RecordsRead(); first > 100 {
				t.Errorf("the first reading decoded %d records of a %d-iteration loop", first, n)
			}
			var got []*trace.Call
			for c := range p.CallsFolded(folding{func() uint64 { return 1 }}) {
				got = append(got, c)
			}
			if len(got) > 20 || len(got) < 8 {
				t.Fatalf("a settled reader was given %d calls of %d", len(got), len(whole))
			}
			for i, c := range got {
				if c.Seq < 0 || c.Seq >= len(whole) || i > 0 && c.Seq <= got[i-1].Seq || i < 6 && c.Seq != i {
					t.Fatalf("call %d: %s seq %d", i, c.Name(), c.Seq)
				}
				w := whole[c.Seq]
				if c.Offset != w.Offset || c.Name() != w.Name() || c.Returned != w.Returned || c.Out(0) != w.Out(0) {
					t.Errorf("call %d: %s seq %d at %d, want %s at %d", i, c.Name(), c.Seq, c.Offset, w.Name(), w.Offset)
				}
			}
			if got[len(got)-1].Seq != len(whole)-1 {
				t.Errorf("the last call given is %d, want %d", got[len(got)-1].Seq, len(whole)-1)
			}
			k := uint64(0)
			var all []*trace.Call
			for c := range p.CallsFolded(folding{func() uint64 { return k }}) {
				k++
				all = append(all, c)
			}
			if len(all) != len(whole) || all[len(all)-1].Offset != whole[len(whole)-1].Offset {
				t.Errorf("a reader changed by every repetition was given %d calls, want %d", len(all), len(whole))
			}
		})
	}
}

// folding is a trace.Folding of a digest, that takes every skip.
type folding struct{ digest func() uint64 }

func (f folding) Digest() uint64                      { return f.digest() }
func (f folding) Skip(from, to uint64, reps int) bool { return true }
