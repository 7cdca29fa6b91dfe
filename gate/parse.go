package gate

import (
	"strconv"
	"strings"
)

// Expectation is one parsed expectation: a boolean expression over metric
// names, judged per run, with an optional k-of-n suffix ("@ 2/3").
type Expectation struct {
	// Source is the expectation as written, suffix included.
	Source string
	// Expr is Source without the "@ k/n" suffix, trimmed: what must hold
	// in one run.
	Expr string
	// K is how many valid runs must pass ("@ K" or "@ K/N"); 0 means every
	// valid run (the default).
	K int
	// N is the number of runs the author wrote after the slash ("@ 2/3"),
	// 0 when absent. It does not change the bar (K does); a variant with a
	// different number of runs gets a note in its verdict.
	N int

	root node
	refs []*ref
}

// ReferencePrefix marks a metric of the reference variant, the one
// --reference-variant names ("reference.p99_ms"): any variant of the
// result, not only the baseline variant (baseline: true).
const ReferencePrefix = "reference."

// OldReferencePrefix is ReferencePrefix's deprecated spelling
// ("baseline.p99_ms"): it reads the same value, and each use is a
// Deprecation.
const OldReferencePrefix = "baseline."

// MaxDepth is how deeply an expectation may nest: parentheses and unary
// minus, counted together along one path ("-(-(x))" is 4 deep). A real
// expectation needs a few levels; the limit keeps a generated one from
// exhausting the stack (a megabyte of "(" used to crash the CLI).
const MaxDepth = 64

// Parse reads one expectation. It checks syntax and types (a comparison
// must compare numbers, && and || join comparisons, the whole is a
// comparison) and nesting (at most MaxDepth levels); Check checks the
// metric names. Errors are *Error values. Parse reads the source only up
// to its first error.
func Parse(src string) (*Expectation, error) {
	p := &parser{src: src, lx: lexer{src: src}}
	p.advance()
	e, err := p.parse()
	if p.lexErr != nil {
		// The parser saw end of input where the lexer failed: the
		// lexer's error is the real one.
		return nil, p.lexErr
	}
	return e, err
}

// parse reads the whole expectation from the parser's first token.
func (p *parser) parse() (*Expectation, error) {
	src := p.src
	e := &Expectation{Source: src}
	root, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF && t.kind != tokAt {
		msg := "expected an operator"
		if t.kind == tokRParen {
			msg = `unmatched ")"`
		}
		return nil, errAt(src, t.pos, "%s, got %s", msg, t.describe())
	}
	if !isBool(root) {
		return nil, errAt(src, root.pos(), "expected a comparison (==, !=, <, <=, >, >=), got a number")
	}
	end := len(src)
	if t := p.peek(); t.kind == tokAt {
		end = t.pos
		p.next()
		if e.K, e.N, err = p.parseRuns(); err != nil {
			return nil, err
		}
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, errAt(src, t.pos, "expected end of input after the run count, got %s", t.describe())
	}
	e.Expr = strings.TrimSpace(src[:end])
	e.root, e.refs = root, p.refs
	return e, nil
}

// parser is a recursive-descent parser reading tokens from its lexer with
// one token of lookahead.
type parser struct {
	src string
	lx  lexer
	tok token // the next token
	// lexErr is the lexer's error once it found one; tok is then an end
	// of input at the offending character.
	lexErr *Error
	depth  int // parentheses and unary minus open on the current path
	refs   []*ref
}

// advance reads the next token into p.tok.
func (p *parser) advance() {
	if p.lexErr != nil {
		return
	}
	t, err := p.lx.next()
	if err != nil {
		p.lexErr = err
		t = token{kind: tokEOF, pos: p.lx.i}
	}
	p.tok = t
}

func (p *parser) peek() token { return p.tok }
func (p *parser) next() token {
	t := p.tok
	if t.kind != tokEOF {
		p.advance()
	}
	return t
}

// enter counts one more level of nesting at t, the "(" or unary "-" that
// opens it; past MaxDepth it is an error at t. leave closes the level.
func (p *parser) enter(t token) error {
	p.depth++
	if p.depth > MaxDepth {
		return errAt(p.src, t.pos, "nested more than %d levels deep (parentheses and unary minus); an expectation needs a few", MaxDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// isOp reports whether the next token is one of the operators ops.
func (p *parser) isOp(ops ...string) bool {
	t := p.peek()
	if t.kind != tokOp {
		return false
	}
	for _, o := range ops {
		if t.text == o {
			return true
		}
	}
	return false
}

// parseOr: and { "||" and }
func (p *parser) parseOr() (node, error) {
	return p.parseLogic("||", p.parseAnd)
}

// parseAnd: comparison { "&&" comparison }
func (p *parser) parseAnd() (node, error) {
	return p.parseLogic("&&", p.parseCmp)
}

func (p *parser) parseLogic(op string, sub func() (node, error)) (node, error) {
	x, err := sub()
	if err != nil {
		return nil, err
	}
	for p.isOp(op) {
		t := p.next()
		y, err := sub()
		if err != nil {
			return nil, err
		}
		for _, side := range []node{x, y} {
			if !isBool(side) {
				return nil, errAt(p.src, side.pos(), "%q joins comparisons, but this side is a number", op)
			}
		}
		x = &logic{p: t.pos, op: op, x: x, y: y}
	}
	return x, nil
}

var cmpOps = []string{"==", "!=", "<", "<=", ">", ">="}

// parseCmp: sum [ cmpOp sum ] — comparisons do not chain.
func (p *parser) parseCmp() (node, error) {
	x, err := p.parseSum()
	if err != nil {
		return nil, err
	}
	if !p.isOp(cmpOps...) {
		return x, nil
	}
	t := p.next()
	y, err := p.parseSum()
	if err != nil {
		return nil, err
	}
	for _, side := range []node{x, y} {
		if isBool(side) {
			return nil, errAt(p.src, t.pos, "%q compares numbers, but a side is already a comparison (join comparisons with &&)", t.text)
		}
	}
	if t.text != "==" && t.text != "!=" {
		for _, side := range []node{x, y} {
			if _, ok := side.(*nullLit); ok {
				return nil, errAt(p.src, side.pos(), "null can only be compared with == or !=")
			}
		}
	}
	if p.isOp(cmpOps...) {
		return nil, errAt(p.src, p.peek().pos, "comparisons do not chain: join them with &&")
	}
	return &cmp{p: t.pos, op: t.text, x: x, y: y}, nil
}

// parseSum: product { ("+" | "-") product }
func (p *parser) parseSum() (node, error) {
	return p.parseArith([]string{"+", "-"}, p.parseProduct)
}

// parseProduct: unary { ("*" | "/") unary }
func (p *parser) parseProduct() (node, error) {
	return p.parseArith([]string{"*", "/"}, p.parseUnary)
}

func (p *parser) parseArith(ops []string, sub func() (node, error)) (node, error) {
	x, err := sub()
	if err != nil {
		return nil, err
	}
	for p.isOp(ops...) {
		t := p.next()
		y, err := sub()
		if err != nil {
			return nil, err
		}
		for _, side := range []node{x, y} {
			if isBool(side) {
				return nil, errAt(p.src, t.pos, "%q needs numbers, but a side is a comparison (add parentheses?)", t.text)
			}
			if _, ok := side.(*nullLit); ok {
				return nil, errAt(p.src, side.pos(), "null can only be compared with == or !=")
			}
		}
		x = &arith{p: t.pos, op: t.text, x: x, y: y}
	}
	return x, nil
}

// parseUnary: "-" unary | primary
func (p *parser) parseUnary() (node, error) {
	if p.isOp("-") {
		t := p.next()
		if err := p.enter(t); err != nil {
			return nil, err
		}
		x, err := p.parseUnary()
		p.leave()
		if err != nil {
			return nil, err
		}
		if isBool(x) {
			return nil, errAt(p.src, t.pos, `unary "-" needs a number`)
		}
		if _, ok := x.(*nullLit); ok {
			return nil, errAt(p.src, x.pos(), "null can only be compared with == or !=")
		}
		return &neg{p: t.pos, x: x}, nil
	}
	return p.parsePrimary()
}

// parsePrimary: NUMBER | true | false | null | NAME | "(" or ")"
func (p *parser) parsePrimary() (node, error) {
	t := p.next()
	switch t.kind {
	case tokNum:
		v, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return nil, errAt(p.src, t.pos, "bad number %q", t.text)
		}
		return &numLit{p: t.pos, v: v}, nil
	case tokIdent:
		switch t.text {
		case "true":
			return &numLit{p: t.pos, v: 1}, nil
		case "false":
			return &numLit{p: t.pos, v: 0}, nil
		case "null":
			return &nullLit{p: t.pos}, nil
		}
		r := &ref{p: t.pos, text: t.text, name: t.text}
		if name, ok := strings.CutPrefix(t.text, ReferencePrefix); ok {
			r.name, r.reference = name, true
		} else if name, ok := strings.CutPrefix(t.text, OldReferencePrefix); ok {
			r.name, r.reference, r.old = name, true, true
		}
		p.refs = append(p.refs, r)
		return r, nil
	case tokLParen:
		if err := p.enter(t); err != nil {
			return nil, err
		}
		x, err := p.parseOr()
		p.leave()
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tokRParen {
			return nil, errAt(p.src, c.pos, `expected ")" to close the "(" at col %d, got %s`, errAt(p.src, t.pos, "").Col, c.describe())
		}
		return x, nil
	}
	return nil, errAt(p.src, t.pos, `expected a number, metric name or "(" at %s`, t.describe())
}

// parseRuns reads the k-of-n suffix after "@": K or K/N, 1 <= K <= N.
func (p *parser) parseRuns() (k, n int, err error) {
	num := func(what string) (int, error) {
		t := p.next()
		v, err := strconv.Atoi(t.text)
		if t.kind != tokNum || err != nil || v < 1 {
			return 0, errAt(p.src, t.pos, `expected %s (a whole number >= 1) after "@", got %s`, what, t.describe())
		}
		return v, nil
	}
	if k, err = num("a run count"); err != nil {
		return 0, 0, err
	}
	if p.isOp("/") {
		p.next()
		t := p.peek()
		if n, err = num("a run total"); err != nil {
			return 0, 0, err
		}
		if k > n {
			return 0, 0, errAt(p.src, t.pos, "@ %d/%d: cannot need more runs than the total", k, n)
		}
	}
	return k, n, nil
}

// UsesReference reports whether the expectation refers to reference.NAME
// (or its deprecated spelling baseline.NAME).
func (e *Expectation) UsesReference() bool {
	for _, r := range e.refs {
		if r.reference {
			return true
		}
	}
	return false
}

// Deprecation is one use of a deprecated spelling in an expectation:
// baseline.NAME for reference.NAME.
type Deprecation struct {
	// Source is the expectation as written; Col the 1-based column of
	// the old spelling in it.
	Source string
	Col    int
	// Old is the reference as written ("baseline.p99_ms"), New the
	// spelling to use instead ("reference.p99_ms").
	Old, New string
}

// String reads like an error at the same place:
//
//	expect "p99_ms < 1.3 * baseline.p99_ms": col 16: baseline.p99_ms is deprecated: use reference.p99_ms
func (d Deprecation) String() string {
	e := &Error{Source: d.Source, Col: d.Col, Msg: d.Old + " is deprecated: use " + d.New}
	return e.Error()
}

// Deprecations returns one Deprecation per use of a deprecated spelling,
// in source order.
func (e *Expectation) Deprecations() []Deprecation {
	var out []Deprecation
	for _, r := range e.refs {
		if r.old {
			out = append(out, Deprecation{Source: e.Source, Col: errAt(e.Source, r.p, "").Col, Old: r.text, New: ReferencePrefix + r.name})
		}
	}
	return out
}

// Names returns the metric references in source order, without
// duplicates, as written ("failed", "reference.p99_ms").
func (e *Expectation) Names() []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range e.refs {
		if !seen[r.text] {
			seen[r.text] = true
			out = append(out, r.text)
		}
	}
	return out
}

// String returns the source.
func (e *Expectation) String() string { return e.Source }
