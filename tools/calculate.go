package tools

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcp-hello-tools/tools/calc"
)

// calculateInput is the arguments object of the calculate tool.
type calculateInput struct {
	Expression string `json:"expression" jsonschema:"An arithmetic expression, such as 2 * (3 + 4.5) ^ 2. The tool's description gives the grammar."`
}

// calculateOutput is the structuredContent of a calculate result.
//
// Result is a string, not a JSON number. A host written in JavaScript
// parses a JSON number into a 64-bit float, which holds about 16 digits:
// 18446744073709551616 (2^64) would reach the model as
// 18446744073709552000. I-JSON (RFC 7493, section 2.2) says to send a
// number that needs more precision than a 64-bit float as a string, as
// protobuf's JSON mapping does for 64-bit integers; a string is one type,
// whatever the value.
type calculateOutput struct {
	Result string `json:"result" jsonschema:"The value, in decimal digits, as a string so that no JSON reader rounds it: every digit of it when exact is true, else the nearest 64-bit float; plain digits or with a power of ten (1e+400, 1e-30), as the tool's description says."`
	Exact  bool   `json:"exact" jsonschema:"True when result is the value exactly, every digit; false when result is a 64-bit float, each operation rounded to the nearest."`
	Parsed string `json:"parsed" jsonschema:"The expression as parsed, fully parenthesized, showing precedence and associativity: 2-3-4 is ((2 - 3) - 4)."`
}

// calculateDescription is what the model reads before it calls calculate.
// Its {placeholders} are filled in from package calc, so that it stays
// true when an operator or a limit changes.
const calculateDescription = `Evaluates an arithmetic expression exactly where arithmetic is exact, and says when it is not. Returns result (a string of decimal digits), exact, and parsed (the expression as read, fully parenthesized).

Numbers are the values they write, and unary minus, {left} and ^ are computed exactly, as fractions, whenever the value is one: 0.1 + 0.2 is 0.3, not 0.30000000000000004 as in floating point, 123456789 * 987654321 is 121932631112635269, 16^0.75 is 8 and (-8)^(1/3) is -2. Then exact is true, and result has every digit of the value, however large or small.

An irrational power (2^0.5), and a value whose numerator or denominator would need more than {bits} bits, are 64-bit floats instead, as is everything computed from them: then exact is false, and each operation gives the 64-bit float nearest to its exact result on its operands as they are ((2^0.5)^2 gives 2.0000000000000004). exact is false too for a value whose decimal expansion does not end within {digits} significant digits: 1/3 gives 0.3333333333333333.

result, exact or not, is in plain digits (2^70 + 1/8 is 1180591620717411303424.125), unless they would need more than {zeros} zeros to place the point: then with a power of ten (10^400 is 1e+400, 10^-30 is 1e-30).

Argument: expression (string, required), at most {length} characters and {depth} levels of nesting.
Grammar: decimal numbers (12, 3.5, .5, 1e3, 2.5E-3); binary {left} with the usual precedence, left-associative; {right} for powers, right-associative and binding tighter than unary minus (-2^2 = -4, 2^3^2 = 512); unary + and -; parentheses. {remainder}Nothing else: no variables, functions, {lacking}commas, thousands separators or hexadecimal.

Errors, with the column: division by zero; a 64-bit float, computed or written for an exact value, beyond about ±1.8e308 or 0 for a value that is not (1e-2000, 10^400 / 3); a negative number to a power whose denominator is even ((-8)^0.5); an expression too costly to compute exactly or round correctly, never finished in floating point.`

// describeCalculate fills in calculateDescription's placeholders.
func describeCalculate() string {
	var left, right []string
	for _, op := range calc.Operators() {
		if op.RightAssoc {
			right = append(right, string(op.Symbol))
		} else {
			left = append(left, string(op.Symbol))
		}
	}
	// Models often write %, and may read it as Python does (-7 % 4 = 1):
	// say that it is no operator or, once it is one (exercises/3-remainder.md), its sign.
	lacking, remainder := "%, ", ""
	if strings.Contains(strings.Join(left, ""), "%") {
		lacking, remainder = "", "% is the remainder, with the sign of the dividend: -7 % 4 = -3, 7 % -4 = 3. "
	}
	return strings.NewReplacer(
		"{left}", strings.Join(left, " "),
		"{right}", strings.Join(right, " "),
		"{bits}", strconv.Itoa(calc.MaxBits),
		"{digits}", strconv.Itoa(calc.MaxDigits),
		"{zeros}", strconv.Itoa(calc.MaxZeros),
		"{length}", strconv.Itoa(calc.MaxLength),
		"{depth}", strconv.Itoa(calc.MaxDepth),
		"{remainder}", remainder,
		"{lacking}", lacking,
	).Replace(calculateDescription)
}

func addCalculate(s *mcp.Server) *mcp.Tool {
	t := &mcp.Tool{
		Name:        "calculate",
		Title:       "Calculator",
		Description: describeCalculate(),
		Annotations: readOnly(),
	}
	mcp.AddTool(s, t, calculate)
	return t
}

// calculate evaluates the expression. An error it returns reaches the model
// as a result with isError set, saying what went wrong and where.
func calculate(_ context.Context, _ *mcp.CallToolRequest, in calculateInput) (*mcp.CallToolResult, calculateOutput, error) {
	v, tree, err := calc.Evaluate(in.Expression)
	if err != nil {
		return nil, calculateOutput{}, explain(in.Expression, err)
	}
	return nil, calculateOutput{Result: v.String(), Exact: v.Exact(), Parsed: tree.String()}, nil
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
