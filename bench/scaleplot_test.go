package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A CSV as runScale writes it: two rank counts, native and the two clock modes.
const scaleCSV = `program,ranks,mode,rep,wall_s,pb_bytes_per_msg,coll_bytes,rank_rss_kb,rank_rss_max_kb,read_s,analysis_s,wild_events,alternatives,mpivet_peak_kb,records_kb,load1
halo,2,native,0,0.5,0,0,10000,10100,0,0,0,0,0,0,1.5
halo,2,lamport,0,0.7,24,8,15000,15100,0.01,0.02,0,0,20000,100,1.5
halo,2,vector,0,0.8,32,16,15500,15600,0.01,0.03,0,0,21000,120,1.5
halo,4,native,0,0.6,0,0,12000,12100,0,0,0,0,0,0,2
halo,4,native,1,1.0,0,0,12000,12100,0,0,0,0,0,0,2
halo,4,native,2,0.8,0,0,12000,12100,0,0,0,0,0,0,2
halo,4,lamport,0,1.2,24,8,19000,19100,0.02,0.04,0,0,22000,200,2
halo,4,vector,0,1.6,48,32,19500,19600,0.02,0.05,0,0,23000,240,2
`

func TestScaleCSVToPlotsAndTable(t *testing.T) {
	rows, err := readScaleCSV(strings.NewReader(scaleCSV))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 8 || rows[4].Rep != 1 || rows[7].PBBytesMsg != 48 {
		t.Fatalf("rows read wrong: %+v", rows)
	}
	r := ratios(rows)
	// 4 ranks: the median of the native runs is 0.8 s, so vector's 1.6 s is 2x.
	if got := r[scaleKey{"halo", "vector"}][4]; got != 2 {
		t.Errorf("vector ratio at 4 ranks = %v, want 2 (over the native median)", got)
	}
	if got := r[scaleKey{"halo", "lamport"}][2]; got < 1.39 || got > 1.41 {
		t.Errorf("lamport ratio at 2 ranks = %v, want 1.4", got)
	}
	dir := t.TempDir()
	if err := plotScale(rows, dir); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"scaling-overhead.png", "scaling-piggyback.png", "scaling-rank-memory.png", "scaling-analysis.png", "scaling-mpivet-memory.png"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() < 300 || b.Dy() < 200 {
			t.Errorf("%s is %v", name, b)
		}
	}
	var table bytes.Buffer
	printScaleTable(&table, rows)
	for _, want := range []string{"| halo | 4 | 0.80 | vector | 1.60 | 2.00× | 48 |", "| halo | 2 | 0.50 | lamport | 0.70 | 1.40× | 24 |"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
}

func TestScaleCSVRejectsOtherFiles(t *testing.T) {
	if _, err := readScaleCSV(strings.NewReader("a,b\n1,2\n")); err == nil {
		t.Error("a CSV of other columns was read")
	}
	bad := strings.Replace(scaleCSV, "halo,2,lamport,0,0.7", "halo,2,lamport,0,fast", 1)
	if _, err := readScaleCSV(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), "wall_s") {
		t.Errorf("a bad number gave %v", err)
	}
}

func TestParseRanks(t *testing.T) {
	ns, err := parseRanks("8, 2,4")
	if err != nil || len(ns) != 3 || ns[0] != 2 || ns[2] != 8 {
		t.Errorf("parseRanks = %v, %v", ns, err)
	}
	if _, err := parseRanks("2,1"); err == nil {
		t.Error("1 rank accepted")
	}
}
