// The tree Parse builds. String prints it fully parenthesized, so that a
// reader, or a test, sees how the expression was grouped.

package calc

import "strings"

// Node is a node of the tree Parse builds: a number, a sign applied to an
// operand, or an operation. Parentheses only shape the tree; they make no
// nodes.
type Node interface {
	// String prints the tree with one pair of parentheses per operator:
	// "2-3-4" prints as "((2 - 3) - 4)", "-2^2" as "(-(2 ^ 2))".
	String() string
	// offset reports where the node is in the expression: a byte offset, 0-based.
	offset() int
	// written returns the node as written, parentheses around it included.
	written() string
	// enclose sets what written returns, for the parser, once it has read
	// the parentheses around the node.
	enclose(text string)
	// writeTo appends String's text to b, in time linear in the tree's size.
	// Unexported, it closes the set of node types, as in text/template/parse.
	writeTo(b *strings.Builder)
}

// pos is where a token or node is in the expression: a byte offset, 0-based.
type pos int

func (p pos) offset() int { return int(p) }

// column returns the position in characters, 1-based: the offset plus one,
// since the lexer stops at the first character that is not ASCII.
func (p pos) column() int { return int(p) + 1 }

// source is a node's text as written in the expression, the parentheses
// around it included: "(1 + 2^-1000)". An error quotes an operand by it,
// as the reader wrote it, never as a value rounded to float64 (an exact
// value past MaxDigits would be).
type source struct{ src string }

func (s *source) written() string     { return s.src }
func (s *source) enclose(text string) { s.src = text }

// numberNode is a number as written in the expression. Eval reads its
// value from the text, exactly: 0.1 is 1/10.
type numberNode struct {
	pos
	source
}

// Text returns the number as written, without the parentheses around it:
// "2.50", ".5", "1e3". Its source holds nothing else, and a number holds
// no parenthesis or white space, so it is kept once, not twice: a tree of
// 5,000 numbers is the smaller for it.
func (n *numberNode) Text() string { return strings.Trim(n.src, "() \t\n\r") }

// unaryNode is a sign applied to an operand, at the sign: -X or +X.
type unaryNode struct {
	pos
	source
	Op byte // '+' or '-'
	X  Node
}

// binaryNode is an operation, Left Op Right, at the operator, where Eval
// reports a division by zero or a result that is not finite.
type binaryNode struct {
	pos
	source
	Op          byte // the Symbol of one of Operators, such as '*'
	Left, Right Node
}

// String returns the number as written.
func (n *numberNode) String() string { return n.Text() }

// String returns the sign and its operand in parentheses: "(-3)".
func (n *unaryNode) String() string { return toString(n) }

// String returns the operation fully parenthesized: "((2 - 3) - 4)".
func (n *binaryNode) String() string { return toString(n) }

func toString(n Node) string {
	var b strings.Builder
	n.writeTo(&b)
	return b.String()
}

func (n *numberNode) writeTo(b *strings.Builder) { b.WriteString(n.Text()) }

func (n *unaryNode) writeTo(b *strings.Builder) {
	b.WriteString("(" + string(n.Op))
	n.X.writeTo(b)
	b.WriteByte(')')
}

func (n *binaryNode) writeTo(b *strings.Builder) {
	b.WriteByte('(')
	n.Left.writeTo(b)
	b.WriteString(" " + string(n.Op) + " ")
	n.Right.writeTo(b)
	b.WriteByte(')')
}
