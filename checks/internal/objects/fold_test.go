package objects

import (
	"testing"

	"mpivet/trace/tracetest"
)

// Follow reads a folded loop's repetitions as a count only when one
// leaves the live objects as it found them: a request completed in each
// iteration is read three times (4,000 iterations), one left live in
// each is read every time (4,000 live at the end), its digest taken at
// the first few only.
func TestFollowFoldedLoop(t *testing.T) {
	const n = 4000
	for _, completed := range []bool{true, false} {
		l := tracetest.New(0, 2)
		l.Call("MPI_Init", 1, nil, map[string]any{})
		from := l.Pos()
		l.Call("MPI_Irecv", 2, map[string]any{"source": 1, "tag": 0, "comm": tracetest.Consts["MPI_COMM_WORLD"]}, map[string]any{"request": uint64(0x9000)})
		after := uint64(0x9000) // left as it was: still pending
		if completed {
			after = tracetest.Consts["MPI_REQUEST_NULL"]
		}
		l.Call("MPI_Wait", 3, map[string]any{"request": uint64(0x9000)}, map[string]any{"request_out": after, "status": [2]int64{1, 0}})
		l.Repeat(from, n-1, 0)
		l.Call("MPI_Finalize", 4, nil, map[string]any{})
		p := l.Process()
		read := p.RecordsRead()
		st := Follow(p)
		read = p.RecordsRead() - read
		switch {
		case completed && (len(st.Live) != 0 || read > 40):
			t.Errorf("completed in each iteration: %d live, %d records decoded", len(st.Live), read)
		case !completed && (len(st.Live) != n || read < 4*n):
			t.Errorf("left live in each iteration: %d live, want %d; %d records decoded", len(st.Live), n, read)
		}
	}
}
