package layer

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEMapsEveryLayer keeps README's map of the layer ("How it works")
// in step with src/: every directory there has its line, so that someone
// picking the code up finds each part of the layer explained.
func TestREADMEMapsEveryLayer(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := os.ReadDir("src")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		if !strings.Contains(string(readme), "\n  "+d.Name()+"/") {
			t.Errorf("README.md's map of layer/src has no line for %s/", d.Name())
		}
	}
}
