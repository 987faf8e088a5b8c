package driver

import "testing"

func TestParseSize(t *testing.T) {
	for s, want := range map[string]uint64{"256MiB": 256 << 20, "1GiB": 1 << 30, "64M": 64 << 20, "2g": 2 << 30, "1048576": 1 << 20, "512KiB": 0, "": 0, "x": 0, "12MB": 12 << 20} {
		got, err := ParseSize(s)
		if want == 0 {
			if err == nil {
				t.Errorf("ParseSize(%q) = %d, want an error", s, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
}
