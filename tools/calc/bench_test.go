package calc

import (
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
