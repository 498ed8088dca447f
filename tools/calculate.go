package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcp-hello-tools/internal/structured"
	"mcp-hello-tools/tools/calc"
)

// calculateInput is the arguments object of the calculate tool.
type calculateInput struct {
	// Expression's description is set in calculateInputSchema, not in a
	// jsonschema tag: it lists calc's operators, which a tag cannot read.
	Expression string `json:"expression"`
}

// calculateOutput is the structuredContent of a calculate result: the
// value, whether it is exact, and the expression as grouped: "2-3-4" is
// "((2 - 3) - 4)". Result is a json.Number, so that it goes out with every
// digit String wrote, which a float64 could not hold.
type calculateOutput struct {
	Result json.Number `json:"result"`
	Exact  bool        `json:"exact"`
	Parsed string      `json:"parsed"`
}

// calculateInputSchema is the inferred schema, with expression described.
func calculateInputSchema() *jsonschema.Schema {
	s, err := jsonschema.For[calculateInput](nil)
	if err != nil {
		panic(err) // calculateInput has one string field; For cannot fail on it
	}
	all, _, _ := operators()
	s.Properties["expression"].Description = fmt.Sprintf(
		"An arithmetic expression, e.g. 2 * (3 + 4.5) ^ 2, of at most %d characters. Numbers, %s, unary minus and parentheses only.",
		calc.MaxLength, all)
	return s
}

// calculateOutputSchema is the schema of calculateOutput: result a JSON
// number, whose digits are a json.Number's, and each property described
// from calc's limits.
func calculateOutputSchema() *jsonschema.Schema {
	s, err := jsonschema.For[calculateOutput](&jsonschema.ForOptions{
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[json.Number](): {Type: "number"}},
	})
	if err != nil {
		panic(err) // calculateOutput's fields are a number, a bool and a string; For cannot fail on them
	}
	s.Properties["result"].Description = fmt.Sprintf(
		"The value of the expression. When exact is true, every digit of it (at most %d significant digits); "+
			"otherwise the nearest 64-bit float, in its shortest form. Read it as written: "+
			"a JSON reader that parses numbers into 64-bit floats keeps about 16 digits of it.", calc.MaxDigits)
	s.Properties["exact"].Description = fmt.Sprintf(
		"True when result is the value exactly, every digit. False when it is the nearest 64-bit float instead: "+
			"when the value was computed in floating point (a power with a fractional exponent, "+
			"or a numerator or denominator of more than %d bits, came into it), "+
			"or when its decimal expansion does not end within %d significant digits, as 1/3's does not.",
		calc.MaxBits, calc.MaxDigits)
	s.Properties["parsed"].Description = "The expression as parsed, fully parenthesized, showing precedence and associativity."
	return s
}

// calculateDescription is the calculate tool's description. It lists the
// operators from calc's table and states calc's limits from its constants,
// so that it stays true when one changes.
func calculateDescription() string {
	all, left, right := operators()
	// Models often write %, and may read it as Python does (-7 % 4 = 1):
	// say that it is no operator or, once it is one (exercise 1), its sign.
	lacking, remainder := "%, ", ""
	if strings.Contains(all, "%") {
		lacking, remainder = "", "% is the remainder, with the sign of the dividend: -7 % 4 = -3, 7 % -4 = 3. "
	}
	return fmt.Sprintf("Evaluates an arithmetic expression exactly where arithmetic is exact, and says when it is not. "+
		"Returns result, exact, and parsed (the expression as read, fully parenthesized). "+
		"Numbers are the values they write, and unary minus, %s and ^ with an integer exponent are computed exactly, as fractions: "+
		"0.1 + 0.2 is 0.3, not 0.30000000000000004 as in floating point, and 123456789 * 987654321 is 121932631112635269. "+
		"Then exact is true, and result has every digit of the value. "+
		"A power with a fractional exponent (2^0.5) is computed in 64-bit floating point, as is everything computed from it, "+
		"and any value whose numerator or denominator would need more than %d bits: "+
		"then exact is false, and result is the nearest 64-bit float, about 16 significant digits, with floating point's rounding ((2^0.5)^2 gives 2.0000000000000004). "+
		"exact is false too for a value whose decimal expansion does not end within %d significant digits: 1/3 gives 0.3333333333333333. "+
		"result may have an exponent: 1e-30, 1.5e+21. "+
		"Argument: expression (string, required), at most %d characters and %d levels of nesting. "+
		"Grammar: decimal numbers (12, 3.5, .5, 1e3, 2.5E-3); binary %s with the usual precedence, left-associative; "+
		"%s for powers, right-associative and binding tighter than unary minus (-2^2 = -4, 2^3^2 = 512); unary + and -; parentheses. "+
		"%sNothing else: no variables, functions, %scommas, thousands separators or hexadecimal. "+
		"Division by zero and values beyond about ±1.8e308 are errors.",
		left, calc.MaxBits, calc.MaxDigits, calc.MaxLength, calc.MaxDepth, left, right, remainder, lacking)
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

// addCalculate adds calculate to s, through structured.AddTool, which
// sends result's digits as they are (go-sdk#1201).
func addCalculate(s *mcp.Server) {
	structured.AddTool(s, &mcp.Tool{
		Name:         "calculate",
		Title:        "Calculator",
		Description:  calculateDescription(),
		Annotations:  readOnly(),
		InputSchema:  calculateInputSchema(),
		OutputSchema: calculateOutputSchema(),
	}, calculate)
}

// calculate evaluates the expression. The SDK turns an error into a result
// with isError set, so that the model reads what went wrong and where.
func calculate(_ context.Context, _ *mcp.CallToolRequest, in calculateInput) (*mcp.CallToolResult, calculateOutput, error) {
	v, tree, err := calc.Evaluate(in.Expression)
	if err != nil {
		return nil, calculateOutput{}, explain(in.Expression, err)
	}
	return nil, calculateOutput{Result: json.Number(v.String()), Exact: v.Exact(), Parsed: tree.String()}, nil
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
