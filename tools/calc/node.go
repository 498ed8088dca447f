// The tree Parse builds, and its String, which prints it fully
// parenthesized so that a reader (or a test) sees how the expression was
// grouped.

package calc

import "strings"

// Node is a node of the tree Parse builds: a *NumberNode, *UnaryNode or
// *BinaryNode. Parentheses make no nodes of their own; they only shape the tree.
type Node interface {
	// String prints the tree fully parenthesized, one pair per operator, so
	// that the shape is plain: "2-3-4" prints as "((2 - 3) - 4)" and "-2^2"
	// as "(-(2 ^ 2))". Numbers print as written.
	String() string
	// Pos reports where the node is in the expression: a byte offset, 0-based.
	Pos() int
	// writeTo appends String's text to b. Printing into one buffer takes
	// time linear in the size of the tree; pasting strings together level
	// by level would copy a long chain's text once per level. Being
	// unexported, writeTo also keeps the set of node types closed, as in
	// text/template/parse.
	writeTo(b *strings.Builder)
}

// pos is where a token or node is in the expression: a byte offset, 0-based.
type pos int

// Pos returns the byte offset, 0-based.
func (p pos) Pos() int { return int(p) }

// column returns the position as a column, in characters, 1-based. That is
// the offset plus one: the lexer stops at the first character that is not
// ASCII, so every character before a token, or a node, is one byte.
func (p pos) column() int { return int(p) + 1 }

// NumberNode is a number as written in the expression.
type NumberNode struct {
	pos
	Text  string  // as written: "2.50", ".5", "1e3"
	Value float64 // Text as parsed by strconv.ParseFloat; ±Inf if out of range, which Eval reports
}

// UnaryNode is a sign applied to an operand: -X or +X. Its position is the sign's.
type UnaryNode struct {
	pos
	Op byte // '+' or '-'
	X  Node
}

// BinaryNode is an operation on two operands: Left Op Right. Its position is
// the operator's, which is where Eval reports a division by zero or a result
// that is not finite.
type BinaryNode struct {
	pos
	Op          byte // the Symbol of one of Operators, such as '*'
	Left, Right Node
}

// String returns the number as written.
func (n *NumberNode) String() string { return n.Text }

// String returns the sign and its operand in parentheses: "(-3)".
func (n *UnaryNode) String() string { return toString(n) }

// String returns the operation fully parenthesized: "((2 - 3) - 4)".
func (n *BinaryNode) String() string { return toString(n) }

func toString(n Node) string {
	var b strings.Builder
	n.writeTo(&b)
	return b.String()
}

func (n *NumberNode) writeTo(b *strings.Builder) { b.WriteString(n.Text) }

func (n *UnaryNode) writeTo(b *strings.Builder) {
	b.WriteByte('(')
	b.WriteByte(n.Op)
	n.X.writeTo(b)
	b.WriteByte(')')
}

func (n *BinaryNode) writeTo(b *strings.Builder) {
	b.WriteByte('(')
	n.Left.writeTo(b)
	b.WriteByte(' ')
	b.WriteByte(n.Op)
	b.WriteByte(' ')
	n.Right.writeTo(b)
	b.WriteByte(')')
}
