package calc

import (
	"errors"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// FuzzEval checks, for any input, that Evaluate does not panic and returns
// either a finite value or an *Error whose position lies in the input; that
// a tree prints as text that parses back to the same tree; and that expr
// agrees (see compareWithExpr). The seeds are the corpus; inputs the fuzzer
// found worth keeping are in testdata/fuzz/FuzzEval.
//
//	go test -fuzz=FuzzEval ./tools/calc
func FuzzEval(f *testing.F) {
	for _, c := range readCorpus(f) {
		f.Add(c.input)
	}
	f.Fuzz(func(t *testing.T, input string) {
		v, tree, err := Evaluate(input)
		if err != nil {
			var e *Error
			require.ErrorAs(t, err, &e, "Evaluate(%q)", input)
			require.True(t, 0 <= e.Offset && e.Offset <= len(input),
				"Evaluate(%q): Offset %d outside the input", input, e.Offset)
			require.Equal(t, utf8.RuneCountInString(input[:e.Offset])+1, e.Column,
				"Evaluate(%q): Column, for Offset %d", input, e.Offset)
			caret := e.Caret(input)
			require.Equal(t, 1, strings.Count(caret, "\n"), "Caret for %q: %q", input, caret)
			require.True(t, strings.HasSuffix(caret, "^"), "Caret for %q: %q", input, caret)
		} else {
			require.False(t, math.IsInf(v, 0) || math.IsNaN(v), "Evaluate(%q) = %v", input, v)
			printed := tree.String()
			again, err := Parse(printed)
			if err != nil { // the parentheses String adds may pass a limit
				require.True(t, errors.Is(err, ErrTooDeep) || errors.Is(err, ErrTooLong),
					"Parse(%q), the tree of %q printed: %v", printed, input, err)
			} else {
				require.Equal(t, printed, again.String(), "Parse(%q).String(), the tree of %q printed", printed, input)
			}
		}
		compareWithExpr(t, input)
	})
}
