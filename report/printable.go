package report

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Printable makes text that the report quotes from the program (its
// output, file and function names, its arguments) safe to print on a
// terminal: every control character but newline and tab (and a carriage
// return before a newline) is written as an escape (ESC as \x1b, a C1
// control as \u009b), and so are bytes that are not UTF-8 and the
// characters that reorder text (bidirectional overrides), so that the
// program cannot clear the screen, move the cursor, set the terminal's
// title or make a line look like mpivet's. The JSON and SARIF encoders
// escape control characters themselves, and HTML shows them as text.
func Printable(s string) string {
	clean := true
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unsafeRune(r, n) && !crlf(s, i) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case crlf(s, i):
			b.WriteByte('\r')
		case r == utf8.RuneError && n <= 1, r < 0x80 && unsafeRune(r, n):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r, n):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// crlf: s[i] is the carriage return of a line's "\r\n" end, harmless.
func crlf(s string, i int) bool { return s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' }

// unsafeRune: a control character other than newline and tab, a byte
// that is not UTF-8, or a bidirectional override.
func unsafeRune(r rune, n int) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r == utf8.RuneError && n <= 1:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
