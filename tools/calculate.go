package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcp-hello-tools/tools/calc"
)

// CalculateInput is the arguments object of the calculate tool.
type CalculateInput struct {
	// Expression has its description in calculateInputSchema, not in a
	// jsonschema tag: it lists calc's operators, which a tag cannot read.
	Expression string `json:"expression"`
}

// CalculateOutput is the structuredContent of a calculate result.
type CalculateOutput struct {
	// Result is the value of the expression, a finite float64.
	Result float64 `json:"result" jsonschema:"The value of the expression."`
	// Parsed is the expression as the parser read it, fully parenthesized:
	// "2-3-4" is "((2 - 3) - 4)".
	Parsed string `json:"parsed" jsonschema:"The expression as parsed, fully parenthesized, showing precedence and associativity."`
}

// calculateInputSchema is CalculateInput's schema, as the SDK would infer
// it, with a description of expression that lists calc's operators.
func calculateInputSchema() *jsonschema.Schema {
	s, err := jsonschema.For[CalculateInput](nil)
	if err != nil {
		panic(err) // CalculateInput has one string field; For cannot fail on it
	}
	all, _, _ := operators()
	s.Properties["expression"].Description = "An arithmetic expression, e.g. 2 * (3 + 4.5) ^ 2. Numbers, " +
		all + ", unary minus and parentheses only."
	return s
}

// calculateDescription is the calculate tool's description. It lists the
// operators from calc's table, so that it stays true when one is added.
func calculateDescription() string {
	all, left, right := operators()
	lacking := "%, " // the operator models most often try, until calc has it
	if strings.Contains(all, "%") {
		lacking = ""
	}
	return "Evaluates an arithmetic expression in 64-bit floating point and returns the result " +
		"and the expression as parsed, fully parenthesized. " +
		"Argument: expression (string, required), at most 10000 characters and 200 levels of nesting. " +
		"Grammar: decimal numbers (12, 3.5, .5, 1e3, 2.5E-3); binary " + left + " with the usual precedence, " +
		"left-associative; " + right + " for powers, right-associative and binding tighter than unary minus " +
		"(-2^2 = -4, 2^3^2 = 512); unary + and -; parentheses. Nothing else: no variables, functions, " +
		lacking + "commas, thousands separators or hexadecimal. Division by zero and results that are not " +
		"finite are errors."
}

// operators returns calc's binary operators as the descriptions list them,
// separated by spaces: all of them ("+ - * / ^"), those that group from the
// left ("+ - * /") and those that group from the right ("^").
func operators() (string, string, string) {
	var all, left, right []string
	for _, op := range calc.Operators() {
		symbol := string(op.Symbol)
		all = append(all, symbol)
		if op.RightAssoc {
			right = append(right, symbol)
		} else {
			left = append(left, symbol)
		}
	}
	return strings.Join(all, " "), strings.Join(left, " "), strings.Join(right, " ")
}

func addCalculate(s *mcp.Server) {
	tool := &mcp.Tool{
		Name:        "calculate",
		Title:       "Calculator",
		Description: calculateDescription(),
		Annotations: readOnly(),
		InputSchema: calculateInputSchema(),
	}
	mcp.AddTool(s, tool, calculate)
}

// calculate parses and evaluates the expression. Every failure is returned
// as an error, which the SDK turns into a result with isError set, so the
// model reads what went wrong and where.
func calculate(_ context.Context, _ *mcp.CallToolRequest, in CalculateInput) (*mcp.CallToolResult, CalculateOutput, error) {
	tree, err := calc.Parse(in.Expression)
	if err != nil {
		return nil, CalculateOutput{}, explain(in.Expression, err)
	}
	v, err := calc.Eval(tree)
	if err != nil {
		return nil, CalculateOutput{}, explain(in.Expression, err)
	}
	if v == 0 {
		v = 0 // report -0 as 0: JSON readers rarely expect a signed zero
	}
	return nil, CalculateOutput{Result: v, Parsed: tree.String()}, nil
}

// explain turns a calc error into the tool's error text: the message with its
// column, then the expression with a caret under the fault.
func explain(expression string, err error) error {
	var e *calc.Error
	if !errors.As(err, &e) {
		return err
	}
	if errors.Is(err, calc.ErrTooLong) {
		return e // quoting a 10,000-character expression back helps no one
	}
	return fmt.Errorf("%w\n%s", e, e.Caret(expression))
}
