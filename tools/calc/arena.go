package calc

import "strings"

// An arena hands out the nodes of one parse from blocks, slices of nodes
// allocated in advance, rather than allocating each node on its own: a
// tree of thousands of nodes then costs a few allocations instead of
// thousands, and the garbage collector tracks a few objects instead of
// thousands.
//
// A block is never reallocated. When one is full the next node comes from
// a new block, and the nodes already handed out keep pointing into the old
// one, which lives as long as they do.
type arena struct {
	numbers  []NumberNode
	unaries  []UnaryNode
	binaries []BinaryNode

	// Nodes per block, of each type: enough for the whole expression if
	// it is short, and at most maxBlock (maxUnaryBlock for signs).
	numberBlock, unaryBlock, binaryBlock int
}

// maxBlock bounds the nodes in a block: a block of a few kilobytes is one
// the allocator readily recycles, and a long expression leaves unused at
// most the end of one block of each type. Signs are rarer, and a count of
// + and - bytes, most of which are binary operators, overstates them, so
// their blocks are smaller.
const (
	maxBlock      = 128
	maxUnaryBlock = 64
)

// newArena returns an arena for parsing expression. It counts the
// operators to size the blocks, since every node but a number stands for
// one: a binary operator is one byte of + - * / ^, a sign one byte of + -,
// and there is a binary operator between any two numbers. Bytes in
// exponents ("1e-3") count too, which only makes the counts generous.
func newArena(expression string) arena {
	signs := strings.Count(expression, "+") + strings.Count(expression, "-")
	operators := signs + strings.Count(expression, "*") + strings.Count(expression, "/") + strings.Count(expression, "^")
	return arena{
		numberBlock: min(operators+1, maxBlock),
		unaryBlock:  min(signs, maxUnaryBlock),
		binaryBlock: min(operators, maxBlock),
	}
}

// number returns a new NumberNode holding n.
func (a *arena) number(n NumberNode) *NumberNode { return add(&a.numbers, a.numberBlock, n) }

// unary returns a new UnaryNode holding n.
func (a *arena) unary(n UnaryNode) *UnaryNode { return add(&a.unaries, a.unaryBlock, n) }

// binary returns a new BinaryNode holding n.
func (a *arena) binary(n BinaryNode) *BinaryNode { return add(&a.binaries, a.binaryBlock, n) }

// add stores x in the next free element of *block and returns a pointer to
// it, first replacing a full block (or none) with a new one of size elements.
func add[T any](block *[]T, size int, x T) *T {
	if len(*block) == cap(*block) {
		*block = make([]T, 0, size)
	}
	*block = append(*block, x) // never grows the block: there is room
	return &(*block)[len(*block)-1]
}
