package scenarios

import (
	"fmt"

	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/token"
)

// MaxNesting is how deeply a scenario file, or a value given to --set or a
// variant, may nest YAML collections. A scenario nests four or five levels
// (load.mix[0].path); the YAML parser's time and memory grow with the
// square of the depth (25 600 levels of "[" took 1.5 s and 1 GB; a
// megabyte of them ran for minutes), so deeper text is refused before it
// is parsed.
const MaxNesting = 64

// tooDeep returns the line of the first token of text that is nested more
// than MaxNesting levels deep, and the top-level key it is under ("" when
// none); line 0 when no token is that deep. It reads the tokens of
// the YAML parser's own lexer (so quotes, comments and block scalars are
// read as the parser reads them), which costs time linear in the text.
// Flow collections ("[", "{") count one level each until they close;
// block collections count one level per indentation column deeper than
// the enclosing one, for a "- " entry, a "? " key, or a key before ":".
func tooDeep(text string) (line int, key string) {
	var cols []int // the columns of the open block collections
	flow := 0
	var prev *token.Token
	for _, tk := range lexer.Tokenize(text) {
		if tk.Position == nil {
			continue
		}
		col := 0 // the column of a block entry this token makes, if any
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			flow++
		case token.SequenceEndType, token.MappingEndType:
			flow = max(flow-1, 0)
		case token.SequenceEntryType, token.MappingKeyType:
			col = tk.Position.Column
		case token.MappingValueType:
			if prev != nil && prev.Position != nil && prev.Position.Line == tk.Position.Line {
				col = prev.Position.Column
			}
		case token.DocumentHeaderType, token.DocumentEndType:
			cols, flow = cols[:0], 0
		}
		if col > 0 && flow == 0 {
			for len(cols) > 0 && cols[len(cols)-1] > col {
				cols = cols[:len(cols)-1]
			}
			if len(cols) == 0 || cols[len(cols)-1] < col {
				cols = append(cols, col)
			}
			if len(cols) == 1 {
				key = ""
				if tk.Type == token.MappingValueType {
					key = prev.Value
				}
			}
		}
		if len(cols)+flow > MaxNesting {
			return tk.Position.Line, key
		}
		if tk.Type != token.CommentType {
			prev = tk
		}
	}
	return 0, ""
}

// deepMsg is the message of an error for text nested too deeply.
var deepMsg = fmt.Sprintf("nested more than %d levels deep (YAML lists and mappings); a scenario nests a few", MaxNesting)
