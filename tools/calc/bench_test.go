package calc

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

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
}

// repeatTo returns head followed by as many copies of unit as MaxLength allows.
func repeatTo(head, unit string) string {
	return head + strings.Repeat(unit, (MaxLength-len(head))/len(unit))
}

// BenchmarkWorst measures each of worstExpressions, with this package and
// with expr in the same run, in CPU time per evaluation (cpu-ns/op: the
// garbage collector's work on the other core too) as well as ns/op:
//
//	go test -run '^$' -bench Worst -benchmem -count 5 ./tools/calc
//
// On 2026-12-01 (2 shared cores, noisy; medians of -count 5), per
// evaluation, CPU time, then memory and allocations, calc beside expr:
//
//	                    calc     expr      calc     expr      calc    expr
//	1+1+1               1.42 ms  5.18 ms   352 KB  1414 KB   10015   25032
//	x-1+1               2.06 ms  7.14 ms   357 KB  1414 KB   10029   25019
//	x*3:3               5.45 ms  5.37 ms   356 KB  1414 KB   10028   25019
//	x+half-half         4.84 ms  4.46 ms   361 KB  1413 KB   10039   25009
//	x*2:2               4.87 ms  4.84 ms   356 KB  1414 KB   10028   25019
//	1:3:3               1.40 ms  5.64 ms   361 KB  1414 KB   10042   25031
//	x+x powers          4.10 ms  2.58 ms   539 KB   804 KB    6723   16393
//	x-y powers          3.13 ms  2.64 ms   564 KB   804 KB    6613   16393
//	x*y:y powers        3.37 ms  2.71 ms   748 KB   804 KB    7966   16393
//	x*y+x*y powers      3.45 ms  2.88 ms   578 KB   803 KB    6750   16375
//	5e-1233+            1.28 ms  1.31 ms   345 KB   360 KB    3419    6281
//	600-digit numbers   0.20 ms  0.16 ms    72 KB    12 KB     285     107
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

// measure runs evaluate b.N times, reporting allocations and CPU time.
func measure(b *testing.B, evaluate func()) {
	b.ReportAllocs()
	cpu, cpuOK := cpuTime()
	for b.Loop() {
		evaluate()
	}
	b.StopTimer()
	if end, ok := cpuTime(); ok && cpuOK {
		b.ReportMetric(float64(end-cpu)/float64(b.N), "cpu-ns/op")
	}
}

// cpuTime returns the CPU time, user and system, that the process has used
// so far, from /proc/self/stat, as the root package's benchmarks read it;
// ok is false on systems without /proc.
func cpuTime() (d time.Duration, ok bool) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	// The command name, field 2, is in parentheses and may hold spaces;
	// utime and stime are fields 14 and 15, in clock ticks of 1/100 s.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}
