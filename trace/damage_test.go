package trace_test

import (
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mpivet/api"
	"mpivet/trace"
	"mpivet/trace/tracetest"
)

// writeRank writes a rank's log as the layer leaves it (its records, then
// zeros: a sparse file larger than them) and an exit record as the
// supervisor writes it, saying where the records end and their CRC32C.
func writeRank(t *testing.T, dir string, log []byte, end int) {
	t.Helper()
	file := append(append([]byte(nil), log...), make([]byte, 4096)...)
	if err := os.WriteFile(filepath.Join(dir, "p.h.7.log"), file, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := crc32.Checksum(log[:end], crc32.MakeTable(crc32.Castagnoli))
	exit := fmt.Sprintf(`{"host":"h","pid":7,"exited":true,"code":0,"signal":0,"core":false,"forwarded":0,"exec_error":"","time_ns":1,"log_end":%d,"log_crc32c":%d}`+"\n", end, sum)
	if err := os.WriteFile(filepath.Join(dir, "p.h.7.exit"), []byte(exit), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A log cut short, changed, written to past its end, or without its
// magic, and an exit record that is not one, are damage: ReadRun refuses
// the run and names the file and what is wrong with it.
func TestDamagedRecords(t *testing.T) {
	l := tracetest.New(0, 2)
	l.Call("MPI_Init", 0x10, nil, map[string]any{})
	l.Call("MPI_Comm_dup", 0x20, map[string]any{"comm": tracetest.Consts["MPI_COMM_WORLD"]}, map[string]any{"newcomm": uint64(0x77)})
	l.Call("MPI_Finalize", 0x30, nil, map[string]any{})
	log := l.Bytes()
	intact := t.TempDir()
	writeRank(t, intact, log, len(log))
	run, err := trace.ReadRun(intact)
	if err != nil || run.Procs[0].NumCalls != 3 {
		t.Fatalf("the intact run: %v", err)
	}
	flip := func(at int) []byte {
		b := append([]byte(nil), log...)
		b[at] ^= 0x10
		return b
	}
	cases := []struct {
		name     string
		log      []byte
		exit     func(string) string // changes the exit record
		file     string
		contains string
	}{
		{"cut short", log[:len(log)-12], nil, "p.h.7.log", "its records end at byte"},
		{"a payload byte flipped", flip(len(log) - 3), nil, "p.h.7.log", "CRC32C"},
		{"a header's size flipped", flip(8), nil, "p.h.7.log", "its records end at byte"},
		{"the magic changed", flip(0), nil, "p.h.7.log", "magic"},
		{"the exit record cut", log, func(s string) string { return s[:40] }, "p.h.7.exit", "not an exit record"},
		{"the exit record garbled", log, func(s string) string { return strings.Replace(s, `"exited"`, `"exitex"`, 1) }, "p.h.7.exit", "not an exit record"},
		{"another pid", log, func(s string) string { return strings.Replace(s, `"pid":7`, `"pid":8`, 1) }, "p.h.7.exit", "about process 8"},
		{"an exit record without its status", log, func(s string) string { return strings.Replace(s, `"exited":true,`, ``, 1) }, "p.h.7.exit", `does not say "exited"`},
		{"exited and killed", log, func(s string) string { return strings.Replace(s, `"signal":0`, `"signal":9`, 1) }, "p.h.7.exit", "both exited"},
	}
	for _, c := range cases {
		dir := t.TempDir()
		writeRank(t, dir, log, len(log))
		// the damage, done after the rank ended
		// (a log cut short has nothing after its end, the others their zeros)
		damaged := c.log
		if len(c.log) == len(log) {
			damaged = append(append([]byte(nil), c.log...), make([]byte, 4096)...)
		}
		os.WriteFile(filepath.Join(dir, "p.h.7.log"), damaged, 0o644)
		if c.exit != nil {
			b, _ := os.ReadFile(filepath.Join(dir, "p.h.7.exit"))
			os.WriteFile(filepath.Join(dir, "p.h.7.exit"), []byte(c.exit(string(b))), 0o644)
		}
		_, err := trace.ReadRun(dir)
		if !trace.IsDamaged(err) || !strings.Contains(err.Error(), c.file+" is damaged") || !strings.Contains(err.Error(), c.contains) {
			t.Errorf("%s: %v, want %s damaged: %s", c.name, err, c.file, c.contains)
		}
	}
	// the log removed, its exit record left
	gone := t.TempDir()
	writeRank(t, gone, log, len(log))
	os.Remove(filepath.Join(gone, "p.h.7.log"))
	if _, err := trace.ReadRun(gone); !trace.IsDamaged(err) || !strings.Contains(err.Error(), "p.h.7.log is damaged: it is missing") {
		t.Errorf("the log removed: %v", err)
	}
	// records written after the exit record (its end is before theirs)
	dir := t.TempDir()
	writeRank(t, dir, log, len(log)-24)
	if _, err := trace.ReadRun(dir); !trace.IsDamaged(err) || !strings.Contains(err.Error(), "go on past") {
		t.Errorf("records past the end: %v", err)
	}
}

// Records whose words are damaged into any value (a length or an index of
// 2^63 or more, which is negative as an int, or a sum that overflows) are
// decoded without a panic: every kind of meta record, after a call and a
// wildcard event they may refer to.
func TestExtremeWords(t *testing.T) {
	extremes := []uint64{1 << 63, ^uint64(0), ^uint64(0) - 1, 1<<63 + 1, 1 << 62}
	for id := 0; id < 64; id++ {
		for _, x := range extremes {
			for n := 1; n <= 10; n++ {
				for at := 0; at < n; at++ {
					l := tracetest.New(0, 2)
					l.Call("MPI_Init", 0x10, nil, map[string]any{})
					l.Meta(api.MetaWildcard, 0, trace.WildAny, 1, 0, ^uint64(0), 8, 0, 0x20)
					words := make([]uint64, n)
					for i := range words {
						words[i] = 1
					}
					words[at] = x
					l.Meta(id, words...)
					p, err := trace.Decode("p.h.1.log", l.Bytes())
					if err != nil {
						continue
					}
					p.CallList()
				}
			}
		}
	}
}
