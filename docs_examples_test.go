package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/modfile"
	"golang.org/x/tools/txtar"

	"mcp-hello-tools/internal/stdio"
	"mcp-hello-tools/internal/streamable"
	"mcp-hello-tools/tools"
	"mcp-hello-tools/tools/calc"
)

// What the pages show the server do is what it does. Each example is
// marked by the comment before its fenced block:
//
//   - <!-- example: tools/call -->: a json block of a tools/call's params,
//     then one of the whole result, as the server answers;
//   - <!-- transcript: NAME -->: a jsonc block of messages, one a line,
//     each after a "// →" (client to server) or "// ←" (server to client)
//     comment line, and each a line of testdata/NAME.txtar (which
//     TestTranscripts checks against the server), whole, or a part of one
//     (within) when its comment line says "in part";
//   - <!-- code: PATH -->: a go block that is in PATH, verbatim;
//   - <!-- config: ARGS -->: a block of what "config ARGS" prints.
//
// Every command of their sh blocks is run by .ci/readme, and the limits
// docs/limits.md states are formatted from their constants.

var examplePattern = regexp.MustCompile("(?s)<!-- example: tools/call -->\\s*```json\\n(.*?)```.*?```json\\n(.*?)```")

func TestReadmeToolExamples(t *testing.T) {
	examples := examplePattern.FindAllStringSubmatch(readme(t), -1)
	require.NotEmpty(t, examples, "README has no <!-- example: tools/call --> blocks")
	session := connectInMemory(t, "2025-11-25")
	for _, ex := range examples {
		var params mcp.CallToolParams
		require.NoError(t, json.Unmarshal([]byte(ex[1]), &params), "README example params:\n%s", ex[1])
		res, err := session.CallTool(context.Background(), &params)
		require.NoError(t, err, "CallTool(%s)", ex[1])
		assert.JSONEq(t, ex[2], mustJSON(t, res), "the server's result for\n%s", ex[1])
	}
}

var transcriptExamplePattern = regexp.MustCompile("(?s)<!-- transcript: ([a-z_]+) -->\\s*```jsonc\\n(.*?)```")

func TestReadmeWireExamples(t *testing.T) {
	require.Regexp(t, transcriptExamplePattern, readme(t), "README has no <!-- transcript: NAME --> blocks")
	for page, text := range docPages(t) {
		for _, block := range transcriptExamplePattern.FindAllStringSubmatch(text, -1) {
			archive, err := txtar.ParseFile(filepath.Join("testdata", block[1]+".txtar"))
			require.NoError(t, err, "%s quotes transcript %q", page, block[1])
			lines := map[string][]any{
				"→": decodeLines(t, nonEmptyLines(string(txtarFile(archive, "send").Data))),
				"←": decodeLines(t, nonEmptyLines(string(txtarFile(archive, "receive").Data))),
			}
			arrow, inPart := "", false
			for _, line := range nonEmptyLines(block[2]) {
				if comment, ok := strings.CutPrefix(line, "//"); ok {
					if fields := strings.Fields(comment); len(fields) > 0 && (fields[0] == "→" || fields[0] == "←") {
						arrow, inPart = fields[0], strings.Contains(comment, "in part")
					}
					continue
				}
				require.NotEmpty(t, arrow, "%s: a message before any // → or // ← line: %s", page, line)
				msg := decodeLines(t, []string{line})[0]
				found := slices.ContainsFunc(lines[arrow], func(got any) bool { return inPart && within(msg, got) || reflect.DeepEqual(msg, got) })
				assert.True(t, found, "%s quotes a %s line that is not in testdata/%s.txtar, whole or (if its comment line says so) in part:\n%s",
					page, arrow, block[1], line)
			}
		}
	}
}

// within reports whether want is got, or a part of it: an object of want
// may leave out members of got's, at any depth, as the README's tools/list
// reply, shown in part, leaves out most of the schemas.
func within(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		for k, v := range w {
			if !ok || !within(v, g[k]) {
				return false
			}
		}
		return ok
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !within(w[i], g[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(want, got)
}

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

var configBlockPattern = regexp.MustCompile("(?s)<!-- config: ([^>]+?) -->\\s*```[a-z]*\\n(.*?)```")

func TestConfigBlocks(t *testing.T) {
	found := 0
	for page, text := range docPages(t) {
		for _, m := range configBlockPattern.FindAllStringSubmatch(text, -1) {
			found++
			var stdout, stderr strings.Builder
			if assert.NoError(t, runConfig(strings.Fields(m[1]), &stdout, &stderr), "%s: config %s; stderr:\n%s", page, m[1], &stderr) {
				assert.Equal(t, stdout.String(), m[2], "%s: what config %s prints", page, m[1])
			}
		}
	}
	assert.NotZero(t, found, "no page shows what config prints, under <!-- config: ARGS -->")
}

// TestLimitsPage: docs/limits.md states each limit of this package and of
// the exported constants as the code has it (the internal packages check
// their own).
func TestLimitsPage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("docs", "limits.md"))
	require.NoError(t, err)
	secs := func(d time.Duration) string { return fmt.Sprintf("%d s", int(d.Seconds())) }
	for _, want := range []string{
		fmt.Sprintf("%d MiB (`MaxLine`)", stdio.MaxLine>>20),
		"no such progress for " + secs(stdio.GracePeriod) + " (`GracePeriod`)",
		fmt.Sprintf("at least %d KiB/s (`MinReadRate`)", stdio.MinReadRate>>10),
		fmt.Sprintf("in parts of %d KiB", int(stdio.MinReadRate*stdio.GracePeriod.Seconds())>>10),
		fmt.Sprintf("%d minute (`RunPeriod`)", int(stdio.RunPeriod.Minutes())),
		fmt.Sprintf("%d MiB (`MaxBodySize`)", streamable.MaxBodySize>>20),
		fmt.Sprintf("%d MiB of bodies (`MaxInFlightSize`", streamable.MaxInFlightSize>>20),
		secs(streamable.BodyTimeout) + " each (`BodyTimeout`)",
		secs(streamable.BodyTimeout) + " after it starts (`BodyTimeout`)",
		"closed after " + secs(streamable.BodyTimeout),
		fmt.Sprintf("%d at once", maxConnections),
		fmt.Sprintf("at most %d MiB of bodies are held at once: %d connections × %d KiB, and %d MiB",
			(maxConnections*streamable.SmallBodySize+streamable.MaxInFlightSize)>>20, maxConnections, streamable.SmallBodySize>>10,
			streamable.MaxInFlightSize>>20),
		"closed within " + secs(2*streamable.BodyTimeout) + ", twice `BodyTimeout`",
		secs(streamable.MaxConnectionAge) + " old (`MaxConnectionAge`)",
		fmt.Sprintf("%d of the 2025 handshake (`MaxSessions`)", streamable.MaxSessions),
		fmt.Sprintf("idle %d minutes ends", int(streamable.SessionTimeout.Minutes())),
		fmt.Sprintf("at most %s characters", grouped(tools.MaxEchoLength)),
		fmt.Sprintf("past %d MiB (`memoryLimit`", memoryLimit>>20),
		fmt.Sprintf("%s characters, %d levels of nesting, %s bits a numerator or denominator, %d significant digits",
			grouped(calc.MaxLength), calc.MaxDepth, grouped(calc.MaxBits), calc.MaxDigits),
	} {
		assert.Contains(t, string(data), want, "docs/limits.md")
	}
}

// grouped writes n with commas between groups of three digits, as the docs do.
func grouped(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestReadmeGetsRootVersions: the README's "Your own server" gets each
// module at the version this module requires, so that the reader's copy
// compiles the versions already compiled here (tidy alone picks older
// x/sys and x/sync than go-sdk's dependents here do).
func TestReadmeGetsRootVersions(t *testing.T) {
	data, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	root, err := modfile.Parse("go.mod", data, nil)
	require.NoError(t, err)
	required := map[string]string{}
	for _, r := range root.Require {
		required[r.Mod.Path] = r.Mod.Version
	}
	line := regexp.MustCompile(`(?m)^go -C \.\./my-server get (.+)$`).FindStringSubmatch(readme(t))
	require.NotNil(t, line, "the README gets no modules into ../my-server")
	for _, arg := range strings.Fields(line[1]) {
		path, version, _ := strings.Cut(arg, "@")
		assert.Equal(t, required[path], version, "the README's go get of %s: go.mod requires %s", arg, required[path])
	}
}

// TestSecondWeekMain: each line docs/second-week.md has the reader add to
// their main.go is in examples/second-week/main.go, which stands in for it,
// so that go test compiles what .ci/readme writes into the reader's module.
func TestSecondWeekMain(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("docs", "second-week.md"))
	require.NoError(t, err)
	main, err := os.ReadFile(filepath.Join("examples", "second-week", "main.go"))
	require.NoError(t, err)
	edits := regexp.MustCompile("(?s)<!-- readme: (?:after|instead of) \"[^\n]*\" in \\.\\./my-server/main\\.go -->\n```go\n(.*?)```").FindAllStringSubmatch(string(page), -1)
	require.NotEmpty(t, edits, "docs/second-week.md changes nothing in the reader's main.go")
	for _, e := range edits {
		assert.Contains(t, string(main), e[1], "docs/second-week.md has the reader add lines that examples/second-week/main.go has not")
	}
}
