/*
Package calc parses and evaluates arithmetic expressions such as
"2 * (3 + 4) ^ 2 / -7" in float64. It is the core of the calculate tool and
knows nothing of MCP.

Parse builds a tree, Eval evaluates it, and Evaluate does both:

	v, _, err := calc.Evaluate("2^-1 + 3--3") // v == 6.5

# Grammar

In EBNF, as in the Go specification; each rule is a method in parse.go:

	expression = term { ("+" | "-") term } .
	term       = unary { ("*" | "/") unary } .
	unary      = ("+" | "-") unary | power .
	power      = operand [ "^" unary ] .
	operand    = number | "(" expression ")" .

	number     = mantissa [ exponent ] .
	mantissa   = digits [ "." [ digits ] ] | "." digits .
	exponent   = ( "e" | "E" ) [ "+" | "-" ] digits .
	digits     = "0" … "9" { "0" … "9" } .

Numbers are decimal: 12, 3.5, .5, 1e3, 2.5E-3. As in Go, a point may end the
mantissa, so 5. is 5 and 5.e3 is 5000. A number may not run into a letter,
digit, '_' or '.': 0x10, 1_000, 2pi and 1.2.3 are errors. Spaces, tabs,
newlines and carriage returns may stand between tokens. Nothing else is in
the language: no names, functions, commas, '**', or look-alike characters
such as '×', '÷' and '−' (U+2212); an error says what to write instead.

# Precedence and associativity

The grammar is the precedence table: each rule binds tighter than the one
before it. Loosest are the operators of expression, then those of term, then
signs, and tightest the operator of power. The binary operators, each with
its precedence level and associativity, are listed once, in the table
operators in operator.go, which the lexer, the parser's loops and the error
messages read; Operators returns it.

The loops of expression and term make their operators left-associative:
2-3-4 = (2-3)-4 = -5 and 8/4/2 = (8/4)/2 = 1. The exponent of a power is a
unary, which may itself hold a power, so '^' is right-associative, 2^3^2 =
2^(3^2) = 512, and an exponent may be signed: 2^-1 = 0.5. A sign binds
looser than a power on its right, -2^2 = -(2^2) = -4, and tighter than
everything else: -6/2 = (-6)/2. Signs may repeat: 3--3 = 6 and --3 = 3.

# Evaluation

Eval computes in float64 as Go does, strconv.ParseFloat for numbers and
math.Pow for '^', and returns the exact IEEE result, including -0. Results
that IEEE arithmetic would carry on with are errors instead, at the operator
or number responsible: a zero divisor (ErrDivisionByZero), and a number or
result that is ±Inf or NaN (ErrNotFinite): 1e400, 1e308*10, 0^-1,
(-8)^(1/3). Numbers too small for float64, such as 1e-400, round to 0 as
ParseFloat rounds them.

# Limits

An expression may be at most MaxLength (10,000) characters long, checked
before anything else, and may nest at most MaxDepth (200) levels deep, where
each parenthesis pair, sign and '^' adds a level to what it encloses.

A chain of binary operators such as 1+1+…+1 does not nest: the parser reads
it in a loop. Its tree, though, is as deep as the chain is long, and Eval and
String walk the tree by plain recursion. The length limit bounds that depth:
10,000 characters hold at most 5,000 operators. So Parse, Eval and String
each take time linear in the expression's length, and a few thousand levels
of stack at most, whatever the input.

# Errors

Every error is an *Error with the byte offset and the 1-based column (in
characters) of the fault, and a message that says what was found and what
would be valid:

	column 7: expected a number or '(', found ')'
	column 3: expected a number or '(', found end of expression
	column 3: unexpected '×'; write multiplication as *

Error.Caret shows the fault under the expression.

# Tests

The cases in testdata/*.calc are the language's specification by example: an
expression on one line, its value or error on the next. The tests also check
every case, and thousands of random expressions, against an independent
implementation, github.com/expr-lang/expr, and list where and why the two
languages differ (oracle_test.go). FuzzEval does the same for any input.
And operator_test.go checks that the operator table, the grammar above and
in parse.go, Eval and the tests agree, so that an operator added half way
fails a test that says what is left to do.
*/
package calc
