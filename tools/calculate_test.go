package tools

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcp-hello-tools/tools/calc"
)

// TestCalculateDescribesOperators checks that the calculate tool's
// description and the schema of its expression name every operator in
// calc's table, and that the description's list of what the calculator
// lacks names none of them.
func TestCalculateDescribesOperators(t *testing.T) {
	grammar, lacking, ok := strings.Cut(calculateDescription(), "Nothing else:")
	require.True(t, ok, "the calculate description has no \"Nothing else:\"")
	lacking, _, _ = strings.Cut(lacking, ".")
	schema := calculateInputSchema().Properties["expression"].Description
	for _, op := range calc.Operators() {
		symbol := string(op.Symbol)
		assert.Contains(t, words(grammar), symbol, "calculate description: the grammar lacks %s", symbol)
		assert.NotContains(t, words(lacking), symbol, "calculate description: %s is listed as missing", symbol)
		assert.Contains(t, words(schema), symbol, "calculate inputSchema: expression's description lacks %s", symbol)
	}
}

// words splits a description into words at spaces and punctuation.
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == ';' || r == ':' })
}
