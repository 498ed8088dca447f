package calc

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// precedenceTests are TestPrecedence's rows, one precedence or
// associativity fact each. (An operator's facts are checked by
// TestOperatorTable, for every pair of rows, and by the corpus:
// TestOperatorsTested wants a case that shows its precedence by its value.)
var precedenceTests = []struct {
	name, input, want string
}{
	{"number", "7", "7"},
	{"number as written", "2.50", "2.50"},
	{"leading point as written", ".5", ".5"},
	{"exponent as written", "2.5E-3", "2.5E-3"},
	{"parentheses make no node", "(1)", "1"},
	{"nested parentheses make no node", "((((1))))", "1"},
	{"* before +", "1 + 2 * 3", "(1 + (2 * 3))"},
	{"* before + on the left", "1 * 2 + 3", "((1 * 2) + 3)"},
	{"/ before -", "1 - 2 / 3", "(1 - (2 / 3))"},
	{"- is left-associative", "2-3-4", "((2 - 3) - 4)"},
	{"+ and - associate together", "1 - 2 + 3", "((1 - 2) + 3)"},
	{"/ is left-associative", "8 / 4 / 2", "((8 / 4) / 2)"},
	{"* and / associate together", "8 / 4 * 2", "((8 / 4) * 2)"},
	{"^ before *", "2 * 3 ^ 2", "(2 * (3 ^ 2))"},
	{"^ is right-associative", "2^3^2", "(2 ^ (3 ^ 2))"},
	{"^ before sign", "-2^2", "(-(2 ^ 2))"},
	{"sign before *", "-2 * 3", "((-2) * 3)"},
	{"signed exponent", "2^-1", "(2 ^ (-1))"},
	{"signed exponent holds a power", "2^-3^2", "(2 ^ (-(3 ^ 2)))"},
	{"signs on both sides of ^", "-2^-2", "(-(2 ^ (-2)))"},
	{"sign after -", "3--3", "(3 - (-3))"},
	{"sign chain", "--3", "(-(-3))"},
	{"plus sign", "+-+3", "(+(-(+3)))"},
	{"parentheses override", "(1 + 2) * 3", "((1 + 2) * 3)"},
	{"parenthesized base", "(-2)^2", "((-2) ^ 2)"},
	{"parenthesized power", "(2^3)^2", "((2 ^ 3) ^ 2)"},
	{"everything", "1 + 2 * 3 ^ -4 ^ 5 / (6 - 7) - 8", "((1 + ((2 * (3 ^ (-(4 ^ 5)))) / (6 - 7))) - 8)"},
	{"white space", "\t1\n+\r2 ", "(1 + 2)"},
}

// TestPrecedence checks the shape of the tree by printing it fully
// parenthesized (the test from Thorsten Ball's Writing An Interpreter In Go).
func TestPrecedence(t *testing.T) {
	for _, tt := range precedenceTests {
		t.Run(tt.name, func(t *testing.T) {
			tree, err := Parse(tt.input)
			require.NoError(t, err, "Parse(%q)", tt.input)
			assert.Equal(t, tt.want, tree.String(), "Parse(%q).String()", tt.input)
		})
	}
}

// TestPositions checks offset: the offset of a number, of a sign, and of a
// binary node's operator.
func TestPositions(t *testing.T) {
	tree, err := Parse("(1 + -2) * 3")
	require.NoError(t, err)
	mul, ok := tree.(*binaryNode)
	require.True(t, ok, "Parse(%q) = %T, want *binaryNode", "(1 + -2) * 3", tree)
	add, ok := mul.Left.(*binaryNode)
	require.True(t, ok, "left operand of '*' is %T, want *binaryNode", mul.Left)
	assert.Equal(t, 9, mul.offset(), "'*'")
	assert.Equal(t, 3, add.offset(), "'+'")
	assert.Equal(t, 1, add.Left.offset(), "1")
	assert.Equal(t, 5, add.Right.offset(), "'-'")
	assert.Equal(t, 11, mul.Right.offset(), "3")
}

// TestErrorColumn checks that columns count characters, not bytes, and that
// Offset stays a byte offset.
func TestErrorColumn(t *testing.T) {
	tests := []struct {
		name, input    string
		offset, column int
		msg            string
	}{
		{"ASCII", "1 + )", 4, 5, "found ')'"},
		{"after a multi-byte character", "(×) + )", 1, 2, "unexpected '×'"},
		{"at end of expression", "1 +", 3, 4, "found end of expression"},
		{"invalid UTF-8 is one character per byte", "\xff\xfe", 0, 1, "byte 0xff"},
		{"eval error after tabs", "1\t/\t0", 2, 3, "division by zero"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Evaluate(tt.input)
			var e *Error
			require.ErrorAs(t, err, &e, "Evaluate(%q)", tt.input)
			assert.Equal(t, tt.offset, e.Offset, "Evaluate(%q): Offset", tt.input)
			assert.Equal(t, tt.column, e.Column, "Evaluate(%q): Column", tt.input)
			assert.Contains(t, e.Msg, tt.msg, "Evaluate(%q): Msg", tt.input)
		})
	}
	_, _, err := Evaluate("½ + 1 + )")
	assert.EqualError(t, err, "column 1: unexpected '½'; the calculator accepts numbers, "+operatorList()+" and parentheses")
	_, _, err = Evaluate("1 + 2 + ")
	assert.EqualError(t, err, "column 9: expected a number or '(', found end of expression")
	_, _, err = Evaluate(strings.Repeat("é", 5) + "/")
	assert.EqualError(t, err, "column 1: unexpected 'ééééé'; the calculator accepts numbers, "+operatorList()+" and parentheses (there are no names or functions)")
}
