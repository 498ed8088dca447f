/*
Package calc parses and evaluates arithmetic expressions such as
"2 * (3 + 4) ^ 2 / -7", exactly where arithmetic is exact. It is the core
of the calculate tool and knows nothing of MCP.

Parse builds a tree, Eval evaluates it, and Evaluate does both:

	v, _, err := calc.Evaluate("0.1 + 0.2") // v.String() == "0.3", v.Exact()

Every error is an *Error: the position of the fault, and a message that
says what was found and what would be valid.

# Exact and approximate

A calculator for a model must not answer 0.30000000000000004, as float64
does for 0.1 + 0.2: the model reads every digit, and cannot tell an
artefact of binary fractions from the value. So a number is the value it
writes (0.1 is 1/10, not the float64 nearest to it), and the operations
that keep values rational, which Eval's documentation lists, are exact:
fractions of integers, in big.Rat, computed by the algorithms in
rational.go; so is a power with a fractional exponent whose value is a
fraction, 16^0.75 = 8, by the integer roots of root.go.

Any other value is approximate, a float64, and so is everything computed
from it: an irrational power, 2^0.5, or a value whose numerator or
denominator would need more than MaxBits bits. An approximate value is
the float64 nearest to the exact result of its operation on its operands
as they are, an exact operand being its fraction and an approximate one
its float64, halfway cases to even: '+', '-', '*' and '/' are computed
exactly and rounded once, and powers by explog.go, to as many bits as
their rounding needs. So an expression with one approximate step is the
float64 nearest to that step's value, 2^(1/3) to the cube root of 2;
with more, each step is rounded, not the expression as a whole, and
(2^0.5)^2 is 2.0000000000000004, the float64 nearest to the square of
2^0.5's float64. An approximate value is never 0 unless it is 0.

Value.String writes every digit of an exact value whose decimal expansion
ends within MaxDigits significant digits (0.3, 121932631112635269, 1e+400,
1e-30), and any other value as the float64 nearest to it (1/3 is
0.3333333333333333), in its shortest digits; Value.Exact says which. Either
way it writes plain digits with a point, 10000,
-10000000000000000000000001 and 1180591620717411303424.125, unless they
need more than MaxZeros zeros to place the point and a significand and a
power of ten are shorter, 1e+400 and 1e-30: so that a reader need neither
move a point 25 places nor count 400 zeros. Eval's documentation
has the rules in full.

# Bounds

Every bound, and what happens past it. Exact values are bounded by exact
arithmetic's own limits, in both directions alike, not by float64's
range: 1e400 and 1e-400 are both exact, and written so.

	MaxLength, 10,000 characters   Parse refuses the expression: ErrTooLong
	MaxDepth, 200 levels           Parse refuses the expression: ErrTooDeep
	MaxBits, 4,096 bits a part     a value goes on approximate, its nearest float64
	MaxDigits, 100 digits          String writes the nearest float64, and Exact is false
	about ±1.8e308, float64's      Eval refuses an approximate number or result past it:
	largest                        ErrNotFinite
	about 4.9e-324, float64's      Eval refuses an approximate number or result, not 0,
	least                          that float64 would round to 0: ErrUnderflow
	MaxDigits and float64's range  Eval refuses an exact result whose expansion does not
	                               end within MaxDigits and whose nearest float64 is 0
	                               or ±Inf (1e-400/3, 10^400/3): ErrUnderflow or
	                               ErrNotFinite, alike
	maxWork, about 2 ms of work    Eval refuses the next number or operator: ErrTooCostly

No bound makes an answer approximate, or less accurate, to save time:
past maxWork an expression is refused, not finished in float64. Errors
quote the expression as written, never an operand rounded to float64.

# Grammar

In EBNF, as in the Go specification. Each rule is a method in parse.go and
binds tighter than the one before it. The binary operators are the rows of
the table in operator.go, and not listed here: expression_op, term_op and
power_op stand for the rows of each level, expressionLevel, termLevel and
powerLevel, so that a row added to the table leaves the grammar true.

	expression = term { expression_op term } .
	term       = unary { term_op unary } .
	unary      = ("+" | "-") unary | power .
	power      = operand [ power_op unary ] .
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
