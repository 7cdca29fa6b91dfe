package gate

// node is an expression tree node; pos is a byte offset in Source.
type node interface{ pos() int }

type (
	// numLit is a number, or true (1) / false (0).
	numLit struct {
		p int
		v float64
	}
	// nullLit is the null literal, allowed only beside == and !=.
	nullLit struct{ p int }
	// ref is a metric name, of the run or of the reference variant.
	ref struct {
		p         int
		text      string // as written, "reference.p99_ms"
		name      string // the metric, "p99_ms"
		reference bool   // reference.NAME (or baseline.NAME)
		old       bool   // written baseline.NAME, the deprecated spelling
	}
	// neg is unary minus.
	neg struct {
		p int
		x node
	}
	// arith is + - * /.
	arith struct {
		p    int
		op   string
		x, y node
	}
	// cmp is == != < <= > >=; it yields a truth value.
	cmp struct {
		p    int
		op   string
		x, y node
	}
	// logic is && or ||, over truth values.
	logic struct {
		p    int
		op   string
		x, y node
	}
)

func (n *numLit) pos() int  { return n.p }
func (n *nullLit) pos() int { return n.p }
func (n *ref) pos() int     { return n.p }
func (n *neg) pos() int     { return n.p }
func (n *arith) pos() int   { return n.p }
func (n *cmp) pos() int     { return n.p }
func (n *logic) pos() int   { return n.p }

// isBool reports whether n yields a truth value (a comparison or a
// conjunction) rather than a number.
func isBool(n node) bool {
	switch n.(type) {
	case *cmp, *logic:
		return true
	}
	return false
}
