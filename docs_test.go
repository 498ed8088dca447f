package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
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
//   - every relative link leads to a file of the repository;
//   - every name of code they give as package.Name is declared, as is every
//     one the transcripts' comments and shortfalls_test.go give;
//   - docs/hosts.md and docs/model.md quote the hosts' captures (below).
//
// Every command in their sh blocks is run by .ci/readme.

// readme returns the README and the pages of docs/, one after the other.
func readme(t *testing.T) string {
	t.Helper()
	var all strings.Builder
	for _, text := range docPages(t) {
		all.WriteString(text)
	}
	return all.String()
}

// docPages returns the README and each page of docs/, by file name.
func docPages(t *testing.T) map[string]string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("docs", "*.md"))
	require.NoError(t, err)
	texts := make(map[string]string)
	for _, page := range append([]string{"README.md"}, pages...) {
		data, err := os.ReadFile(page)
		require.NoError(t, err)
		texts[page] = string(data)
	}
	return texts
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
	for _, ex := range examples {
		var params mcp.CallToolParams
		require.NoError(t, json.Unmarshal([]byte(ex.params), &params), "README example params:\n%s", ex.params)
		res, err := session.CallTool(context.Background(), &params)
		require.NoError(t, err, "CallTool(%s)", ex.params)
		got := mustJSON(t, res)
		var indented bytes.Buffer
		require.NoError(t, json.Indent(&indented, []byte(got), "", "  "))
		if !assert.JSONEq(t, ex.result, got) {
			t.Logf("README example: the server's result for\n%s\nis\n%s", ex.params, indented.String())
		}
	}
	// The tour names tools the server has; a tool added need not be in it.
	for _, m := range regexp.MustCompile("\\*\\*\\[`([a-z_]+)`\\]\\(tools/").FindAllStringSubmatch(readme(t), -1) {
		assert.Contains(t, toolNames(), m[1], "the README's tour of the tools has a paragraph on %s, which the server does not have", m[1])
	}
}

var transcriptExamplePattern = regexp.MustCompile("(?s)<!-- transcript: ([a-z_]+) -->\\s*```jsonc\\n(.*?)```")

func TestReadmeWireExamples(t *testing.T) {
	require.Regexp(t, transcriptExamplePattern, readme(t), "README has no <!-- transcript: NAME --> blocks")
	for page, pageText := range docPages(t) {
		for _, block := range transcriptExamplePattern.FindAllStringSubmatch(pageText, -1) {
			checkWireExample(t, page, block[1], block[2])
		}
	}
}

// checkWireExample checks that each message a page quotes from the
// transcript name, in text, is in it, whole or, if its comment says so, in
// part.
func checkWireExample(t *testing.T, page, name, text string) {
	t.Helper()
	archive, err := txtar.ParseFile(filepath.Join("testdata", name+".txtar"))
	require.NoError(t, err, "%s quotes transcript %q", page, name)
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
		assert.True(t, found, "%s quotes a %s line that is not in testdata/%s.txtar, %s:\n%s", page, msg.arrow, name, how, msg.text)
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

// TestClientsPage checks docs/clients.md against interop/clients.json, the
// list interop/run checks the server with: it has the table node
// interop/table.mjs prints.
func TestClientsPage(t *testing.T) {
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
		"no such progress for " + seconds(stdio.GracePeriod) + " (`GracePeriod`)",
		fmt.Sprintf("at least %d KiB/s (`MinReadRate`)", stdio.MinReadRate>>10),
		fmt.Sprintf("in parts of %d KiB", int(stdio.MinReadRate*stdio.GracePeriod.Seconds())>>10),
		fmt.Sprintf("%d minute (`RunPeriod`)", int(stdio.RunPeriod.Minutes())),
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

// TestProseNamesCode checks that every name of code the prose gives as
// package.Name, or package.Type.Member, is declared in that package: the
// README, the pages of docs/, the transcripts' comments, and
// shortfalls_test.go, whose messages name the code to delete once go-sdk
// is fixed. A rename then fails here, not in a reader's hands. It knows
// this module's packages and go-sdk's mcp and jsonrpc; other names, such
// as the standard library's, it leaves alone.
func TestProseNamesCode(t *testing.T) {
	packages := codePackages(t)
	names := make([]string, 0, len(packages))
	for name := range packages {
		names = append(names, name)
	}
	// Not after a word, a dot, a slash or a hyphen: "docs/stdio.md" names
	// no code, nor does "internal/stdio".
	mention := regexp.MustCompile(`(?:^|[^\w./-])(` + strings.Join(names, "|") + `)\.([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?`)
	fileExtensions := map[string]bool{"go": true, "md": true, "txtar": true, "json": true, "mod": true, "log": true}
	codeBlock := regexp.MustCompile("(?ms)^[ \t]*```.*?^[ \t]*```") // code, in its own language: quoted code is checked by TestReadmeCode

	prose := map[string]string{} // file: its prose
	for _, pattern := range []string{"README.md", "docs/*.md", "shortfalls_test.go", "testdata/*.txtar"} {
		files, err := filepath.Glob(pattern)
		require.NoError(t, err)
		require.NotEmpty(t, files, pattern)
		for _, file := range files {
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			switch filepath.Ext(file) {
			case ".txtar":
				data = txtar.Parse(data).Comment
			case ".md":
				data = codeBlock.ReplaceAll(data, nil)
			}
			prose[file] = string(data)
		}
	}
	declared := map[string]map[string]bool{} // package name: its names
	checked := 0
	for file, text := range prose {
		for _, m := range mention.FindAllStringSubmatch(text, -1) {
			pkg, name, member := m[1], m[2], m[3]
			if fileExtensions[name] {
				continue // a file: tools.go
			}
			if declared[pkg] == nil {
				declared[pkg] = declarations(t, packages[pkg])
			}
			checked++
			assert.True(t, declared[pkg][name], "%s names %s.%s, which %s does not declare", file, pkg, name, packages[pkg])
			if member != "" && declared[pkg][name+".*"] { // a type's field or method
				assert.True(t, declared[pkg][name+"."+member], "%s names %s.%s.%s, which %s does not declare", file, pkg, name, member, packages[pkg])
			}
		}
	}
	assert.Greater(t, checked, 10, "the prose names hardly any code: is the pattern still right?")
}

// codePackages returns the directory of each package prose may name code
// of, by its name: this module's, but main, and go-sdk's mcp and jsonrpc.
func codePackages(t *testing.T) map[string]string {
	packages := map[string]string{}
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if p != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		files, err := filepath.Glob(filepath.Join(p, "*.go"))
		if err != nil || len(files) == 0 {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), files[0], nil, parser.PackageClauseOnly)
		if err == nil && f.Name.Name != "main" {
			packages[f.Name.Name] = p
		}
		return err
	})
	require.NoError(t, err)
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/modelcontextprotocol/go-sdk").Output()
	require.NoError(t, err, "go list -m github.com/modelcontextprotocol/go-sdk")
	sdk := strings.TrimSpace(string(out))
	packages["mcp"], packages["jsonrpc"] = filepath.Join(sdk, "mcp"), filepath.Join(sdk, "jsonrpc")
	return packages
}

// declarations returns the names the package in dir declares, its tests
// aside: each top-level name, and for a type T, "T.*" and "T.M" for each of
// its fields and methods M.
func declarations(t *testing.T, dir string) map[string]bool {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	names := map[string]bool{}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv == nil {
					names[decl.Name.Name] = true
					continue
				}
				recv := decl.Recv.List[0].Type
				for {
					switch r := recv.(type) {
					case *ast.StarExpr:
						recv = r.X
						continue
					case *ast.IndexExpr:
						recv = r.X
						continue
					case *ast.IndexListExpr:
						recv = r.X
						continue
					}
					break
				}
				if id, ok := recv.(*ast.Ident); ok {
					names[id.Name+"."+decl.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.ValueSpec:
						for _, id := range spec.Names {
							names[id.Name] = true
						}
					case *ast.TypeSpec:
						names[spec.Name.Name], names[spec.Name.Name+".*"] = true, true
						var fields []*ast.Field
						switch typ := spec.Type.(type) {
						case *ast.StructType:
							fields = typ.Fields.List
						case *ast.InterfaceType:
							fields = typ.Methods.List
						}
						for _, field := range fields {
							for _, id := range field.Names {
								names[spec.Name.Name+"."+id.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return names
}

// What docs/hosts.md and docs/model.md say a host does is what interop/hosts
// saw it do: its captures, interop/hosts/captures/HOST.json, which
// interop/run compares with each fresh run of the hosts. These tests check
// the pages against the captures, so that neither can change alone. A
// capture keeps echo's definition alone, as the model got it: interop/run
// checks, live, that the host passes every other tool of the server's
// tools/list as it passes echo (its name renamed, its description and
// schema the server's, nothing added that echo has not), so that what is
// true of echo's definition is true of all, and a tool an exercise adds or
// changes needs no new capture.
//
//   - a fenced block after <!-- capture: HOST KEY --> quotes HOST's capture:
//     KEY is a label of the script (interop/hosts/script.json), for what the
//     model was shown for that call, or a path of member names into the
//     capture ("tools definitions echo"); a json block must be the value as
//     JSON, a text block the string itself;
//   - docs/hosts.md holds the tables hostsTable and revisionsTable make from
//     the captures; docs/model.md, the table probeTable makes from what
//     the probe learned in each host, and the README says the same in
//     the sentences readmeShows makes. "go test -run
//     '^TestHosts' . -args -tables" rewrites them (interop/hosts/update
//     does, after moving the hosts' pins).

// tables, set, makes the tests of the tables made from the captures
// rewrite them in the pages rather than check them.
var tables = flag.Bool("tables", false, "rewrite the tables docs/hosts.md and docs/model.md make from interop/hosts/captures")

// hostCapture is interop/hosts/captures/HOST.json, in the parts these tests read.
type hostCapture struct {
	Host, Title, Package, Version string
	First                         *struct{ Method, Revision string }
	Env                           struct{ Passed, Withheld, Added []string }
	StartLimit                    *struct {
		Seconds *int
		How     string
	}
	Tools struct {
		Naming      string
		Deferred    bool
		Definitions map[string]any
	}
	Shown map[string]any
	// Revisions are those the host asks for when set to, beside First.
	Revisions []struct {
		hostSettings
		First struct{ Method, Revision string }
	}
	// Probe is what the probe learned: a fact for each of its cases.
	Probe struct {
		Cases, Facts map[string]string
	}
	Variants map[string]struct {
		Env   map[string]string
		Probe map[string]string
	}
}

// hostSettings are a host's settings that choose a revision: variables of
// its own, features of Codex's config.toml, variables in the server's env.
type hostSettings struct {
	Env, Features, ServerEnv map[string]any
}

// captures returns the captures by host, as parsed (any) and as hostCapture.
func captures(t *testing.T) (map[string]any, map[string]hostCapture) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("interop", "hosts", "captures", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "interop/hosts/captures holds no capture")
	raw, typed := map[string]any{}, map[string]hostCapture{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		var v any
		var c hostCapture
		require.NoError(t, json.Unmarshal(data, &v), f)
		require.NoError(t, json.Unmarshal(data, &c), f)
		require.Equal(t, strings.TrimSuffix(filepath.Base(f), ".json"), c.Host, "%s names another host", f)
		raw[c.Host], typed[c.Host] = v, c
	}
	return raw, typed
}

var captureQuotePattern = regexp.MustCompile("(?s)<!-- capture: ([a-z-]+) ([^>]+?) -->\\s*```(json|text)\\n(.*?)```")

// captureValue returns the value key names in capture: what the model was
// shown for a script's label, or the member at a path of names.
func captureValue(capture any, key string) (any, bool) {
	c, _ := capture.(map[string]any)
	if shown, ok := c["shown"].(map[string]any); ok {
		if v, ok := shown[key]; ok {
			return v, true
		}
	}
	v := capture
	for _, name := range strings.Fields(key) {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[name]; !ok {
			return nil, false
		}
	}
	return v, true
}

func TestHostsDocsQuoteCaptures(t *testing.T) {
	raw, _ := captures(t)
	quoted := map[string][]string{} // page: "HOST KEY" quoted
	for _, page := range []string{"hosts.md", "model.md", "../README.md"} {
		data, err := os.ReadFile(filepath.Join("docs", page))
		require.NoError(t, err)
		for _, m := range captureQuotePattern.FindAllStringSubmatch(string(data), -1) {
			host, key, lang, block := m[1], m[2], m[3], m[4]
			quoted[page] = append(quoted[page], host+" "+key)
			capture, ok := raw[host]
			if !assert.True(t, ok, "docs/%s quotes a capture of %s, which interop/hosts/captures has not", page, host) {
				continue
			}
			want, ok := captureValue(capture, key)
			if !assert.True(t, ok, "docs/%s quotes %s's %q, which its capture has not", page, host, key) {
				continue
			}
			if lang == "text" {
				s, isString := want.(string)
				assert.True(t, isString, "docs/%s quotes %s's %q as text, but it is %T: quote it as json", page, host, key, want)
				assert.Equal(t, s, strings.TrimSuffix(block, "\n"), "docs/%s: %s's %q is not what interop/hosts/captures/%[2]s.json has", page, host, key)
				continue
			}
			wantJSON, err := json.MarshalIndent(want, "", "  ")
			require.NoError(t, err)
			if !assert.JSONEq(t, string(wantJSON), block, "docs/%s: %s's %q is not what interop/hosts/captures/%[2]s.json has", page, host, key) {
				t.Logf("the capture has:\n%s", wantJSON)
			}
		}
	}
	// Each host's page says what its model is shown for a success, an
	// isError result and a JSON-RPC error; the model's page, a tool's
	// definition, a result whose text and structuredContent differ (the
	// probe's), and one of calculate's.
	for host := range raw {
		for _, key := range []string{"calculate-2^64", "calculate-1/0", "json-rpc-error"} {
			assert.Contains(t, quoted["hosts.md"], host+" "+key, "docs/hosts.md quotes no <!-- capture: %s %s -->", host, key)
		}
		for _, key := range []string{"tools definitions echo", "probe shown differ", "calculate-2^64"} {
			assert.Contains(t, quoted["model.md"], host+" "+key, "docs/model.md quotes no <!-- capture: %s %s -->", host, key)
		}
	}
}

// TestLessonImportsNoInternal: server.go, the lesson's server, is built on
// go-sdk alone, as docs/internals.md's rooms say: the workarounds under
// internal/ are installed by the product (main.go), never by the lesson.
func TestLessonImportsNoInternal(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "server.go", nil, parser.ImportsOnly)
	require.NoError(t, err)
	for _, spec := range f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		require.NoError(t, err)
		assert.False(t, strings.HasPrefix(path, modulePath+"/internal/"),
			"server.go imports %s: the lesson uses go-sdk alone; install a workaround in main.go", path)
	}
	assert.NotEmpty(t, f.Imports, "server.go imports nothing: is it still the lesson's server?")
}

// TestInternalsPath: the paths of a call that docs/internals.md walks
// through are true, and counted. Each step names a file, and functions,
// methods and types in backticks, which that file must declare; the first
// of them must be called by a function of an earlier step, unless the step
// before says go-sdk calls it; and the switches from file to file are as
// many as the path's heading says, at most those issue 32 allows.
func TestInternalsPath(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("docs", "internals.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(data), "## One call's path, forward")
	require.True(t, ok, "docs/internals.md has no section \"One call's path, forward\"")
	section, _, _ = strings.Cut(section, "\n## ")
	link := regexp.MustCompile(`^\[[^]]*\]\(\.\./([^)]+\.go)\)`)
	name := regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_]*)`")
	most := map[string]int{"stdio": 12, "HTTP": 10}
	paths := strings.Split(section, "\n### ")[1:]
	require.Len(t, paths, len(most), "docs/internals.md walks a stdio call and an HTTP POST")
	for _, path := range paths {
		heading, body, _ := strings.Cut(path, "\n")
		m := regexp.MustCompile(`: (\d+) switches$`).FindStringSubmatch(heading)
		require.NotNil(t, m, "docs/internals.md's heading %q says no number of switches", heading)
		type step struct {
			file, text string
			names      []string
		}
		var steps []step
		for _, text := range regexp.MustCompile(`(?m)^\d+\. +`).Split(body, -1)[1:] {
			l := link.FindStringSubmatch(text)
			require.NotNil(t, l, "docs/internals.md, %s: a step does not start with the link to its file: %.60q", heading, text)
			var names []string
			for _, n := range name.FindAllStringSubmatch(text, -1) {
				names = append(names, n[1])
			}
			require.NotEmpty(t, names, "docs/internals.md, %s: the step in %s names no function", heading, l[1])
			steps = append(steps, step{l[1], text, names})
		}
		type funcs struct {
			declared map[string]bool
			calls    map[string]map[string]bool
		}
		parsed := map[string]funcs{} // by file: each is parsed once
		of := func(file string) funcs {
			if _, ok := parsed[file]; !ok {
				declared, calls := funcsOf(t, file)
				parsed[file] = funcs{declared, calls}
			}
			return parsed[file]
		}
		switches := 0
		for i, s := range steps {
			declared := of(s.file).declared
			for _, n := range s.names {
				assert.True(t, declared[n], "docs/internals.md, %s, step %d: %s does not declare %s", heading, i+1, s.file, n)
			}
			if i == 0 {
				continue
			}
			if s.file != steps[i-1].file {
				switches++
			}
			if strings.Contains(steps[i-1].text, "go-sdk") {
				continue // go-sdk calls it
			}
			called := false
			for _, before := range steps[:i] {
				calls := of(before.file).calls
				for _, n := range before.names {
					called = called || calls[n][s.names[0]]
				}
			}
			assert.True(t, called, "docs/internals.md, %s, step %d: no function of a step before calls %s", heading, i+1, s.names[0])
		}
		assert.Equal(t, m[1], strconv.Itoa(switches), "docs/internals.md, %s: switches counted", heading)
		for transport, n := range most {
			if strings.Contains(heading, transport) {
				assert.LessOrEqual(t, switches, n, "docs/internals.md, %s: too many switches", heading)
			}
		}
	}
}

// funcsOf returns what file declares (functions, methods by their names
// alone, types), and the names each function or method calls.
func funcsOf(t *testing.T, file string) (declared map[string]bool, calls map[string]map[string]bool) {
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	require.NoError(t, err)
	declared, calls = map[string]bool{}, map[string]map[string]bool{}
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.GenDecl:
			for _, spec := range decl.Specs {
				if ts, ok := spec.(*ast.TypeSpec); ok {
					declared[ts.Name.Name] = true
				}
			}
		case *ast.FuncDecl:
			fn := decl.Name.Name
			declared[fn] = true
			if calls[fn] == nil {
				calls[fn] = map[string]bool{}
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				if call, ok := n.(*ast.CallExpr); ok {
					switch f := call.Fun.(type) {
					case *ast.Ident:
						calls[fn][f.Name] = true
					case *ast.SelectorExpr:
						calls[fn][f.Sel.Name] = true
					}
				}
				return true
			})
		}
	}
	return declared, calls
}

// hostOrder is the order of the hosts in the table: docs/hosts.md's.
var hostOrder = []string{"claude-code", "codex", "gemini", "copilot"}

// hostsTable returns the table of docs/hosts.md, made from the captures.
func hostsTable(t *testing.T, typed map[string]hostCapture) string {
	var b strings.Builder
	b.WriteString("| host | package and version | first message | revision | waits for a server | names a tool | passes the server |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, h := range hostNames(typed) {
		c := typed[h]
		require.NotNil(t, c.First, "%s's capture has no first message", h)
		wait := "not measured"
		if c.StartLimit != nil && c.StartLimit.Seconds != nil {
			wait = seconds(*c.StartLimit.Seconds)
		}
		fmt.Fprintf(&b, "| %s | `%s` %s | `%s` | %s | %s | `%s` | %s |\n",
			c.Title, c.Package, c.Version, c.First.Method, c.First.Revision, wait,
			strings.Replace(c.Tools.Naming, " in namespace ", "` in namespace `", 1), passes(c))
	}
	return b.String()
}

// index is slices.Index, with an unknown host last.
func index(list []string, s string) int {
	if i := slices.Index(list, s); i >= 0 {
		return i
	}
	return len(list)
}

// seconds writes n seconds as the docs do: "30 s", "10 min".
func seconds(n int) string {
	if n >= 120 && n%60 == 0 {
		return fmt.Sprintf("%d min", n/60)
	}
	return fmt.Sprintf("%d s", n)
}

// passes says which of the host's variables reached the server: EDITOR
// stands for any of a user's shell, so a host that kept it back passes a
// list of its own.
func passes(c hostCapture) string {
	quote := func(names []string) string {
		q := make([]string, len(names))
		for i, n := range names {
			q[i] = "`" + n + "`"
		}
		return strings.Join(q, ", ")
	}
	var s string
	switch {
	case len(c.Env.Withheld) == 0:
		s = "all its environment"
	case slices.Contains(c.Env.Passed, "EDITOR"):
		s = "all its environment but " + quote(c.Env.Withheld)
	default:
		s = "only " + quote(c.Env.Passed)
	}
	if added := slices.DeleteFunc(slices.Clone(c.Env.Added), func(n string) bool { return n == "PWD" }); len(added) > 0 {
		s += fmt.Sprintf(", and %d of its own", len(added))
	}
	return s
}

func TestHostsTable(t *testing.T) {
	_, typed := captures(t)
	checkTable(t, filepath.Join("docs", "hosts.md"), hostsTable(t, typed))
	checkTable(t, filepath.Join("docs", "hosts.md"), revisionsTable(t, typed))
}

// TestHostsProbeTables: what docs/model.md and the README say each host
// shows its model, where a result's text and structuredContent differ
// and the rest, is what the probe learned in it: docs/model.md in its
// table, the README in two sentences made from the same facts.
func TestHostsProbeTables(t *testing.T) {
	_, typed := captures(t)
	checkTable(t, filepath.Join("docs", "model.md"), probeTable(t, typed))
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	words := strings.Join(strings.Fields(string(readme)), " ")
	for _, sentence := range readmeShows(t, typed) {
		assert.True(t, strings.Contains(words, sentence), "the README's \"What the model sees\" should say, as the probe learned (interop/hosts/captures):\n%s", sentence)
	}
}

// readmeWords are the README's words for what the probe learned a host
// shows where a result's text and structuredContent differ. A fact not
// here fails TestHostsProbeTables: the README needs words for it.
var readmeWords = map[string]string{
	"structuredContent, as JSON": "the object, parsed and written again",
	"the text":                   "the text",
	"the text, then structuredContent, as JSON": "the text, and the object too where the two differ",
}

// readmeShows returns the README's sentences on what each host shows,
// made from the probe's facts: which shows what where the text and
// structuredContent differ, and which flag an isError result as an error.
func readmeShows(t *testing.T, typed map[string]hostCapture) []string {
	var groups [][]string // the hosts' titles, grouped by what they show, in hostOrder
	var shows []string
	var flagged, not []string
	for _, h := range hostNames(typed) {
		c := typed[h]
		w, ok := readmeWords[c.Probe.Facts["differ"]]
		require.True(t, ok, "the README has no words for what %s shows where text and structuredContent differ: %q", c.Title, c.Probe.Facts["differ"])
		if i := slices.Index(shows, w); i >= 0 {
			groups[i] = append(groups[i], c.Title)
		} else {
			groups, shows = append(groups, []string{c.Title}), append(shows, w)
		}
		if strings.HasSuffix(c.Probe.Facts["fails"], ", not marked as an error") {
			not = append(not, c.Title)
		} else {
			require.True(t, strings.HasSuffix(c.Probe.Facts["fails"], ", marked as an error"), "%s: %q", c.Title, c.Probe.Facts["fails"])
			flagged = append(flagged, c.Title)
		}
	}
	and := func(titles []string) string {
		if len(titles) < 2 {
			return strings.Join(titles, "")
		}
		return strings.Join(titles[:len(titles)-1], ", ") + " and " + titles[len(titles)-1]
	}
	verb := func(titles []string, one, many string) string {
		if len(titles) == 1 {
			return one
		}
		return many
	}
	parts := []string{and(groups[0]) + verb(groups[0], " shows", " show") + " the model " + shows[0]}
	for i := 1; i < len(groups); i++ {
		parts = append(parts, and(groups[i])+" "+shows[i])
	}
	return []string{
		strings.Join(parts, "; "),
		"which " + and(flagged) + verb(flagged, " flags", " flag") + " as an error, and " + and(not) + verb(not, " does not", " do not"),
	}
}

// checkTable checks that the page at file holds table, a Markdown table
// whose first line, its header, says where: the lines from the header to
// the last that starts with "|". With -tables it writes table there.
func checkTable(t *testing.T, file, table string) {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	page := string(data)
	header, _, _ := strings.Cut(table, "\n")
	start := strings.Index(page, header+"\n")
	if !assert.True(t, start >= 0, "%s has no table headed %s; it should have:\n%s", file, header, table) {
		return
	}
	end := start
	for end < len(page) && strings.HasPrefix(page[end:], "|") {
		end += strings.IndexByte(page[end:], '\n') + 1
	}
	if *tables {
		require.NoError(t, os.WriteFile(file, []byte(page[:start]+table+page[end:]), 0o644))
		return
	}
	assert.Equal(t, table, page[start:end], "%s has not the table of the captures in interop/hosts/captures (go test -run '^TestHosts' . -args -tables rewrites it)", file)
}

// hostNames returns the hosts of typed in hostOrder.
func hostNames(typed map[string]hostCapture) []string {
	names := slices.Sorted(maps.Keys(typed))
	slices.SortStableFunc(names, func(a, b string) int { return index(hostOrder, a) - index(hostOrder, b) })
	return names
}

// revisionsTable returns the table of docs/hosts.md that says how to choose
// the revision of a host that speaks both, from the captures.
func revisionsTable(t *testing.T, typed map[string]hostCapture) string {
	var b strings.Builder
	b.WriteString("| host | by default it sends | with | it sends |\n|---|---|---|---|\n")
	for _, h := range hostNames(typed) {
		c := typed[h]
		for _, r := range c.Revisions {
			require.NotNil(t, c.First, "%s's capture has no first message", h)
			fmt.Fprintf(&b, "| %s | `%s` %s | %s | `%s` %s |\n", c.Title, c.First.Method, c.First.Revision, settings(r.hostSettings), r.First.Method, r.First.Revision)
		}
	}
	return b.String()
}

// settings writes a host's settings as a reader sets them.
func settings(s hostSettings) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		parts = append(parts, fmt.Sprintf("`%s=%v` in its environment", k, s.Env[k]))
	}
	for _, k := range slices.Sorted(maps.Keys(s.Features)) {
		parts = append(parts, fmt.Sprintf("`%s = %v` under `[features]` in `config.toml`", k, s.Features[k]))
	}
	for _, k := range slices.Sorted(maps.Keys(s.ServerEnv)) {
		parts = append(parts, fmt.Sprintf("`%s = %q` in the server's `env`", k, s.ServerEnv[k]))
	}
	return strings.Join(parts, ", and ")
}

// probeTable returns a table of what the probe learned in each host: a
// column for each case, and a row for each host and each variant of it the
// probe was run in.
func probeTable(t *testing.T, typed map[string]hostCapture) string {
	names := hostNames(typed)
	require.NotEmpty(t, names)
	all := typed[names[0]].Probe.Cases
	require.NotEmpty(t, all, "%s's capture has no probe", names[0])
	cases := slices.Collect(maps.Keys(all))
	slices.SortFunc(cases, func(a, b string) int { return index(probeOrder, a) - index(probeOrder, b) })
	var b strings.Builder
	b.WriteString("| host |")
	for _, k := range cases {
		fmt.Fprintf(&b, " %s |", all[k])
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(cases)) + "\n")
	row := func(name string, facts map[string]string) {
		b.WriteString("| " + name + " |")
		for _, k := range cases {
			require.Contains(t, facts, k, "%s: the probe learned nothing of %s", name, k)
			b.WriteString(" " + strings.ReplaceAll(facts[k], "|", "\\|") + " |")
		}
		b.WriteString("\n")
	}
	for _, h := range names {
		c := typed[h]
		row(c.Title, c.Probe.Facts)
		for _, v := range slices.Sorted(maps.Keys(c.Variants)) {
			if p := c.Variants[v].Probe; p != nil {
				var env []string
				for _, k := range slices.Sorted(maps.Keys(c.Variants[v].Env)) {
					env = append(env, "`"+k+"="+c.Variants[v].Env[k]+"`")
				}
				row(c.Title+", "+strings.Join(env, " "), p)
			}
		}
	}
	return b.String()
}

// probeOrder is the order of the probe's cases in the tables.
var probeOrder = []string{"differ", "blocks", "fails", "long", "titled"}

// TestGuaranteesHeld: every line of docs/guarantees.md names the tests that
// hold it, each as a link to its file, and each is still declared there. A
// test renamed or deleted in a restructure fails here, not silently. A test
// that the default suite skips is marked so, † if it runs with
// MCP_HELLO_TOOLS_SLOW=1 (it calls slow), ‡ if with -stress N; every line
// names a test of the default suite, or says that only CI's runs hold it.
func TestGuaranteesHeld(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("docs", "guarantees.md"))
	require.NoError(t, err)
	held := regexp.MustCompile("\\[`((?:Test|Fuzz)\\w+)`\\]\\(\\.\\./([^)]+_test\\.go)\\)( ?[†‡])?")
	declared := map[string]map[string]string{} // file: its test functions, and how each is skipped by default
	rows := 0
	for line := range strings.Lines(string(data)) {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| guarantee ") {
			continue
		}
		rows++
		tests := held.FindAllStringSubmatch(line, -1)
		if !assert.NotEmpty(t, tests, "docs/guarantees.md: no test holds %q", line) {
			continue
		}
		byDefault := false
		for _, m := range tests {
			name, file, mark := m[1], m[2], strings.TrimSpace(m[3])
			if declared[file] == nil {
				declared[file] = testFunctions(t, file)
			}
			skip, ok := declared[file][name]
			assert.True(t, ok, "docs/guarantees.md names %s in %s, which does not declare it", name, file)
			assert.Equal(t, skip, mark, "docs/guarantees.md: %s's mark (none: it runs in the default suite)", name)
			byDefault = byDefault || ok && skip == ""
		}
		assert.True(t, byDefault || strings.Contains(line, "held only by"),
			"docs/guarantees.md: no test of the default suite holds %q, and the line does not say so", line)
	}
	assert.Greater(t, rows, 30, "docs/guarantees.md has hardly any lines: is the pattern still right?")
}

// testFunctions returns the names of the top-level Test and Fuzz functions
// of a file, each with how the default suite skips it: "†" if it calls slow,
// "‡" if it reads the -stress flag, else "".
func testFunctions(t *testing.T, file string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	require.NoError(t, err)
	names := map[string]string{}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") && !strings.HasPrefix(fn.Name.Name, "Fuzz") {
			continue
		}
		names[fn.Name.Name] = ""
		for _, stmt := range fn.Body.List {
			ast.Inspect(stmt, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "slow" {
						names[fn.Name.Name] = "†"
					}
				case *ast.StarExpr:
					if id, ok := n.X.(*ast.Ident); ok && id.Name == "stress" {
						names[fn.Name.Name] = "‡"
					}
				}
				return true
			})
		}
	}
	return names
}
