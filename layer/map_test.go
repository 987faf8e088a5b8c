package layer

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEMapsEveryLayer keeps the map of the code in
// docs/architecture.md ("The map of the code") in step with src/: every
// directory there has its line, so that someone picking the code up finds
// each part of the layer explained.
func TestREADMEMapsEveryLayer(t *testing.T) {
	readme, err := os.ReadFile("../docs/architecture.md")
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
			t.Errorf("docs/architecture.md's map of layer/src has no line for %s/", d.Name())
		}
	}
}
