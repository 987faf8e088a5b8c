package refdoc

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every relative link and #anchor between the Markdown pages (README.md,
// docs/) resolves.
func TestLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	pages := []string{filepath.Join(root, "README.md")}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			pages = append(pages, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) < 10 {
		t.Fatalf("only %d pages found", len(pages))
	}
	links := 0
	for _, p := range pages {
		pg, err := Read(p)
		if err != nil {
			t.Fatal(err)
		}
		links += len(pg.Links)
		bad, err := Broken(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			t.Error(b)
		}
	}
	t.Logf("%d pages, %d links", len(pages), links)
}

// Anchors are GitHub's, repeated headings included.
func TestSlug(t *testing.T) {
	for h, want := range map[string]string{
		"Replays in parallel (`--jobs`)":                "replays-in-parallel---jobs",
		"Where a replay's time goes":                    "where-a-replays-time-goes",
		"The `deadlock` check":                          "the-deadlock-check",
		"Scaling: 2 to 256 ranks, and a model of 1,024": "scaling-2-to-256-ranks-and-a-model-of-1024",
		"Launchers, clusters and Slurm":                 "launchers-clusters-and-slurm",
		"One-sided communication (RMA stencil)":         "one-sided-communication-rma-stencil",
		"See [the guide](guide.md) now":                 "see-the-guide-now",
		"snake_case stays":                              "snake_case-stays",
	} {
		if got := Slug(h); got != want {
			t.Errorf("Slug(%q) = %q, want %q", h, got, want)
		}
	}
	a := newAnchors()
	if a.add("truncation") != "truncation" || a.add("truncation") != "truncation-1" || a.add("Truncation") != "truncation-2" {
		t.Error("repeated headings do not get -1, -2")
	}
}

// A broken file link, a missing anchor, and links inside code are told apart.
func TestBrokenFound(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("b.md", "# B\n\n## Part two\n")
	write("a.md", "# A\n\n[ok](b.md#part-two) [self](#a) [gone](c.md) [no anchor](b.md#part-three)\n"+
		"`[in code](x.md)`\n\n```\n[in a block](y.md)\n```\n[site](https://example.org/x)\n")
	bad, err := Broken(filepath.Join(dir, "a.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 2 || !strings.Contains(bad[0], "c.md") || !strings.Contains(bad[1], "part-three") {
		t.Errorf("broken links found: %q, want c.md and b.md#part-three", bad)
	}
}
