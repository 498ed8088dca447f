package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcp-hello-tools/tools/calc"
)

// CalculateInput is the arguments object of the calculate tool.
type CalculateInput struct {
	// Expression's description is set in calculateInputSchema, not in a
	// jsonschema tag: it lists calc's operators, which a tag cannot read.
	Expression string `json:"expression"`
}

// CalculateOutput is the structuredContent of a calculate result: a finite
// value, and the expression as grouped: "2-3-4" is "((2 - 3) - 4)".
type CalculateOutput struct {
	Result float64 `json:"result" jsonschema:"The value of the expression."`
	Parsed string  `json:"parsed" jsonschema:"The expression as parsed, fully parenthesized, showing precedence and associativity."`
}

// calculateInputSchema is the inferred schema, with expression described.
func calculateInputSchema() *jsonschema.Schema {
	s, err := jsonschema.For[CalculateInput](nil)
	if err != nil {
		panic(err) // CalculateInput has one string field; For cannot fail on it
	}
	all, _, _ := operators()
	s.Properties["expression"].Description = "An arithmetic expression, e.g. 2 * (3 + 4.5) ^ 2. Numbers, " + all + ", unary minus and parentheses only."
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
	return fmt.Sprintf("Evaluates an arithmetic expression in 64-bit floating point and returns the result and the expression as parsed, fully parenthesized. Argument: expression (string, required), at most 10000 characters and 200 levels of nesting. Grammar: decimal numbers (12, 3.5, .5, 1e3, 2.5E-3); binary %s with the usual precedence, left-associative; %s for powers, right-associative and binding tighter than unary minus (-2^2 = -4, 2^3^2 = 512); unary + and -; parentheses. Nothing else: no variables, functions, %scommas, thousands separators or hexadecimal. Division by zero and results that are not finite are errors.",
		left, right, lacking)
}

// operators returns calc's binary operators as the descriptions list them:
// all ("+ - * / ^"), those grouping from the left ("+ - * /"), the right ("^").
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
	mcp.AddTool(s, &mcp.Tool{
		Name:        "calculate",
		Title:       "Calculator",
		Description: calculateDescription(),
		Annotations: readOnly(),
		InputSchema: calculateInputSchema(),
	}, calculate)
}

// calculate evaluates the expression. The SDK turns an error into a result
// with isError set, so that the model reads what went wrong and where.
func calculate(_ context.Context, _ *mcp.CallToolRequest, in CalculateInput) (*mcp.CallToolResult, CalculateOutput, error) {
	v, tree, err := calc.Evaluate(in.Expression)
	if err != nil {
		return nil, CalculateOutput{}, explain(in.Expression, err)
	}
	// For now, the float64 nearest to the value, which calc computes
	// exactly where it can; String never writes -0.
	f, err := strconv.ParseFloat(v.String(), 64)
	if err != nil {
		return nil, CalculateOutput{}, err
	}
	return nil, CalculateOutput{Result: f, Parsed: tree.String()}, nil
}

// explain turns a calc error into the tool's error text: the message with
// its column, then the expression with a caret under the fault.
func explain(expression string, err error) error {
	var e *calc.Error
	if !errors.As(err, &e) || errors.Is(err, calc.ErrTooLong) {
		return err // quoting a 10,000-character expression back helps no one
	}
	return fmt.Errorf("%w\n%s", e, e.Caret(expression))
}
