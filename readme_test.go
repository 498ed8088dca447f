package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"mcp-hello-tools/tools"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"
)

// The README is part of the lesson, so nothing in it may go stale. These
// tests read its examples and check them against the server:
//
//   - a fenced json block after <!-- example: tools/call --> holds the params
//     of a tools/call; the next json block is the server's whole result, as
//     the server answers with its clock stopped at fixedNow;
//   - a fenced jsonc block after <!-- transcript: NAME --> holds JSON-RPC
//     messages, each after a "// →" (client to server) or "// ←" (server to
//     client) comment line, and each must be a line of testdata/NAME.txtar.
//
// Every command in the README's sh blocks is run by .ci/readme.

func readme(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("README.md")
	require.NoError(t, err)
	return string(data)
}

// toolExample is a tools/call example of the README: the params sent and the
// result the README says the server answers with.
type toolExample struct {
	params, result string
}

var toolExamplePattern = regexp.MustCompile(
	"(?s)<!-- example: tools/call -->\\s*```json\\n(.*?)```.*?```json\\n(.*?)```")

func TestReadmeToolExamples(t *testing.T) {
	var examples []toolExample
	for _, m := range toolExamplePattern.FindAllStringSubmatch(readme(t), -1) {
		examples = append(examples, toolExample{params: m[1], result: m[2]})
	}
	require.NotEmpty(t, examples, "README has no <!-- example: tools/call --> blocks")

	session := connectInMemory(t, "2025-11-25")
	called := map[string]bool{}
	for _, ex := range examples {
		var params mcp.CallToolParams
		require.NoError(t, json.Unmarshal([]byte(ex.params), &params), "README example params:\n%s", ex.params)
		called[params.Name] = true
		res, err := session.CallTool(context.Background(), &params)
		require.NoError(t, err, "CallTool(%s)", ex.params)
		got := mustJSON(t, res)
		var indented bytes.Buffer
		require.NoError(t, json.Indent(&indented, []byte(got), "", "  "))
		assert.JSONEq(t, ex.result, got, "README example: the server's result for\n%s\nis\n%s", ex.params, indented.String())
	}
	for _, tool := range tools.Names() {
		assert.True(t, called[tool], "README has no example call of %s", tool)
		assert.Contains(t, readme(t), "| `"+tool+"` |", "the README's table of tools, at the top, has no row for %s", tool)
	}
}

var transcriptExamplePattern = regexp.MustCompile("(?s)<!-- transcript: ([a-z_]+) -->\\s*```jsonc\\n(.*?)```")

func TestReadmeWireExamples(t *testing.T) {
	blocks := transcriptExamplePattern.FindAllStringSubmatch(readme(t), -1)
	require.NotEmpty(t, blocks, "README has no <!-- transcript: NAME --> blocks")
	for _, block := range blocks {
		name, text := block[1], block[2]
		archive, err := txtar.ParseFile(filepath.Join("testdata", name+".txtar"))
		require.NoError(t, err, "README quotes transcript %q", name)
		lines := map[string][]any{
			"→": decodeJSONLines(t, txtarFile(archive, "send")),
			"←": decodeJSONLines(t, txtarFile(archive, "receive")),
		}
		for _, msg := range readmeMessages(t, text) {
			assert.Contains(t, lines[msg.arrow], msg.value,
				"README quotes a %s line that is not in testdata/%s.txtar:\n%s", msg.arrow, name, msg.text)
		}
	}
}

// readmeMessage is a JSON-RPC message quoted in the README, and its direction.
type readmeMessage struct {
	arrow string // "→" sent by the client, "←" sent by the server
	text  string
	value any
}

// readmeMessages splits a jsonc block into its messages: each "// →" or
// "// ←" comment line starts a run of JSON values going that way.
func readmeMessages(t *testing.T, block string) []readmeMessage {
	var msgs []readmeMessage
	arrow, run := "", ""
	flush := func() {
		dec := json.NewDecoder(strings.NewReader(run))
		for {
			var v any
			start := dec.InputOffset()
			err := dec.Decode(&v)
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err, "README jsonc block: bad JSON after // %s:\n%s", arrow, run)
			require.NotEmpty(t, arrow, "README jsonc block: a message before any // → or // ← line")
			msgs = append(msgs, readmeMessage{arrow, strings.TrimSpace(run[start:dec.InputOffset()]), v})
		}
		run = ""
	}
	for line := range strings.Lines(block) {
		if comment, ok := strings.CutPrefix(strings.TrimSpace(line), "//"); ok {
			flush()
			if fields := strings.Fields(comment); len(fields) > 0 && (fields[0] == "→" || fields[0] == "←") {
				arrow = fields[0]
			}
			continue
		}
		run += line
	}
	flush()
	return msgs
}

// decodeJSONLines decodes each non-empty line of f as JSON.
func decodeJSONLines(t *testing.T, f *txtar.File) []any {
	require.NotNil(t, f)
	var values []any
	for _, line := range nonEmptyLines(string(f.Data)) {
		var v any
		require.NoError(t, json.NewDecoder(bytes.NewReader([]byte(line))).Decode(&v), "not JSON: %s", line)
		values = append(values, v)
	}
	return values
}

// codePattern finds the README's quotes of code: a fenced go block after
// <!-- code: PATH -->, which must be in PATH, verbatim.
var codePattern = regexp.MustCompile("(?s)<!-- code: ([^ ]+) -->\\s*```go\\n(.*?)```")

func TestReadmeCode(t *testing.T) {
	quotes := codePattern.FindAllStringSubmatch(readme(t), -1)
	require.NotEmpty(t, quotes, "README has no <!-- code: PATH --> blocks")
	for _, q := range quotes {
		src, err := os.ReadFile(q[1])
		require.NoError(t, err, "README quotes %s", q[1])
		assert.True(t, strings.Contains(string(src), q[2]), "README quotes code that is not in %s:\n%s", q[1], q[2])
	}
}

// exerciseHeading matches an exercise's heading in the README: "### 1. …".
var exerciseHeading = regexp.MustCompile(`(?m)^### (\d+)\. `)

// TestExerciseHints checks that each exercise's hints name, in backticks,
// every file its reference solution, exercises/N-NAME.patch, touches: a
// learner who follows the hints is never left to find a file alone.
// (.ci/exercises checks that go test passes with each patch applied.)
func TestExerciseHints(t *testing.T) {
	text := readme(t)
	start := strings.Index(text, "\n## Exercises\n")
	require.GreaterOrEqual(t, start, 0, "README has no Exercises section")
	text = text[start:]
	if end := strings.Index(text[1:], "\n## "); end >= 0 {
		text = text[:end+1]
	}
	sections := map[string]string{}
	heads := exerciseHeading.FindAllStringSubmatchIndex(text, -1)
	for i, h := range heads {
		end := len(text)
		if i+1 < len(heads) {
			end = heads[i+1][0]
		}
		sections[text[h[2]:h[3]]] = text[h[0]:end]
	}
	patches, err := filepath.Glob(filepath.Join("exercises", "*.patch"))
	require.NoError(t, err)
	require.NotEmpty(t, patches)
	touched := regexp.MustCompile(`(?m)^diff --git a/(\S+) b/`)
	for _, patch := range patches {
		number, _, _ := strings.Cut(filepath.Base(patch), "-")
		hints, ok := sections[number]
		require.True(t, ok, "%s has no exercise %s. in the README", patch, number)
		data, err := os.ReadFile(patch)
		require.NoError(t, err)
		files := touched.FindAllStringSubmatch(string(data), -1)
		require.NotEmpty(t, files, "%s touches no file", patch)
		for _, f := range files {
			assert.True(t, namedIn(hints, f[1]), "the hints of exercise %s do not name %s, which %s touches", number, f[1], patch)
		}
	}
}

// namedIn reports whether hints name file in backticks, itself or by a
// pattern such as `testdata/*.txtar`.
func namedIn(hints, file string) bool {
	for _, m := range backticked.FindAllStringSubmatch(hints, -1) {
		if ok, _ := path.Match(m[1], file); ok {
			return true
		}
	}
	return false
}

var backticked = regexp.MustCompile("`([^`]+)`")
