package trace

import (
	"encoding/binary"

	"mpivet/api"
	"testing"
)

// metaWords packs a string as the layer does: its length, then its bytes
// in words.
func metaWords(s string) []uint64 {
	b := make([]byte, (len(s)+7)/8*8)
	copy(b, s)
	w := []uint64{uint64(len(s))}
	for i := 0; i < len(b); i += 8 {
		w = append(w, binary.LittleEndian.Uint64(b[i:]))
	}
	return w
}

// A Python site (MetaPySite) becomes a mapping of its own that names its
// line, and survives the maps written again after it (MetaMaps replaces
// the file mappings only).
func TestPySite(t *testing.T) {
	p := &Process{}
	site := uint64(0x7f0000001234)
	w := append([]uint64{site, 0x401000, 14, 0}, metaWords("/home/u/race.py")[1:]...)
	w[3] = uint64(len("/home/u/race.py"))
	w = append(w, metaWords("worker")...)
	p.decodeMeta(api.MetaPySite, w)
	maps := "00400000-00401000 r-xp 00000000 08:01 42 /usr/bin/python3.11\n"
	p.decodeMeta(api.MetaMaps, metaWords(maps))
	var py *Mapping
	for i := range p.Maps {
		if p.Maps[i].Py != nil {
			py = &p.Maps[i]
		}
	}
	if py == nil || len(p.Maps) != 2 {
		t.Fatalf("maps %+v: want the file mapping and the Python site", p.Maps)
	}
	if py.Start > site-1 || py.End <= site || py.Py.File != "/home/u/race.py" || py.Py.Line != 14 || py.Py.Function != "worker" || py.Py.CPC != 0x401000 {
		t.Errorf("site mapping %+v %+v", *py, *py.Py)
	}
	// a torn record is skipped
	q := &Process{}
	q.decodeMeta(api.MetaPySite, w[:5])
	if len(q.Maps) != 0 {
		t.Errorf("a torn record gave %+v", q.Maps)
	}
}
