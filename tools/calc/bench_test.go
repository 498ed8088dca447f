package calc

import (
	"strings"
	"testing"

	"github.com/expr-lang/expr"
)

// benchExpressions are a short, a medium and a long expression, about 10,
// 100 and 10,000 characters.
var benchExpressions = func() []struct{ name, expression string } {
	const medium = "(3.5 + 2) * 4 ^ 2 / -7 - (1e3 / 8 - 2.25) * (9 - 4 ^ 0.5) + 12 / (6 - 2) * (5 + 3 ^ 2) - 0.125"
	long := medium
	for len(long)+len(" + ")+len(medium) <= MaxLength {
		long += " + " + medium
	}
	return []struct{ name, expression string }{
		{"short", "2*(3+4)^2"},
		{"medium", medium},
		{"long", long},
	}
}()

// BenchmarkEval measures a one-shot evaluation of an expression's text, in
// the same run with this package and with expr, so that the two compare:
//
//   - calc: Parse and Eval, the evaluation, as expr's Compile and Run are;
//   - calc+String: also the fully parenthesized String, as the calculate
//     tool reports it (expr prints no tree, so this is ours alone);
//   - expr: Compile and Run.
//
// SetBytes makes the MB/s column a check on linearity: it should hardly
// change from medium to long.
//
//	go test -run '^$' -bench Eval -benchmem ./tools/calc
func BenchmarkEval(b *testing.B) {
	for _, e := range benchExpressions {
		b.Run(e.name+"/calc", func(b *testing.B) {
			b.SetBytes(int64(len(e.expression)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := Evaluate(e.expression); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(e.name+"/calc+String", func(b *testing.B) {
			b.SetBytes(int64(len(e.expression)))
			b.ReportAllocs()
			for b.Loop() {
				_, tree, err := Evaluate(e.expression)
				if err != nil {
					b.Fatal(err)
				}
				_ = tree.String()
			}
		})
		b.Run(e.name+"/expr", func(b *testing.B) {
			translated := translate(e.expression)
			b.SetBytes(int64(len(e.expression)))
			b.ReportAllocs()
			for b.Loop() {
				program, err := expr.Compile(translated)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := expr.Run(program, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHugeInputs measures how fast a million-character input is
// refused, against the medium expression's evaluation as a baseline: the
// length limit is checked before anything else, so a refusal costs about one
// pass over the input's bytes.
func BenchmarkHugeInputs(b *testing.B) {
	b.Run("baseline-medium", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := Evaluate(benchExpressions[1].expression); err != nil {
				b.Fatal(err)
			}
		}
	})
	for name, input := range hugeInputs {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := Evaluate(input); err == nil {
					b.Fatalf("Evaluate(%s) succeeded", name)
				}
			}
		})
	}
}

// worstExpressions are the slowest expressions of at most MaxLength
// characters we could construct, each its own way of making exact
// arithmetic work: 5,000 operations on a value at MaxBits, linear in it;
// powers and sums whose gcds are quadratic in it, or many gcds of a few
// words; values at float64's limit, or rounded to float64; long numbers;
// and the plain chain, for scale. maxWork stops all but the chains of
// copies (1+1+1, x-1+1, x+0), 1*3:4, which MaxBits stops, and the
// numbers: Eval refuses them, ErrTooCostly, partway. (In the names, ':'
// is '/', which would nest a benchmark.)
var worstExpressions = []worstExpression{
	{name: "1+1+1", expression: repeatTo("1", "+1")},
	{name: "x-1+1", expression: repeatTo("(2/3)^2584", "-1+1")},                                           // x = 2^2584/3^2584: 4,096 bits below the line
	{name: "x*3:3", expression: repeatTo("(2/3)^2584", "*3/3"), tooCostly: true},                          // a gcd with 3, and a division by it, each time
	{name: "x+half-half", expression: repeatTo("(2/3)^2583", "+1/2-1/2"), tooCostly: true},                // the same with halves, the sum at 4,096 bits
	{name: "x*2:2", expression: repeatTo("(2/3)^2584", "*2/2"), tooCostly: true},                          //
	{name: "1*3:4", expression: repeatTo("1", "*3/4"), tooCostly: true},                                   // a denominator growing to MaxBits, with gcds by 3 and 4
	{name: "x+x powers", expression: repeatTo("(2/3)^2584", "+(2/3)^2584"), tooCostly: true},              // Lehmer's gcd of 4,096-bit integers, each time
	{name: "x-y powers", expression: repeatTo("(2/3)^2584", "-(2/3)^2583"), tooCostly: true},              //
	{name: "x*y:y powers", expression: repeatTo("(2/3)^2584", "*(3/2)^1292*(2/3)^1292"), tooCostly: true}, //
	{name: "x*y+x*y powers", expression: repeatTo("(2/3)^2584*(7/5)^1000", "+(2/3)^2584*(7/5)^1000"), tooCostly: true},
	{name: "5e-1233+", expression: repeatTo("5e-1233", "+5e-1233"), tooCostly: true}, // numbers at MaxBits: 10^1233 for each
	{name: "600-digit numbers", expression: repeatTo("1."+strings.Repeat("7", 600), "*1."+strings.Repeat("3", 600)+"/1."+strings.Repeat("7", 600))},
	{name: "1.1^-350+", expression: repeatTo("1.1^-350", "+1.1^-350"), tooCostly: true},                        // 10^350/11^350, whose sums' gcds are of 1,211-bit integers
	{name: "(2:3)^161+", expression: repeatTo("(2/3)^161", "+(2/3)^161"), tooCostly: true},                     // a gcd of four-word integers, each time
	{name: "1+1:3^81", expression: repeatTo("1", "+1/3^81"), tooCostly: true},                                  // a gcd of two-word integers, each time
	{name: "1e-20 gcds", expression: repeatTo("(1/3)^40*1e-20", "+1e-20"), tooCostly: true},                    // two gcds of two-word integers, each time
	{name: "x+0 at 2^1024", expression: repeatTo("(4294967295/16822732)^128", "+0")},                           // a sum at float64's limit, 4,096 bits over 3,072
	{name: "x^0.5+", expression: repeatTo("((2/3)^2584)^0.5", "+((2/3)^2584)^0.5"), tooCostly: true},           // square roots of 4,096-bit integers, each time
	{name: "(5:6)^2047+", expression: repeatTo("2", "+(5/6)^2047"), tooCostly: true},                           // a power past MaxBits, computed, then rounded
	{name: "2^0.5+", expression: repeatTo("2^0.5", "+2^0.5"), tooCostly: true},                                 // irrational powers, rounded correctly, each time
	{name: "7^(1:3)+", expression: repeatTo("7^(1/3)", "+7^(1/3)"), tooCostly: true},                           //
	{name: "1.0001^100000+", expression: repeatTo("1.0001^100000", "+1.0001^100000")},                          // a power past MaxBits, by e^(y·ln x)
	{name: "x^0.5 at MaxBits", expression: repeatTo("((2/3)^2583)^0.5", "+((2/3)^2583)^0.5"), tooCostly: true}, // no root, and e^(y·ln x), of 4,096-bit integers
}

// A worstExpression is one of worstExpressions: its name, its text, and
// whether Eval refuses it as too costly, having done maxWork.
type worstExpression struct {
	name, expression string
	tooCostly        bool
}

// repeatTo returns head followed by as many copies of unit as MaxLength allows.
func repeatTo(head, unit string) string {
	return head + strings.Repeat(unit, (MaxLength-len(head))/len(unit))
}

// BenchmarkWorst measures each of worstExpressions, with this package and
// with expr in the same run, in time per evaluation (ns/op; an evaluation
// runs on one goroutine), memory and allocations:
//
//	go test -run '^$' -bench Worst -benchmem -count 3 ./tools/calc
//
// On 2026-12-01 (2 shared cores, noisy; medians of -count 3), per
// evaluation, time, then memory and allocations, calc beside expr:
//
//	                    calc     expr      calc     expr      calc    expr
//	1+1+1               1.76 ms  5.14 ms   352 KiB 1414 KiB  10015   25032
//	x-1+1               2.02 ms  6.20 ms   358 KiB 1414 KiB  10030   25019
//	x*3:3               2.03 ms  7.39 ms   357 KiB 1414 KiB  10030   25019
//	x+half-half         2.17 ms  5.83 ms   361 KiB 1413 KiB  10037   25009
//	x*2:2               1.92 ms  5.71 ms   358 KiB 1414 KiB  10031   25019
//	1:3:3               1.79 ms  6.36 ms   360 KiB 1414 KiB  10041   25031
//	x+x powers          3.00 ms  3.04 ms   289 KiB  804 KiB   5743   16393
//	x-y powers          1.75 ms  2.87 ms   274 KiB  804 KiB   5690   16393
//	x*y:y powers        2.40 ms  3.06 ms   294 KiB  804 KiB   5972   16393
//	x*y+x*y powers      2.12 ms  3.04 ms   295 KiB  803 KiB   5757   16375
//	5e-1233+            1.56 ms  1.62 ms   101 KiB  360 KiB   2751    6281
//	600-digit numbers   0.18 ms  0.18 ms    58 KiB   12 KiB    223     107
//	1.1^-350+           3.35 ms  2.68 ms   330 KiB  833 KiB   6504   14475
//	(2:3)^161+          4.02 ms  4.19 ms   455 KiB  883 KiB   9926   18032
//	1+1:3^81            4.63 ms  4.33 ms   600 KiB 1213 KiB  15264   21457
//	1e-20 gcds          2.95 ms  1.77 ms   511 KiB  477 KiB  11879    8375
//	x+0 at 2^1024       2.63 ms  6.08 ms   357 KiB 1412 KiB  10015   24985
//	x^0.5+              3.63 ms  4.36 ms   175 KiB  706 KiB   5347   15319
//	(2:3)^2700+         4.13 ms  4.50 ms   197 KiB  804 KiB   5494   16399
//
// The slowest, at about 4 ms, spend maxWork's 2 ms of arithmetic, and the
// rest on reading the expression and on steps maxWork does not count. The
// most memory, 1+1:3^81's, is its tree and Lehmer's gcds, which allocate
// copies of their operands, some 200 bytes each: maxWork holds them to
// about 2,000. The tree of a 5,000-operation chain is about 0.35 MB,
// nearly all the memory of the chains of 5,000.
func BenchmarkWorst(b *testing.B) {
	for _, w := range worstExpressions {
		b.Run(w.name+"/calc", func(b *testing.B) {
			measure(b, func() {
				_, _, err := Evaluate(w.expression)
				checkWorst(b, w, err)
			})
		})
		b.Run(w.name+"/expr", func(b *testing.B) {
			translated := translate(w.expression)
			measure(b, func() {
				program, err := expr.Compile(translated)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := expr.Run(program, nil); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// measure runs evaluate b.N times, reporting allocations. An evaluation
// runs on one goroutine, so ns/op is its CPU time, but for the garbage
// collector's, which B/op and allocs/op measure.
func measure(b *testing.B, evaluate func()) {
	b.ReportAllocs()
	for b.Loop() {
		evaluate()
	}
}
