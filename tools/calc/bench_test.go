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
// irrational powers, rounded correctly, of small integers and of
// integers of MaxBits; and the plain chain, for scale. maxWork stops all
// but the chains of copies (1+1+1, x-1+1, x+0), the numbers and
// 1.0001^100000+: Eval refuses them, ErrTooCostly, partway. (In the
// names, ':' is '/', which would nest a benchmark.)
var worstExpressions = []worstExpression{
	{name: "1+1+1", expression: repeatTo("1", "+1")},
	{name: "x-1+1", expression: repeatTo("(2/3)^2584+1", "-1+1")},                                         // x = 2^2584/3^2584: 4,096 bits below the line
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
//	go test -run '^$' -bench Worst -benchtime 200x ./tools/calc
//
// On 2026-12-01 (2 shared cores, noisy: expr's own times vary by a third
// from run to run), per evaluation, time, then memory and allocations,
// calc beside expr (memory and allocations measured again on 2026-12-05,
// once each node kept its source for errors to quote):
//
//	                    calc     expr      calc     expr      calc    expr
//	1+1+1               1.47 ms  4.82 ms   430 KiB 1414 KiB  10025   25032
//	x-1+1               2.04 ms  5.13 ms   442 KiB 1413 KiB  10061   25025
//	x*3:3               1.46 ms  5.44 ms   435 KiB 1413 KiB  10034   25019
//	x+half-half         1.15 ms  4.79 ms   439 KiB 1413 KiB  10041   25009
//	x*2:2               1.34 ms  5.81 ms   435 KiB 1413 KiB  10034   25019
//	1*3:4               1.14 ms  5.96 ms   435 KiB 1414 KiB  10049   25027
//	x+x powers          1.68 ms  2.64 ms   331 KiB  803 KiB   5747   16393
//	x-y powers          1.06 ms  2.59 ms   316 KiB  803 KiB   5694   16393
//	x*y:y powers        1.51 ms  2.20 ms   336 KiB  803 KiB   5976   16393
//	x*y+x*y powers      1.76 ms  2.34 ms   338 KiB  802 KiB   5768   16375
//	5e-1233+            1.08 ms  1.04 ms   120 KiB  359 KiB   2753    6281
//	600-digit numbers   0.15 ms  0.11 ms    58 KiB   12 KiB    232     107
//	1.1^-350+           2.03 ms  2.19 ms   382 KiB  832 KiB   6508   14475
//	(2:3)^161+          2.15 ms  2.02 ms   502 KiB  883 KiB   9931   18032
//	1+1:3^81            2.56 ms  3.10 ms   666 KiB 1213 KiB  15269   21457
//	1e-20 gcds          2.03 ms  1.21 ms   537 KiB  477 KiB  11884    8375
//	x+0 at 2^1024       2.27 ms  4.83 ms   439 KiB 1411 KiB  10045   24985
//	x^0.5+              1.84 ms  2.47 ms   252 KiB  706 KiB   5011   15319
//	(5:6)^2047+         2.94 ms  3.14 ms   242 KiB  803 KiB   5510   16399
//	2^0.5+              2.07 ms  2.42 ms   289 KiB  945 KiB   7629   16692
//	7^(1:3)+            2.38 ms  3.25 ms   324 KiB 1101 KiB   7557   22532
//	1.0001^100000+      3.03 ms  1.45 ms   128 KiB  409 KiB   3622    7172
//	x^0.5 at MaxBits    2.73 ms  2.63 ms   216 KiB  706 KiB   4919   15319
//
// The slowest, at about 3 ms, spend maxWork's 2 ms of arithmetic, and the
// rest on reading the expression and on steps maxWork does not count; the
// powers' arithmetic is mostly math/big's overhead on integers of two or
// three words, which termWork and tryWork count. The most memory,
// 1+1:3^81's, is its tree and Lehmer's gcds, which allocate copies of their
// operands, some 200 bytes each: maxWork holds them to about 2,000. The
// tree of a 5,000-operation chain is about 0.43 MB, nearly all the memory
// of the chains of 5,000; a power allocates nothing once its integers have
// grown.
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
