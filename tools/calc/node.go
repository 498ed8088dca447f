package calc

import (
	"slices"
	"strings"
)

// Node is a node of the tree Parse builds: a *NumberNode, *UnaryNode or
// *BinaryNode. Parentheses make no nodes of their own; they only shape the tree.
type Node interface {
	// String prints the tree fully parenthesized, one pair per operator, so
	// that the shape is plain: "2-3-4" prints as "((2 - 3) - 4)" and "-2^2"
	// as "(-(2 ^ 2))". Numbers print as written.
	String() string
	// Pos reports where the node is in the expression: a byte offset, 0-based.
	Pos() int
	// writeTo appends String's text to b. Being unexported, it also keeps
	// the set of node types closed, as in text/template/parse.
	writeTo(b *strings.Builder)
}

// pos is where a token or node is in the expression. Nodes keep the column
// as well as the offset so that Eval, which has no source text, can still
// report "column 7".
//
// The fields are int32, not int, so that a token (a kind, a pos and its
// text) is four machine words: the compiler keeps a struct that small in
// registers, and copies a bigger one through memory each time the lexer
// returns a token, which made lexing five times slower. Nodes are smaller
// too. MaxLength keeps positions far below 2^31.
type pos struct {
	offset int32 // bytes, 0-based
	column int32 // characters, 1-based
}

// Pos returns the byte offset, 0-based.
func (p pos) Pos() int { return int(p.offset) }

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
	Op          byte // '+', '-', '*', '/' or '^'
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
	b.Grow(printedLen(n))
	n.writeTo(&b)
	return b.String()
}

// printedLen returns len(n.String()) without printing, so that String can
// allocate its text once instead of growing it step by step. It loops down
// left operands and signs, recursing only into right operands, for the
// reason leftSpine gives.
func printedLen(n Node) int {
	size := 0
	for {
		switch m := n.(type) {
		case *UnaryNode:
			size += len("(-)")
			n = m.X
		case *BinaryNode:
			size += len("( + )") + printedLen(m.Right)
			n = m.Left
		case *NumberNode:
			return size + len(m.Text)
		default:
			return size
		}
	}
}

func (n *NumberNode) writeTo(b *strings.Builder) { b.WriteString(n.Text) }

func (n *UnaryNode) writeTo(b *strings.Builder) {
	b.WriteByte('(')
	b.WriteByte(n.Op)
	n.X.writeTo(b)
	b.WriteByte(')')
}

func (n *BinaryNode) writeTo(b *strings.Builder) {
	var buf [16]*BinaryNode
	spine := leftSpine(n, buf[:0])
	for range spine {
		b.WriteByte('(')
	}
	spine[len(spine)-1].Left.writeTo(b)
	for i := len(spine) - 1; i >= 0; i-- {
		b.WriteByte(' ')
		b.WriteByte(spine[i].Op)
		b.WriteByte(' ')
		spine[i].Right.writeTo(b)
		b.WriteByte(')')
	}
}

// leftSpine appends n, its left operand, that operand's left operand and so
// on for as long as they are *BinaryNodes, and returns the result. A chain
// such as 1-2-3-…-9 parses into a tree that leans left and is as deep as the
// chain is long; walking its left edge in a loop, as String and Eval do, means
// they recurse only into right operands, whose depth Parse limits to MaxDepth.
//
// It measures the spine before appending, so that a long chain, which
// outgrows the caller's buffer, costs one allocation rather than one per
// doubling.
func leftSpine(n *BinaryNode, spine []*BinaryNode) []*BinaryNode {
	length := 1
	for m, ok := n.Left.(*BinaryNode); ok; m, ok = m.Left.(*BinaryNode) {
		length++
	}
	spine = slices.Grow(spine, length)
	for {
		spine = append(spine, n)
		left, ok := n.Left.(*BinaryNode)
		if !ok {
			return spine
		}
		n = left
	}
}
