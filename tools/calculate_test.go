package tools

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcp-hello-tools/tools/calc"
)

// TestCalculateDescribesOperators checks that the calculate tool's
// description names every operator in calc's table, and that its list of
// what the calculator lacks names none of them.
func TestCalculateDescribesOperators(t *testing.T) {
	description := describeCalculate()
	assert.NotContains(t, description, "{", "calculate description: a placeholder is left")
	grammar, lacking, ok := strings.Cut(description, "Nothing else:")
	require.True(t, ok, "the calculate description has no \"Nothing else:\"")
	lacking, _, _ = strings.Cut(lacking, ".")
	for _, op := range calc.Operators() {
		symbol := string(op.Symbol)
		assert.Contains(t, words(grammar), symbol, "calculate description: the grammar lacks %s", symbol)
		assert.NotContains(t, words(lacking), symbol, "calculate description: %s is listed as missing", symbol)
	}
}

// words splits a description into words at spaces and punctuation.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == ';' || r == ':' })
}

// TestCalculateExamples checks every example of calculate's description,
// "X is Y", "X gives Y" or "X = Y", against calc: the value and the form
// of result that the description promises are what the tool returns.
func TestCalculateExamples(t *testing.T) {
	example := regexp.MustCompile(`([-+*/^%().0-9 ]*[0-9)]) (?:is|gives|=) (-?[0-9](?:[0-9.e+-]*[0-9])?)`)
	matches := example.FindAllStringSubmatch(describeCalculate(), -1)
	require.GreaterOrEqual(t, len(matches), 8, "calculate's description: too few examples found; has their form changed?")
	for _, m := range matches {
		expression := strings.TrimSpace(m[1])
		for strings.Count(expression, "(") > strings.Count(expression, ")") {
			expression = strings.TrimPrefix(expression, "(") // the parenthesis of "((2^0.5)^2 gives …)"
		}
		v, _, err := calc.Evaluate(expression)
		if assert.NoError(t, err, "calculate's description: %s", m[0]) {
			assert.Equal(t, m[2], v.String(), "calculate's description: %s", m[0])
		}
	}
}

// TestCalculateDescribesLimits reads every limit that calculate's
// description and schemas state, and checks it against calc at the limit
// and one past it: a description that does not follow a constant when it
// changes fails here, not in a model's hands.
func TestCalculateDescribesLimits(t *testing.T) {
	input, err := jsonschema.For[calculateInput](nil)
	require.NoError(t, err)
	output, err := jsonschema.For[calculateOutput](nil)
	require.NoError(t, err)
	texts := map[string]string{"description": describeCalculate()}
	for name, p := range input.Properties {
		texts["inputSchema of "+name] = p.Description
	}
	for name, p := range output.Properties {
		texts["outputSchema of "+name] = p.Description
	}
	limits := []struct {
		name    string
		pattern *regexp.Regexp
		check   func(t *testing.T, n int)
	}{
		{"MaxLength", regexp.MustCompile(`at most (\d+) characters`), checkLength},
		{"MaxDepth", regexp.MustCompile(`(\d+) levels of nesting`), checkDepth},
		{"MaxBits", regexp.MustCompile(`more than (\d+) bits`), checkBits},
		{"MaxDigits", regexp.MustCompile(`(?:within|at most) (\d+) significant digits`), checkDigits},
	}
	for _, limit := range limits {
		t.Run(limit.name, func(t *testing.T) {
			assert.Regexp(t, limit.pattern, texts["description"], "calculate's description does not state %s", limit.name)
			for where, text := range texts {
				for _, m := range limit.pattern.FindAllStringSubmatch(text, -1) {
					n, err := strconv.Atoi(m[1])
					require.NoError(t, err)
					t.Run(where, func(t *testing.T) { limit.check(t, n) })
				}
			}
		})
	}
}

// checkLength checks that an expression of n characters is evaluated and
// one of n+1 is too long.
func checkLength(t *testing.T, n int) {
	expression := "1" + strings.Repeat("+1", (n-1)/2) + strings.Repeat(" ", (n-1)%2) // n characters
	_, _, err := calc.Evaluate(expression)
	require.NoError(t, err, "an expression of %d characters, the limit the description states", n)
	_, _, err = calc.Evaluate(expression + " ")
	require.ErrorIs(t, err, calc.ErrTooLong, "an expression of %d characters, one past the limit the description states", n+1)
}

// checkDepth checks that n nested parentheses are evaluated and n+1 are too deep.
func checkDepth(t *testing.T, n int) {
	nest := func(n int) string { return strings.Repeat("(", n) + "1" + strings.Repeat(")", n) }
	_, _, err := calc.Evaluate(nest(n))
	require.NoError(t, err, "%d levels of nesting, the limit the description states", n)
	_, _, err = calc.Evaluate(nest(n + 1))
	require.ErrorIs(t, err, calc.ErrTooDeep, "%d levels of nesting, one past the limit the description states", n+1)
}

// checkBits checks that a denominator of n bits, 2^(n-1), is exact and one
// of n+1 is not: multiplied back by 2^(n-1), in factors small enough to be
// finite, the first gives 1 exactly; the second is approximate, and so
// 2^-n is refused as too small for float64.
func checkBits(t *testing.T, n int) {
	back := func(k int) string {
		return fmt.Sprintf("(1/2)^%d", k) + strings.Repeat(" * 2^1000", k/1000) + fmt.Sprintf(" * 2^%d", k%1000)
	}
	v, _, err := calc.Evaluate(back(n - 1))
	require.NoError(t, err)
	assert.True(t, v.Exact() && v.String() == "1", "%s = %v: a denominator of %d bits, the limit the description states, is not exact", back(n-1), v, n)
	v, _, err = calc.Evaluate(back(n))
	if err == nil {
		assert.False(t, v.Exact(), "%s = %v: a denominator of %d bits, one past the limit the description states, is exact", back(n), v, n+1)
	} else {
		assert.ErrorIs(t, err, calc.ErrUnderflow, "%s: a denominator of %d bits, one past the limit the description states", back(n), n+1)
	}
}

// checkDigits checks that 1 - 10^-n, n nines after the point, is written
// exactly and 1 - 10^-(n+1) is not.
func checkDigits(t *testing.T, n int) {
	v, _, err := calc.Evaluate(fmt.Sprintf("1 - 10^-%d", n))
	require.NoError(t, err)
	assert.True(t, v.Exact(), "1 - 10^-%d = %v: %d significant digits, the limit the description states, are not written exactly", n, v, n)
	assert.Equal(t, "0."+strings.Repeat("9", n), v.String(), "1 - 10^-%d", n)
	v, _, err = calc.Evaluate(fmt.Sprintf("1 - 10^-%d", n+1))
	require.NoError(t, err)
	assert.False(t, v.Exact(), "1 - 10^-%d = %v: %d significant digits, one past the limit the description states, are written exactly", n+1, v, n+1)
}
