package calc

import (
	"fmt"
	"math"
	"math/big"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tests in this file check that the operator table and everything that
// must agree with it do agree, so that an operator added half way fails a
// test that says what is left to do.

// rules names the grammar rule that parses each precedence level.
var rules = map[int]string{expressionLevel: "expression", termLevel: "term", powerLevel: "power"}

// TestOperatorTable checks the table against the parser: the rows go
// loosest first, every level is one the grammar has, the operators of a
// level group the same way, and for every two operators a and b,
// "1 a 2 b 3" groups as their rows say.
func TestOperatorTable(t *testing.T) {
	require.True(t, slices.IsSortedFunc(operators, func(a, b Operator) int { return a.level - b.level }),
		"operator.go: keep the table loosest first, as messages list it")
	for _, op := range operators {
		require.Contains(t, rules, op.level,
			"operator '%c' has precedence %d; the grammar has levels 1 (expression), 2 (term) and 3 (power)",
			op.Symbol, op.level)
		for _, other := range operators {
			if other.level == op.level {
				require.Equal(t, other.RightAssoc, op.RightAssoc,
					"operators '%c' and '%c' share a level, which one rule parses, so they must share RightAssoc in operator.go",
					op.Symbol, other.Symbol)
			}
		}
	}
	for _, a := range operators {
		for _, b := range operators {
			input := fmt.Sprintf("1 %c 2 %c 3", a.Symbol, b.Symbol)
			want := fmt.Sprintf("(1 %c (2 %c 3))", a.Symbol, b.Symbol)
			if a.level > b.level || a.level == b.level && !a.RightAssoc {
				want = fmt.Sprintf("((1 %c 2) %c 3)", a.Symbol, b.Symbol)
			}
			tree, err := Parse(input)
			require.NoError(t, err, "Parse(%q)", input)
			assert.Equal(t, want, tree.String(), "Parse(%q).String(), by the rows of '%c' and '%c' in operator.go",
				input, a.Symbol, b.Symbol)
		}
	}
}

// TestOperatorsInGrammar checks that the EBNF of each rule that takes its
// operators from the table, in parse.go above the rule's method and in the
// package documentation in doc.go, names them by the rule's level, as
// term_op, and lists none of them: the table is the one list, and a row
// added to it leaves the grammar true.
func TestOperatorsInGrammar(t *testing.T) {
	quoted := regexp.MustCompile(`"[^"]*"`)
	for _, file := range []string{"parse.go", "doc.go"} {
		src, err := os.ReadFile(file)
		require.NoError(t, err)
		for _, rule := range rules {
			production := regexp.MustCompile(`(?m)^(?://|\t) *` + rule + ` += .*$`)
			lines := production.FindAllString(string(src), -1)
			require.Len(t, lines, 1, "%s: want one line of EBNF for %s, of the form %q", file, rule, rule+" = … .")
			assert.Contains(t, strings.Fields(lines[0]), rule+"_op",
				"%s: the EBNF of %s must take its operators as %s_op, the rows of its level in operator.go", file, rule, rule)
			for _, q := range quoted.FindAllString(lines[0], -1) {
				assert.False(t, len(q) == 3 && precedence(q[1]) > 0,
					"%s: the EBNF of %s lists %s, a row of the table in operator.go: write %s_op instead", file, rule, q, rule)
			}
		}
	}
}

// TestOperatorsEvaluate checks that every operator in the table has a case
// in exactly and in approximately, in eval.go, and that no operator turns a
// zero right operand into a result that is not finite: like '/', such an
// operator needs an error of its own. It checks too that neither function
// has a case for a character the table lacks.
func TestOperatorsEvaluate(t *testing.T) {
	for _, op := range operators {
		input := fmt.Sprintf("6 %c 3", op.Symbol)
		v, _, err := Evaluate(input)
		if assert.NoError(t, err, "Evaluate(%q): every operator in operator.go needs a case in exactly, in eval.go", input) {
			assert.True(t, v.Exact(), "Evaluate(%q) = %v, approximate: every operator in operator.go needs a case in exactly, in eval.go", input, v)
		}

		input = fmt.Sprintf("2^0.5 %c 3", op.Symbol) // 2^0.5 is approximate, and so is what follows
		_, _, err = Evaluate(input)
		assert.NoError(t, err, "Evaluate(%q): every operator in operator.go needs a case in approximately, in eval.go", input)

		for _, input := range []string{fmt.Sprintf("6 %c 0", op.Symbol), fmt.Sprintf("2^0.5 %c 0", op.Symbol)} {
			_, _, err = Evaluate(input)
			assert.NotErrorIs(t, err, ErrNotFinite,
				"Evaluate(%q): a zero right operand needs an error of its own in apply, as '/' has (ErrDivisionByZero)", input)
		}
	}
	one := big.NewRat(1, 1)
	for c := byte('!'); c <= '~'; c++ {
		if precedence(c) != 0 {
			continue
		}
		var e evaluator
		assert.False(t, e.exactly(c, new(big.Rat), one, one),
			"exactly, in eval.go, has a case for '%c', which the table in operator.go lacks: add its row", c)
		assert.True(t, math.IsNaN(approximately(c, 1, 1)),
			"approximately, in eval.go, has a case for '%c', which the table in operator.go lacks: add its row", c)
		_, err := Eval(&binaryNode{Op: c, Left: &numberNode{source: source{"6"}}, Right: &numberNode{source: source{"6"}}})
		assert.ErrorContains(t, err, "unknown operator", "Eval of a binaryNode with Op '%c'", c)
	}
}

// TestOperatorsTested checks that every operator has a case in
// testdata/*.calc that evaluates it, and one that shows its precedence by
// its value: the operator beside one of another level, with no
// parentheses, as in 1 + 2 * 3. (TestOperatorTable checks the tree of
// every pair against the table; such a case checks the table itself.)
func TestOperatorsTested(t *testing.T) {
	cases := readCorpus(t)
	for _, op := range operators {
		symbol := string(op.Symbol)
		evaluates := func(c corpusCase) bool {
			return strings.Contains(c.input, symbol) && !strings.HasPrefix(c.want, "error: ")
		}
		assert.True(t, slices.ContainsFunc(cases, evaluates),
			"no case in testdata/*.calc evaluates %s; add one to arithmetic.calc, with its value", symbol)
		assert.True(t, slices.ContainsFunc(cases, func(c corpusCase) bool {
			return evaluates(c) && !strings.ContainsAny(c.input, "()") && besideOtherLevel(c.input, op)
		}), "no case in testdata/*.calc shows the precedence of %s: add one to arithmetic.calc, with its value, "+
			"that has %s and an operator of another level, and no parentheses", symbol, symbol)
	}
}

// besideOtherLevel reports whether input parses to a tree that holds the
// operator op and an operator of another level.
func besideOtherLevel(input string, op Operator) bool {
	tree, err := Parse(input)
	if err != nil {
		return false
	}
	levels := map[byte]int{}
	var walk func(Node)
	walk = func(n Node) {
		switch n := n.(type) {
		case *unaryNode:
			walk(n.X)
		case *binaryNode:
			levels[n.Op] = precedence(n.Op)
			walk(n.Left)
			walk(n.Right)
		}
	}
	walk(tree)
	if _, ok := levels[op.Symbol]; !ok {
		return false
	}
	for _, level := range levels {
		if level != op.level {
			return true
		}
	}
	return false
}
