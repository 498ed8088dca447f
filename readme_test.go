package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"mcp-hello-tools/internal/stdio"
	"mcp-hello-tools/internal/streamable"
	"mcp-hello-tools/tools"
	"mcp-hello-tools/tools/calc"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"
)

// The README and the pages of docs/ are part of the lesson, so nothing in
// them may go stale. These tests read their examples and check them
// against the server:
//
//   - a fenced json block after <!-- example: tools/call --> holds the params
//     of a tools/call; the next json block is the server's whole result, as
//     the server answers with its clock stopped at fixedNow;
//   - a fenced jsonc block after <!-- transcript: NAME --> holds JSON-RPC
//     messages, each after a "// →" (client to server) or "// ←" (server to
//     client) comment line, and each must be a line of testdata/NAME.txtar,
//     whole, or a part of one (as within has it) when its comment line
//     says "in part";
//   - a fenced go block after <!-- code: PATH --> is in PATH, verbatim;
//   - every relative link leads to a file of the repository.
//
// Every command in their sh blocks is run by .ci/readme.

// readme returns the README and the pages of docs/, one after the other.
func readme(t *testing.T) string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("docs", "*.md"))
	require.NoError(t, err)
	var all strings.Builder
	for _, page := range append([]string{"README.md"}, pages...) {
		data, err := os.ReadFile(page)
		require.NoError(t, err)
		all.Write(data)
	}
	return all.String()
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
		if !assert.JSONEq(t, ex.result, got) {
			t.Logf("README example: the server's result for\n%s\nis\n%s", ex.params, indented.String())
		}
	}
	for _, tool := range tools.Names() {
		assert.True(t, called[tool], "README has no example call of %s", tool)
		assert.True(t, strings.Contains(readme(t), "| `"+tool+"` |"), "the README's table of tools, at the top, has no row for %s", tool)
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
			found := slices.ContainsFunc(lines[msg.arrow], func(line any) bool {
				if msg.inPart {
					return within(msg.value, line)
				}
				return reflect.DeepEqual(msg.value, line)
			})
			how := "whole (or say \"in part\" in its comment line)"
			if msg.inPart {
				how = "in part"
			}
			assert.True(t, found, "README quotes a %s line that is not in testdata/%s.txtar, %s:\n%s", msg.arrow, name, how, msg.text)
		}
	}
}

// readmeMessage is a JSON-RPC message quoted in the README, and its direction.
type readmeMessage struct {
	arrow  string // "→" sent by the client, "←" sent by the server
	inPart bool   // whether its comment line says "in part": it shows a part of the line
	text   string
	value  any
}

// readmeMessages splits a jsonc block into its messages: each "// →" or
// "// ←" comment line starts a run of JSON values going that way.
func readmeMessages(t *testing.T, block string) []readmeMessage {
	var msgs []readmeMessage
	arrow, inPart, run := "", false, ""
	flush := func() {
		dec := json.NewDecoder(strings.NewReader(run))
		dec.UseNumber()
		for {
			var v any
			start := dec.InputOffset()
			err := dec.Decode(&v)
			if errors.Is(err, io.EOF) {
				break
			}
			require.NoError(t, err, "README jsonc block: bad JSON after // %s:\n%s", arrow, run)
			require.NotEmpty(t, arrow, "README jsonc block: a message before any // → or // ← line")
			msgs = append(msgs, readmeMessage{arrow, inPart, strings.TrimSpace(run[start:dec.InputOffset()]), v})
		}
		run = ""
	}
	for line := range strings.Lines(block) {
		if comment, ok := strings.CutPrefix(strings.TrimSpace(line), "//"); ok {
			flush()
			if fields := strings.Fields(comment); len(fields) > 0 && (fields[0] == "→" || fields[0] == "←") {
				arrow, inPart = fields[0], strings.Contains(comment, "in part")
			}
			continue
		}
		run += line
	}
	flush()
	return msgs
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

// decodeJSONLines decodes each non-empty line of f as JSON.
func decodeJSONLines(t *testing.T, f *txtar.File) []any {
	require.NotNil(t, f)
	var values []any
	for _, line := range nonEmptyLines(string(f.Data)) {
		var v any
		dec := json.NewDecoder(bytes.NewReader([]byte(line)))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&v), "not JSON: %s", line)
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

// TestExerciseHints checks that each exercise's hints, exercises/N-NAME.md,
// name in backticks every file its reference solution, N-NAME.patch,
// touches: a learner who follows the hints is never left to find a file
// alone. (.ci/exercises checks that go test passes with each applied.)
func TestExerciseHints(t *testing.T) {
	patches, err := filepath.Glob(filepath.Join("exercises", "*.patch"))
	require.NoError(t, err)
	require.NotEmpty(t, patches)
	touched := regexp.MustCompile(`(?m)^diff --git a/(\S+) b/`)
	for _, patch := range patches {
		hints, err := os.ReadFile(strings.TrimSuffix(patch, ".patch") + ".md")
		require.NoError(t, err, "%s has no hints beside it", patch)
		assert.Contains(t, readme(t), "("+strings.TrimSuffix(patch, ".patch")+".md)", "the README links no hints of %s", patch)
		data, err := os.ReadFile(patch)
		require.NoError(t, err)
		files := touched.FindAllStringSubmatch(string(data), -1)
		require.NotEmpty(t, files, "%s touches no file", patch)
		for _, f := range files {
			assert.True(t, namedIn(string(hints), f[1]), "the hints of %s do not name %s, which it touches", patch, f[1])
		}
	}
}

// TestReadmeClients checks the README and docs/clients.md against
// interop/clients.json, the list interop/run checks the server with: the
// README names each client and version, and docs/clients.md has the table
// node interop/table.mjs prints.
func TestReadmeClients(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("interop", "clients.json"))
	require.NoError(t, err)
	var list struct {
		Clients []struct {
			Name, Checked, Notes string
			Packages             []struct{ Package, Version string }
			Transports, Modes    []string
		}
	}
	require.NoError(t, json.Unmarshal(data, &list))
	readmeText, err := os.ReadFile("README.md")
	require.NoError(t, err)
	short := strings.Join(strings.Fields(string(readmeText)), " ")
	table := "| client | package | version | transports | modes | checked | notes |\n|---|---|---|---|---|---|---|\n"
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, c := range list.Clients {
		var packages, versions, modes []string
		for _, p := range c.Packages {
			packages, versions = append(packages, "`"+p.Package+"`"), append(versions, p.Version)
		}
		for _, m := range c.Modes {
			modes = append(modes, "`"+m+"`")
		}
		transports := strings.ReplaceAll(strings.Join(c.Transports, ", "), "http", "Streamable HTTP")
		table += "| " + strings.Join([]string{cell(c.Name), strings.Join(packages, ", "), strings.Join(versions, ", "), transports,
			strings.Join(modes, ", "), cell(c.Checked), cell(c.Notes)}, " | ") + " |\n"
		if c.Checked != "" && !strings.Contains(c.Name, "offline") && !strings.HasPrefix(c.Name, "Tool schemas") {
			assert.True(t, strings.Contains(short, c.Name+" "+versions[0]) || strings.Contains(short, c.Name+" v") ||
				strings.Contains(short, versions[0]), "README does not name %s %s", c.Name, versions[0])
		}
	}
	page, err := os.ReadFile(filepath.Join("docs", "clients.md"))
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(page), table), "docs/clients.md has not the table of interop/clients.json; print it with node interop/table.mjs:\n%s", table)
}

// TestLinks checks that every relative link of the README, docs/ and the
// exercises' hints leads to a file of the repository.
func TestLinks(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join("docs", "*.md"))
	require.NoError(t, err)
	hints, err := filepath.Glob(filepath.Join("exercises", "*.md"))
	require.NoError(t, err)
	link := regexp.MustCompile(`\]\(([^)#]+)(#[^)]*)?\)`)
	for _, page := range append(append([]string{"README.md"}, pages...), hints...) {
		data, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			if strings.Contains(m[1], "://") {
				continue
			}
			_, err := os.Stat(filepath.Join(filepath.Dir(page), m[1]))
			assert.NoError(t, err, "%s links %s", page, m[1])
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

// TestLimitsPage: docs/limits.md states each limit of this package and of
// the exported constants as the code has it (the internal packages check
// their own).
func TestLimitsPage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("docs", "limits.md"))
	require.NoError(t, err)
	page := string(data)
	seconds := func(d time.Duration) string { return fmt.Sprintf("%d s", int(d.Seconds())) }
	for _, want := range []string{
		fmt.Sprintf("%d MiB (`MaxLine`)", stdio.MaxLine>>20),
		"within " + seconds(stdio.GracePeriod) + " (`GracePeriod`)",
		fmt.Sprintf("%d MiB (`MaxBodySize`)", streamable.MaxBodySize>>20),
		fmt.Sprintf("%d MiB of bodies (`MaxInFlightSize`", streamable.MaxInFlightSize>>20),
		seconds(streamable.BodyTimeout) + " each (`BodyTimeout`)",
		seconds(streamable.BodyTimeout) + " after it starts (`BodyTimeout`)",
		"closed after " + seconds(streamable.BodyTimeout),
		fmt.Sprintf("%d at once", maxConnections),
		fmt.Sprintf("at most %d MiB of bodies are held at once: %d connections × %d KiB, and %d MiB",
			(maxConnections*streamable.SmallBodySize+streamable.MaxInFlightSize)>>20, maxConnections, streamable.SmallBodySize>>10,
			streamable.MaxInFlightSize>>20),
		"closed within " + seconds(2*streamable.BodyTimeout) + ", twice `BodyTimeout`",
		seconds(streamable.MaxConnectionAge) + " old (`MaxConnectionAge`)",
		fmt.Sprintf("%d of the 2025 handshake (`MaxSessions`)", streamable.MaxSessions),
		fmt.Sprintf("idle %d minutes ends", int(streamable.SessionTimeout.Minutes())),
		fmt.Sprintf("at most %s characters", grouped(tools.MaxEchoLength)),
		fmt.Sprintf("past %d MiB (`memoryLimit`", memoryLimit>>20),
		fmt.Sprintf("%s characters, %d levels of nesting, %s bits a numerator or denominator, %d significant digits",
			grouped(calc.MaxLength), calc.MaxDepth, grouped(calc.MaxBits), calc.MaxDigits),
	} {
		assert.Contains(t, page, want, "docs/limits.md")
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
