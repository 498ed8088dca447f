/*
Package calc parses and evaluates arithmetic expressions such as
"2 * (3 + 4) ^ 2 / -7" in float64. It is the core of the calculate tool and
knows nothing of MCP.

Parse builds a tree, Eval evaluates it, and Evaluate does both:

	v, _, err := calc.Evaluate("2^-1 + 3--3") // v == 6.5

Every error is an *Error: the position of the fault, and a message that
says what was found and what would be valid.

# Grammar

In EBNF, as in the Go specification. Each rule is a method in parse.go and
binds tighter than the one before it; the binary operators of each level
are rows of the table in operator.go.

	expression = term { ("+" | "-") term } .
	term       = unary { ("*" | "/") unary } .
	unary      = ("+" | "-") unary | power .
	power      = operand [ "^" unary ] .
	operand    = number | "(" expression ")" .

	number     = mantissa [ exponent ] .
	mantissa   = digits [ "." [ digits ] ] | "." digits .
	exponent   = ( "e" | "E" ) [ "+" | "-" ] digits .
	digits     = "0" … "9" { "0" … "9" } .

The loops of expression and term group from the left, 2-3-4 = (2-3)-4,
and '^' from the right, 2^3^2 = 2^(3^2). A sign binds looser than a power
on its right, -2^2 = -(2^2), and tighter than everything else.

Spaces, tabs and line breaks may stand between tokens. A number may not run
into a letter, digit, '_' or '.': 0x10, 1_000, 2pi and 1.2.3 are errors.
Nothing else is in the language: no names, functions, commas, '**', or
look-alikes such as '×' and '−' (U+2212); an error says what to write.

The cases in testdata/*.calc are the language's specification by example,
checked against an independent evaluator, github.com/expr-lang/expr.
*/
package calc
