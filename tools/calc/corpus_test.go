package calc

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A corpusCase is one case of testdata/*.calc: an expression and the line
// after it, which is the value as Value.String writes it, with
// "approximate: " before it when Value.Exact is false, or "error: " and
// part of the message, with {operators} replaced by operatorList.
type corpusCase struct {
	name  string // file:line of the expression
	input string // the expression, with {N*text} expanded
	want  string
}

// repeat matches {N*text} in a corpus expression.
var repeat = regexp.MustCompile(`\{(\d+)\*([^}]*)\}`)

// readCorpus reads every case in testdata/*.calc; arithmetic.calc describes
// the format.
func readCorpus(t testing.TB) []corpusCase {
	files, err := filepath.Glob("testdata/*.calc")
	require.NoError(t, err)
	require.NotEmpty(t, files, "no testdata/*.calc")
	var cases []corpusCase
	for _, file := range files {
		f, err := os.Open(file)
		require.NoError(t, err)
		var lines []string // expression, result, each with its line number
		var lineNums []int
		s := bufio.NewScanner(f)
		for n := 1; s.Scan(); n++ {
			if line := s.Text(); line != "" && !strings.HasPrefix(line, "#") {
				lines = append(lines, line)
				lineNums = append(lineNums, n)
			}
		}
		require.NoError(t, s.Err(), file)
		require.NoError(t, f.Close(), file)
		require.True(t, len(lines)%2 == 0, "%s: an expression at line %d has no result line", file, lineNums[len(lineNums)-1])
		for i := 0; i < len(lines); i += 2 {
			cases = append(cases, corpusCase{
				name:  fmt.Sprintf("%s:%d", filepath.Base(file), lineNums[i]),
				input: expand(lines[i]),
				want:  strings.ReplaceAll(lines[i+1], "{operators}", operatorList()),
			})
		}
	}
	return cases
}

// expand replaces each {N*text} in a corpus expression by N copies of text.
func expand(line string) string {
	return repeat.ReplaceAllStringFunc(line, func(m string) string {
		sub := repeat.FindStringSubmatch(m)
		n, err := strconv.Atoi(sub[1])
		if err != nil {
			panic(fmt.Sprintf("bad repeat %q: %v", m, err)) // the regexp admits only digits
		}
		return strings.Repeat(sub[2], n)
	})
}

// operatorList returns the table's operators as messages list them, such
// as "+ - * / ^". It is written anew here, not taken from the package, so
// that the corpus checks the messages' list too.
func operatorList() string {
	var list []string
	for _, op := range operators {
		list = append(list, string(op.Symbol))
	}
	return strings.Join(list, " ")
}

// TestCorpus evaluates every case in testdata/*.calc.
func TestCorpus(t *testing.T) {
	for _, c := range readCorpus(t) {
		t.Run(c.name, func(t *testing.T) {
			v, _, err := Evaluate(c.input)
			if msg, ok := strings.CutPrefix(c.want, "error: "); ok {
				require.Error(t, err, "Evaluate(%.40q) = %v, want error", c.input, v)
				assert.Contains(t, err.Error(), msg, "Evaluate(%.40q)", c.input)
				return
			}
			require.NoError(t, err, "Evaluate(%.40q)", c.input)
			assert.Equal(t, c.want, corpusValue(v), "Evaluate(%.40q)", c.input)
		})
	}
}

// corpusValue writes v as the corpus does: "0.3", or "approximate: 0.1".
func corpusValue(v *Value) string {
	if v.Exact() {
		return v.String()
	}
	return "approximate: " + v.String()
}
