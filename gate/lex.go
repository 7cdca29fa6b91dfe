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
// source and a caret under column N.
func (e *Error) Error() string {
	return fmt.Sprintf("expect %q: col %d: %s", e.Source, e.Col, e.Msg)
}

// Caret returns two lines: the source indented by two spaces, and a caret
// under the offending column, for printing below Error.
func (e *Error) Caret() string {
	return "  " + e.Source + "\n  " + strings.Repeat(" ", max(e.Col-1, 0)) + "^"
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

// lex splits src into tokens, ending with one tokEOF.
func lex(src string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case isDigit(c):
			j := i
			for j < len(src) && isDigit(src[j]) {
				j++
			}
			if j < len(src) && src[j] == '.' {
				j++
				if j == len(src) || !isDigit(src[j]) {
					return nil, errAt(src, j, "expected a digit after the decimal point")
				}
				for j < len(src) && isDigit(src[j]) {
					j++
				}
			}
			if j < len(src) && isIdentStart(src[j]) {
				return nil, errAt(src, j, "unexpected %q after number %q (units are not part of the language: write milliseconds as a plain number)", src[j], src[i:j])
			}
			toks = append(toks, token{tokNum, src[i:j], i})
			i = j
		case isIdentStart(c):
			j := i
			for j < len(src) && isIdent(src[j]) {
				j++
			}
			toks = append(toks, token{tokIdent, src[i:j], i})
			i = j
		case c == '(':
			toks = append(toks, token{tokLParen, "(", i})
			i++
		case c == ')':
			toks = append(toks, token{tokRParen, ")", i})
			i++
		case c == '@':
			toks = append(toks, token{tokAt, "@", i})
			i++
		default:
			op := ""
			for _, o := range []string{"==", "!=", "<=", ">=", "&&", "||", "<", ">", "+", "-", "*", "/"} {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
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
				return nil, errAt(src, i, "unexpected character %q%s", r, hint)
			}
			toks = append(toks, token{tokOp, op, i})
			i += len(op)
		}
	}
	return append(toks, token{tokEOF, "", len(src)}), nil
}
