package gate

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// tokKind is the kind of a lexical token.
type tokKind int

const (
	tokEOF tokKind = iota
	tokNum
	tokIdent
	tokOp     // == != < <= > >= && || + - * /
	tokLParen // (
	tokRParen // )
	tokAt     // @
)

// token is one lexical token; pos is its byte offset in the source.
type token struct {
	kind tokKind
	text string
	pos  int
}

// describe names a token for an error message.
func (t token) describe() string {
	if t.kind == tokEOF {
		return "end of input"
	}
	return fmt.Sprintf("%q", t.text)
}

// Error is a parse or name error in an expectation, at a 1-based column
// (counted in characters) of its source.
type Error struct {
	// Source is the whole expectation as written.
	Source string
	// Col is the 1-based column of the offending character (len+1 for
	// "end of input").
	Col int
	// Msg says what was wrong.
	Msg string
}

// Error returns `expect "SRC": col N: MSG` on one line; Caret gives the
// source and a caret under column N. A source longer than ExcerptChars
// characters is quoted only around column N, cut ends marked "…", with
// its length: `expect "…((((…" (1048000 characters): col N: MSG`.
func (e *Error) Error() string {
	text, _, cut := e.excerpt()
	if cut {
		return fmt.Sprintf("expect %q (%d characters): col %d: %s", text, utf8.RuneCountInString(e.Source), e.Col, e.Msg)
	}
	return fmt.Sprintf("expect %q: col %d: %s", text, e.Col, e.Msg)
}

// Caret returns two lines: the source (or the excerpt Error quotes)
// indented by two spaces, and a caret under the offending column, for
// printing below Error.
func (e *Error) Caret() string {
	text, col, _ := e.excerpt()
	return "  " + text + "\n  " + strings.Repeat(" ", max(col-1, 0)) + "^"
}

// ExcerptChars is the most of an expectation's source an error quotes: a
// longer one is quoted as a window of this many characters around the
// offending column, so a refused megabyte is not echoed back.
const ExcerptChars = 80

// excerpt returns what Error and Caret show of Source, the 1-based column
// of Col in it, and whether Source was cut.
func (e *Error) excerpt() (text string, col int, cut bool) {
	n := utf8.RuneCountInString(e.Source)
	if n <= ExcerptChars {
		return e.Source, e.Col, false
	}
	// Keep the offending column in the window, a third of the way in.
	from := min(max(e.Col-1-ExcerptChars/3, 0), n-ExcerptChars)
	to := from + ExcerptChars
	text = e.Source[runeOffset(e.Source, from):runeOffset(e.Source, to)]
	col = e.Col - from
	if from > 0 {
		text, col = "…"+text, col+1
	}
	if to < n {
		text += "…"
	}
	return text, col, true
}

// runeOffset is the byte offset of the k-th character (0-based) of s, or
// len(s) past its end.
func runeOffset(s string, k int) int {
	for i := range s {
		if k == 0 {
			return i
		}
		k--
	}
	return len(s)
}

// errAt builds an *Error at byte offset pos of src.
func errAt(src string, pos int, format string, args ...any) *Error {
	return &Error{Source: src, Col: utf8.RuneCountInString(src[:pos]) + 1, Msg: fmt.Sprintf(format, args...)}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
func isIdent(c byte) bool { return isIdentStart(c) || isDigit(c) || c == '.' }

// lexer splits src into tokens on demand, one at a time, so the parser
// stops reading at its first error: a long source costs only what was read
// before it.
type lexer struct {
	src string
	i   int // byte offset of the next character to read
}

// next returns the next token, a tokEOF at the end of src, or an error at
// the first character that starts no token.
func (l *lexer) next() (token, *Error) {
	src := l.src
	for l.i < len(src) {
		i := l.i
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			l.i++
			continue
		case isDigit(c):
			j := i
			for j < len(src) && isDigit(src[j]) {
				j++
			}
			if j < len(src) && src[j] == '.' {
				j++
				if j == len(src) || !isDigit(src[j]) {
					return token{}, errAt(src, j, "expected a digit after the decimal point")
				}
				for j < len(src) && isDigit(src[j]) {
					j++
				}
			}
			if j < len(src) && isIdentStart(src[j]) {
				return token{}, errAt(src, j, "unexpected %q after number %q (units are not part of the language: write milliseconds as a plain number)", src[j], src[i:j])
			}
			l.i = j
			return token{tokNum, src[i:j], i}, nil
		case isIdentStart(c):
			j := i
			for j < len(src) && isIdent(src[j]) {
				j++
			}
			l.i = j
			return token{tokIdent, src[i:j], i}, nil
		case c == '(':
			l.i++
			return token{tokLParen, "(", i}, nil
		case c == ')':
			l.i++
			return token{tokRParen, ")", i}, nil
		case c == '@':
			l.i++
			return token{tokAt, "@", i}, nil
		}
		for _, o := range []string{"==", "!=", "<=", ">=", "&&", "||", "<", ">", "+", "-", "*", "/"} {
			if strings.HasPrefix(src[i:], o) {
				l.i += len(o)
				return token{tokOp, o, i}, nil
			}
		}
		r, _ := utf8.DecodeRuneInString(src[i:])
		hint := ""
		switch r {
		case '=':
			hint = ` (did you mean "=="?)`
		case '&':
			hint = ` (did you mean "&&"?)`
		case '|':
			hint = ` (did you mean "||"?)`
		case '!':
			hint = ` (did you mean "!="?)`
		}
		return token{}, errAt(src, i, "unexpected character %q%s", r, hint)
	}
	return token{tokEOF, "", len(src)}, nil
}
