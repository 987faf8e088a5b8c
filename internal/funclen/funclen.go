// Package funclen measures the functions of the Go sources and of the C
// layer's hand-written sources, so that a test keeps them within the
// project's limit (Limit lines of body). A function may be longer when
// its comment says why, with the words "over 80 lines" and the reason
// (e.g. "Over 80 lines: one case per kind of record, read in order.").
package funclen

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
)

// Limit is the number of lines a function's body may have, braces
// excluded, without a reason in its comment.
const Limit = 80

// Func is a function and the length of its body.
type Func struct {
	File     string
	Line     int
	Name     string
	Lines    int  // of its body
	Excused  bool // its comment says why it may be long
	Language string
}

func (l Func) String() string {
	return fmt.Sprintf("%s:%d: %s is %d lines long", l.File, l.Line, l.Name, l.Lines)
}

var excuse = regexp.MustCompile(`(?i)over 80 lines`)

// Long reports whether the function's body is over the limit.
func (l Func) Long() bool { return l.Lines > Limit }

// Go returns the functions of a Go source file.
func Go(path string) ([]Func, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	var out []Func
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		lines := fset.Position(fn.Body.Rbrace).Line - fset.Position(fn.Body.Lbrace).Line - 1
		name := fn.Name.Name
		if fn.Recv != nil && len(fn.Recv.List) > 0 {
			name = recvName(fn.Recv.List[0].Type) + "." + name
		}
		out = append(out, Func{File: path, Line: fset.Position(fn.Pos()).Line, Name: name, Lines: lines,
			Excused: fn.Doc != nil && excuse.MatchString(fn.Doc.Text()), Language: "Go"})
	}
	return out, nil
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

// sameLine is a function definition whose brace ends its declarator's
// line, which C does not measure.
var sameLine = regexp.MustCompile(`^[A-Za-z_].*\)\s*\{\s*$`)

// cName finds the name in a C function's declarator.
var cName = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

// C returns the functions of a C source file. Definitions are found as the layer writes them (the opening and
// closing braces of a body alone at column 0; the line before the opening
// brace names the function), and a function's comment is the block
// comment that ends right above its declarator.
func C(path string) ([]Func, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var out []Func
	for i := 0; i < len(lines); i++ {
		if sameLine.MatchString(lines[i]) {
			return nil, fmt.Errorf("%s:%d: a function whose body opens on its declarator's line: put the brace on a line of its own, as the layer does", path, i+1)
		}
		if i == 0 || lines[i] != "{" {
			continue
		}
		end := i + 1
		for end < len(lines) && !strings.HasPrefix(lines[end], "}") {
			end++
		}
		n := end - i - 1
		decl := i - 1 // the declarator may span lines: find its first
		for decl > 0 && lines[decl-1] != "" && !strings.HasSuffix(strings.TrimSpace(lines[decl-1]), "*/") &&
			!strings.HasSuffix(lines[decl-1], ";") && !strings.HasPrefix(lines[decl-1], "}") && !strings.HasPrefix(lines[decl-1], "#") {
			decl--
		}
		name := "?"
		if m := cName.FindStringSubmatch(strings.Join(lines[decl:i], " ")); m != nil {
			name = m[1]
		}
		out = append(out, Func{File: path, Line: decl + 1, Name: name, Lines: n,
			Excused: excuse.MatchString(commentAbove(lines, decl)), Language: "C"})
		i = end
	}
	return out, nil
}

// commentAbove returns the block comment, or the run of line comments,
// that ends on the line above line i.
func commentAbove(lines []string, i int) string {
	j := i - 1
	switch {
	case j < 0:
		return ""
	case strings.HasSuffix(strings.TrimSpace(lines[j]), "*/"):
		for j > 0 && !strings.Contains(lines[j], "/*") {
			j--
		}
	case strings.HasPrefix(strings.TrimSpace(lines[j]), "//"):
		for j > 0 && strings.HasPrefix(strings.TrimSpace(lines[j-1]), "//") {
			j--
		}
	default:
		return ""
	}
	return strings.Join(lines[j:i], "\n")
}
