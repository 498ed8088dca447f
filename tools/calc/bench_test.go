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
// arithmetic work: 5,000 cheap operations on a value at MaxBits, which cost
// time linear in it; powers and sums whose gcds cost time quadratic in it,
// which maxWork stops; long numbers; and the plain chain, for scale. (In
// the names, ':' is '/', which would nest a benchmark.)
var worstExpressions = []struct{ name, expression string }{
	{"1+1+1", repeatTo("1", "+1")},
	{"x-1+1", repeatTo("(2/3)^2584", "-1+1")},                          // x = 2^2584/3^2584: 4,096 bits below the line
	{"x*3:3", repeatTo("(2/3)^2584", "*3/3")},                          // a gcd with 3, and a division by it, each time
	{"x+half-half", repeatTo("(2/3)^2583", "+1/2-1/2")},                // the same with halves, the sum at 4,096 bits
	{"x*2:2", repeatTo("(2/3)^2584", "*2/2")},                          //
	{"1:3:3", repeatTo("1", "/3")},                                     // a denominator growing to MaxBits, then float64
	{"x+x powers", repeatTo("(2/3)^2584", "+(2/3)^2584")},              // Lehmer's gcd of 4,096-bit integers, each time
	{"x-y powers", repeatTo("(2/3)^2584", "-(2/3)^2583")},              //
	{"x*y:y powers", repeatTo("(2/3)^2584", "*(3/2)^1292*(2/3)^1292")}, //
	{"x*y+x*y powers", repeatTo("(2/3)^2584*(7/5)^1000", "+(2/3)^2584*(7/5)^1000")},
	{"5e-1233+", repeatTo("5e-1233", "+5e-1233")}, // numbers at MaxBits: 10^1233 for each
	{"600-digit numbers", repeatTo("1."+strings.Repeat("7", 600), "*1."+strings.Repeat("3", 600)+"/1."+strings.Repeat("7", 600))},
	{"1.1^-350+", repeatTo("1.1^-350", "+1.1^-350")},               // 10^350/11^350, whose sums' gcds are of 1,211-bit integers
	{"1e-20 gcds", repeatTo("(1/3)^40*1e-20", "+1e-20")},           // two gcds of two-word integers, each time
	{"x+0 at 2^1024", repeatTo("(4294967295/16822732)^128", "+0")}, // a sum at float64's limit, 4,096 bits over 3,072
	{"x^0.5+", repeatTo("((2/3)^2584)^0.5", "+((2/3)^2584)^0.5")},  // a value at MaxBits rounded to float64, each time
	{"(2:3)^2700+", repeatTo("2", "+(2/3)^2700")},                  // a power past MaxBits, computed, then rounded
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
//	1+1+1               1.70 ms  5.41 ms   352 KiB 1414 KiB  10015   25032
//	x-1+1               1.75 ms  5.09 ms   357 KiB 1414 KiB  10029   25019
//	x*3:3               5.96 ms  4.89 ms   356 KiB 1414 KiB  10028   25019
//	x+half-half         5.58 ms  5.14 ms   361 KiB 1413 KiB  10039   25009
//	x*2:2               5.27 ms  5.80 ms   356 KiB 1414 KiB  10028   25019
//	1:3:3               1.61 ms  5.68 ms   361 KiB 1414 KiB  10042   25031
//	x+x powers          4.58 ms  2.96 ms   539 KiB  804 KiB   6723   16393
//	x-y powers          2.92 ms  2.47 ms   564 KiB  804 KiB   6613   16393
//	x*y:y powers        3.41 ms  2.76 ms   747 KiB  804 KiB   7966   16393
//	x*y+x*y powers      3.14 ms  2.33 ms   578 KiB  803 KiB   6750   16375
//	5e-1233+            1.25 ms  1.18 ms   345 KiB  360 KiB   3419    6281
//	600-digit numbers   0.17 ms  0.16 ms    72 KiB   12 KiB    285     107
//
// The slowest, x*3:3, is 5,000 operations linear in a 4,096-bit value; the
// powers stop at maxWork. Of calc's memory, the tree of a 5,000-operation
// chain is about 0.35 MB: nearly all of it in the first six.
func BenchmarkWorst(b *testing.B) {
	for _, w := range worstExpressions {
		b.Run(w.name+"/calc", func(b *testing.B) {
			measure(b, func() {
				if _, _, err := Evaluate(w.expression); err != nil {
					b.Fatal(err)
				}
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
