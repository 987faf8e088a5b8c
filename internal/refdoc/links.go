package refdoc

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// anchors gives headings their GitHub anchors, in page order: a heading
// repeated gets -1, -2, ... after its first.
type anchors map[string]int

func newAnchors() anchors { return anchors{} }

func (a anchors) add(heading string) string {
	id := Slug(heading)
	n := a[id]
	a[id] = n + 1
	if n > 0 {
		id = fmt.Sprintf("%s-%d", id, n)
	}
	return id
}

var (
	punct   = regexp.MustCompile(`[^\p{L}\p{N}\- _]`)
	mdLink  = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	heading = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	code    = regexp.MustCompile("`([^`]*)`")
	htmlSrc = regexp.MustCompile(`<(?:img|a)\s[^>]*(?:src|href)="([^"]+)"`)
)

// Slug is the anchor GitHub gives a heading: lower case, Markdown marks and
// punctuation other than '-' and '_' dropped, spaces turned into '-'.
func Slug(heading string) string {
	h := code.ReplaceAllString(heading, "$1")
	h = mdLink.ReplaceAllStringFunc(h, func(l string) string { return l[strings.Index(l, "[")+1 : strings.Index(l, "]")] })
	h = strings.ToLower(strings.TrimSpace(h))
	h = punct.ReplaceAllString(h, "")
	return strings.ReplaceAll(h, " ", "-")
}

// Page is what a Markdown file offers and asks for: its anchors, and its
// links with the line each is on (outside code blocks).
type Page struct {
	Anchors map[string]bool
	Links   []Link
}

// Link is one link of a page.
type Link struct {
	Line   int
	Target string
}

// Read reads a Markdown page as GitHub renders it.
func Read(path string) (*Page, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p := &Page{Anchors: map[string]bool{}}
	ids := newAnchors()
	fence := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		if m := heading.FindStringSubmatch(line); m != nil {
			p.Anchors[ids.add(m[2])] = true
		}
		for _, m := range mdLink.FindAllStringSubmatch(code.ReplaceAllString(line, ""), -1) {
			p.Links = append(p.Links, Link{n, m[1]})
		}
		for _, m := range htmlSrc.FindAllStringSubmatch(line, -1) {
			p.Links = append(p.Links, Link{n, m[1]})
		}
	}
	return p, sc.Err()
}

// Broken lists the links of the page at path that do not resolve: a
// relative path that does not exist, or an #anchor that the page it
// points to (a Markdown file) does not have. Links to other sites are not
// followed.
func Broken(path string) ([]string, error) {
	p, err := Read(path)
	if err != nil {
		return nil, err
	}
	var bad []string
	for _, l := range p.Links {
		if strings.Contains(l.Target, "://") || strings.HasPrefix(l.Target, "mailto:") {
			continue
		}
		file, frag, _ := strings.Cut(l.Target, "#")
		target := path
		if file != "" {
			target = filepath.Join(filepath.Dir(path), file)
		}
		if _, err := os.Stat(target); err != nil {
			bad = append(bad, fmt.Sprintf("%s:%d: %s: no such file", path, l.Line, l.Target))
			continue
		}
		if frag == "" {
			continue
		}
		if !strings.HasSuffix(target, ".md") {
			bad = append(bad, fmt.Sprintf("%s:%d: %s: an anchor in a file that is not Markdown", path, l.Line, l.Target))
			continue
		}
		tp, err := Read(target)
		if err != nil {
			return nil, err
		}
		if !tp.Anchors[frag] {
			bad = append(bad, fmt.Sprintf("%s:%d: %s: %s has no heading with that anchor", path, l.Line, l.Target, target))
		}
	}
	return bad, nil
}
