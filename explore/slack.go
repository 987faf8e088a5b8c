package explore

import (
	"fmt"
	"strconv"
	"strings"

	"mpivet/trace"
)

// SlackNote says what buffering branch b needs, for reports: "the send at
// a.c:12 (rank 0 → 1) is buffered: then the send at a.c:14 (rank 0 → 2) can
// match the receive at c.c:30"; "" when it needs none. where places a call
// site in a rank's mappings ("a.c:12").
func SlackNote(b *Branch, where func(maps []trace.Mapping, pc uint64) string) string {
	if b == nil || len(b.Forced.Buffer) == 0 {
		return ""
	}
	send := func(s SendRef) string {
		at := where(s.Maps, s.PC)
		if at == "" {
			at = fmt.Sprintf("%#x", s.PC)
		}
		return fmt.Sprintf("the send at %s (rank %d → %d)", at, s.Rank, s.Dest)
	}
	var bs []string
	for _, s := range b.Forced.Buffer {
		bs = append(bs, send(s))
	}
	verb := "is"
	if len(bs) > 1 {
		verb = "are"
	}
	note := strings.Join(bs, " and ") + " " + verb + " buffered"
	if b.Forced.Send != nil {
		recv := where(b.Maps, b.PC)
		if recv == "" {
			recv = fmt.Sprintf("%#x", b.PC)
		}
		note += fmt.Sprintf(": then %s can match the receive at %s (rank %d)", send(*b.Forced.Send), recv, b.Rank)
	}
	return note
}

// Buffers returns the decisions of ds that buffer sends.
func Buffers(ds []Decision) []Decision { return ofKind(ds, BufferKind) }

// ParseSends reads the sends --buffer-sends names, "RANK:N,...", as
// buffering decisions (nil for "").
func ParseSends(s string) ([]Decision, error) {
	var ds []Decision
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		r, n, ok := strings.Cut(f, ":")
		rank, err1 := strconv.Atoi(r)
		ord, err2 := strconv.ParseUint(n, 10, 64)
		if !ok || err1 != nil || err2 != nil || rank < 0 {
			return nil, fmt.Errorf("%q: want RANK:N (the rank's N-th MPI_Send or MPI_Isend, from 0)", f)
		}
		ds = append(ds, Decision{Rank: rank, Event: ord, Kind: BufferKind})
	}
	return ds, nil
}
