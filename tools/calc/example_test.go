package calc_test

import (
	"errors"
	"fmt"
	"strings"

	"mcp-hello-tools/tools/calc"
)

// Parse builds the tree; String prints it with every operation in
// parentheses, so precedence and associativity are plain to see.
func ExampleParse() {
	tree, err := calc.Parse("1 + 2 * 3 ^ 2 - -4 - 5")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tree)
	// Output: (((1 + (2 * (3 ^ 2))) - (-4)) - 5)
}

func ExampleEval() {
	tree, err := calc.Parse("(1 + 2) * 3 / 4")
	if err != nil {
		fmt.Println(err)
		return
	}
	v, err := calc.Eval(tree)
	fmt.Println(v, err)
	// Output: 2.25 <nil>
}

// Evaluate parses and evaluates in one call. Its errors wrap sentinels that
// errors.Is can test.
func ExampleEvaluate() {
	for _, expression := range []string{"-2^2", "2^-1", "3--3", "1e308 * 10", "1 / (2 - 2)", "2^0.5 * 1e308 * 10", "1e-2000", strings.Repeat("(", 201)} {
		v, _, err := calc.Evaluate(expression)
		switch {
		case errors.Is(err, calc.ErrDivisionByZero):
			fmt.Printf("%s: division by zero (%v)\n", expression, err)
		case errors.Is(err, calc.ErrNotFinite):
			fmt.Printf("%s: not finite (%v)\n", expression, err)
		case errors.Is(err, calc.ErrUnderflow):
			fmt.Printf("%s: too small (%v)\n", expression, err)
		case errors.Is(err, calc.ErrTooDeep):
			fmt.Printf("%.5s…: too deep (%v)\n", expression, err)
		case err != nil:
			fmt.Printf("%s: %v\n", expression, err)
		default:
			fmt.Printf("%s = %v\n", expression, v)
		}
	}
	// Output:
	// -2^2 = -4
	// 2^-1 = 0.5
	// 3--3 = 6
	// 1e308 * 10 = 1e+309
	// 1 / (2 - 2): division by zero (column 3: division by zero in 1 / (2 - 2); a divisor must not be zero)
	// 2^0.5 * 1e308 * 10: not finite (column 15: the result of 2^0.5 * 1e308 * 10 is not finite in float64 (+Inf): it is approximate (as 2^0.5 * 1e308 is), and float64 holds nothing beyond about ±1.8e308)
	// 1e-2000: too small (column 1: the number 1e-2000 is too small: it is not 0, but exact arithmetic does not read it (it has more than 1365 significant digits, or needs more than 4096 bits above or below the line), and float64, whose least value is about 4.9e-324, would round it to 0)
	// (((((…: too deep (column 201: the expression nests more than 200 levels deep (each '(', sign and '^' adds one); simplify it)
}

// A value is exact where arithmetic is, as Eval's documentation lists:
// numbers, and the operations that keep values rational, powers included
// when their value is. Exact reports whether String wrote it with every
// digit; if not, String wrote its nearest float64.
func ExampleValue_Exact() {
	for _, expression := range []string{"0.1 + 0.2", "123456789 * 987654321", "2^64", "-(10^25) - 1", "10^400", "1/3", "8^(1/3)", "2^0.5", "10^-30"} {
		v, _, err := calc.Evaluate(expression)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-22s = %-27s exact: %v\n", expression, v, v.Exact())
	}
	// Output:
	// 0.1 + 0.2              = 0.3                         exact: true
	// 123456789 * 987654321  = 121932631112635269          exact: true
	// 2^64                   = 18446744073709551616        exact: true
	// -(10^25) - 1           = -10000000000000000000000001 exact: true
	// 10^400                 = 1e+400                      exact: true
	// 1/3                    = 0.3333333333333333          exact: false
	// 8^(1/3)                = 2                           exact: true
	// 2^0.5                  = 1.4142135623730951          exact: false
	// 10^-30                 = 1e-30                       exact: true
}

func ExampleError_Caret() {
	expression := "2 * (3 + )"
	_, err := calc.Parse(expression)
	var e *calc.Error
	if errors.As(err, &e) {
		fmt.Println(e)
		fmt.Println(e.Caret(expression))
	}
	// Output:
	// column 10: expected a number or '(', found ')'
	// 2 * (3 + )
	//          ^
}

// In a long expression Caret shows only the text around the fault.
func ExampleError_Caret_long() {
	expression := strings.Repeat("1 + ", 100) + "2 × 3" + strings.Repeat(" + 1", 100)
	_, err := calc.Parse(expression)
	var e *calc.Error
	if errors.As(err, &e) {
		fmt.Println(e)
		fmt.Println(e.Caret(expression))
	}
	// Output:
	// column 403: unexpected '×'; write multiplication as *
	// ...1 + 1 + 1 + 1 + 1 + 1 + 1 + 2 × 3 + 1 + 1 + 1 + 1 + 1 + 1 + ...
	//                                  ^
}
