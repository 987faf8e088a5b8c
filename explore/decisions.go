package explore

import (
	"mpivet/rundir"

	"bufio"
	"bytes"
	"fmt"
	"hash/crc32"
	"os"
	"sort"
	"strings"

	"mpivet/trace"
)

// WriteDecisions writes the decision file the layer reads (layer.conf's
// decisions=PATH): "rank event source kind" lines, each rank's events in
// order (a hold-back, kind HoldKind, is "rank position event kind"), then a line that closes the file, "# N decisions, crc32c X": the
// number of lines before it and the CRC32C of their bytes, which
// ReadDecisions checks (the layer skips the line).
func WriteDecisions(path string, ds []Decision) error {
	ds = inOrder(ds)
	var b bytes.Buffer
	for _, d := range ds {
		fmt.Fprintf(&b, "%d %d %d %d\n", d.Rank, d.Event, d.Source, d.Kind)
	}
	fmt.Fprintf(&b, "# %d decisions, crc32c %08x\n", len(ds), crc32.Checksum(b.Bytes(), castagnoli))
	return rundir.WriteFile(path, b.Bytes())
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// inOrder returns ds sorted as a decision file lists them: by rank, then
// event (several decisions of one event as they were).
func inOrder(ds []Decision) []Decision {
	ds = append([]Decision(nil), ds...)
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].Rank != ds[j].Rank {
			return ds[i].Rank < ds[j].Rank
		}
		return ds[i].Event < ds[j].Event
	})
	return ds
}

// ReadDecisions reads a file WriteDecisions wrote. A file that is not
// whole or not as written (its closing line missing, or its count or
// CRC32C not those of its lines) is a trace.DamageError: replaying it
// would force other matches than the ones it was written with.
func ReadDecisions(path string) ([]Decision, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseDecisions(path, data)
}

func parseDecisions(path string, data []byte) ([]Decision, error) {
	damaged := func(f string, a ...any) error { return &trace.DamageError{File: path, What: fmt.Sprintf(f, a...)} }
	body := data
	if i := bytes.LastIndexByte(bytes.TrimSuffix(data, []byte("\n")), '\n'); i >= 0 {
		body = data[:i+1]
	} else {
		body = nil
	}
	last := strings.TrimSuffix(string(data[len(body):]), "\n")
	var n int
	var sum uint32
	if len(data) == 0 || data[len(data)-1] != '\n' || !strings.HasPrefix(last, "# ") {
		return nil, damaged("it does not end with its closing line (\"# N decisions, crc32c X\"): cut short?")
	}
	if k, err := fmt.Sscanf(last, "# %d decisions, crc32c %08x", &n, &sum); k != 2 || err != nil || fmt.Sprintf("# %d decisions, crc32c %08x", n, sum) != last {
		return nil, damaged("its closing line %q is not \"# N decisions, crc32c X\"", last)
	}
	if got := crc32.Checksum(body, castagnoli); got != sum {
		return nil, damaged("the CRC32C of its decisions is %08x, its closing line says %08x (changed since it was written)", got, sum)
	}
	var ds []Decision
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		var d Decision
		if k, err := fmt.Sscanf(sc.Text(), "%d %d %d %d", &d.Rank, &d.Event, &d.Source, &d.Kind); k != 4 || err != nil || fmt.Sprintf("%d %d %d %d", d.Rank, d.Event, d.Source, d.Kind) != sc.Text() {
			return nil, damaged("line %d, %q, is not \"rank event source kind\"", len(ds)+1, sc.Text())
		}
		ds = append(ds, d)
	}
	if len(ds) != n {
		return nil, damaged("it holds %d decisions, its closing line says %d", len(ds), n)
	}
	return ds, nil
}

// CheckDecisions checks decisions kept for an interleaving (those read
// from path) against the decisions of its records: each event the kept
// ones force must be forced the same way by the records. (The records may
// have more: a run whose first reading was cut short.)
func CheckDecisions(path string, kept, records []Decision) error {
	type key struct {
		rank  int
		event uint64
	}
	outcomes := func(ds []Decision) map[key]string {
		m := map[key]string{}
		for _, d := range ds {
			m[key{d.Rank, d.Event}] += fmt.Sprintf(" %d/%d", d.Source, d.Kind)
		}
		return m
	}
	have := outcomes(records)
	var forced []Decision // hold-backs are not outcomes: the records have none
	for _, d := range kept {
		if d.Kind != HoldKind {
			forced = append(forced, d)
		}
	}
	for k, v := range outcomes(forced) {
		if have[k] != v {
			return &trace.DamageError{File: path, What: fmt.Sprintf("it does not match the interleaving's records: rank %d's %s is forced to (source/kind)%s there, to%s by the records",
				k.rank, trace.EventName(k.event), v, orNone(have[k]))}
		}
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return " nothing"
	}
	return s
}
