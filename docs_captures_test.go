package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// What the pages say a host does is what interop/hosts saw it do: its
// capture, interop/hosts/captures/HOST.json, which interop/run compares with
// each fresh run of the hosts. A capture keeps echo's definition alone:
// interop/run checks, live, that the host passes every other tool as it
// passes echo, so that a tool an exercise adds needs no new capture.
//
//   - a fenced block after <!-- capture: HOST KEY --> quotes HOST's capture:
//     KEY is a label of the script (interop/hosts/script.json), for what the
//     model was shown for that call, or a path of member names into the
//     capture ("tools definitions echo"); a json block is the value as JSON,
//     a text block the string itself;
//   - the tables of docs/hosts.md, docs/http.md and docs/model.md are made
//     from the captures, and docs/clients.md's from interop/clients.json;
//     "go test -run '^TestHosts' . -args -tables" rewrites the captures'
//     (interop/hosts/update does, after moving the hosts' pins).

var tables = flag.Bool("tables", false, "rewrite the tables docs/hosts.md, docs/http.md and docs/model.md make from interop/hosts/captures")

// hostCapture is interop/hosts/captures/HOST.json, in the parts these tests read.
type hostCapture struct {
	Host, Title, Package, Version string
	First                         *struct{ Method, Revision string }
	Env                           struct{ Passed, Withheld, Added []string }
	StartLimit                    *struct{ Seconds *int }
	Tools                         struct{ Naming, ServerTitle string } // VS Code names tools by the server's title
	Revisions                     []struct {                           // those the host asks for when set to, beside First
		hostSettings
		First struct{ Method, Revision string }
	}
	HTTP *struct {
		First                  struct{ Method, Revision string }
		Session, VersionHeader bool
		Restarted              *struct { // when the server restarted before the model's second call
			Opened                       bool
			CallsAnswered, CallsNotFound int
			ExitStatus                   *int // none where a host goes on: VS Code
		}
	}
	Probe    struct{ Cases, Facts map[string]string } // a fact for each of the probe's cases
	Variants map[string]struct{ Env, Probe map[string]string }
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
	if v, ok := c["shown"].(map[string]any)[key]; ok {
		return v, true
	}
	v := capture
	for _, name := range strings.Fields(key) {
		m, _ := v.(map[string]any)
		var ok bool
		if v, ok = m[name]; !ok {
			return nil, false
		}
	}
	return v, true
}

func TestHostsDocsQuoteCaptures(t *testing.T) {
	raw, _ := captures(t)
	for page, text := range docPages(t) {
		for _, m := range captureQuotePattern.FindAllStringSubmatch(text, -1) {
			host, key, lang, block := m[1], m[2], m[3], m[4]
			want, ok := captureValue(raw[host], key)
			if !assert.True(t, ok, "%s quotes %s's %q, which interop/hosts/captures has not", page, host, key) {
				continue
			}
			if s, isString := want.(string); lang == "text" {
				assert.True(t, isString, "%s quotes %s's %q as text, but it is %T: quote it as json", page, host, key, want)
				assert.Equal(t, s, strings.TrimSuffix(block, "\n"), "%s: %s's %q is not what interop/hosts/captures/%[2]s.json has", page, host, key)
				continue
			}
			wantJSON, err := json.MarshalIndent(want, "", "  ")
			require.NoError(t, err)
			assert.JSONEq(t, string(wantJSON), block, "%s: %s's %q is not what interop/hosts/captures/%[2]s.json has", page, host, key)
		}
	}
}

func TestHostsTable(t *testing.T) {
	_, typed := captures(t)
	yes := map[bool]string{true: "yes", false: "no"}
	hosts := header("host", "package and version", "first message", "revision", "waits for a server", "names a tool", "passes the server")
	revisions := header("host", "by default it sends", "with", "it sends")
	http := header("host", "first message", "revision", "a session", "`MCP-Protocol-Version` on each later request")
	restart := header("host", "opened anew", "later calls answered", "later calls answered 404", "exit status")
	for _, c := range byHost(typed) {
		require.True(t, c.First != nil && c.HTTP != nil && c.HTTP.Restarted != nil, "%s's capture lacks its first message, or HTTP's, or the restart", c.Host)
		wait := "not measured"
		if c.StartLimit != nil && c.StartLimit.Seconds != nil {
			wait = seconds(*c.StartLimit.Seconds)
		}
		hosts += row(c.Title, "`"+c.Package+"` "+c.Version, "`"+c.First.Method+"`", c.First.Revision, wait,
			"`"+strings.Replace(c.Tools.Naming, " in namespace ", "` in namespace `", 1)+"`", passes(c))
		for _, r := range c.Revisions {
			revisions += row(c.Title, "`"+c.First.Method+"` "+c.First.Revision, settings(r.hostSettings), "`"+r.First.Method+"` "+r.First.Revision)
		}
		http += row(c.Title, "`"+c.HTTP.First.Method+"`", c.HTTP.First.Revision, yes[c.HTTP.Session], yes[c.HTTP.VersionHeader])
		r, exit := c.HTTP.Restarted, "goes on"
		if r.ExitStatus != nil {
			exit = strconv.Itoa(*r.ExitStatus)
		}
		restart += row(c.Title, yes[r.Opened], strconv.Itoa(r.CallsAnswered), strconv.Itoa(r.CallsNotFound), exit)
	}
	checkTable(t, filepath.Join("docs", "hosts.md"), hosts)
	checkTable(t, filepath.Join("docs", "hosts.md"), revisions)
	checkTable(t, filepath.Join("docs", "http.md"), http)
	checkTable(t, filepath.Join("docs", "http.md"), restart)
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
	var s string
	switch {
	case len(c.Env.Withheld) == 0:
		s = "all its environment"
	case slices.Contains(c.Env.Passed, "EDITOR"):
		s = "all its environment but " + quoted(c.Env.Withheld)
	default:
		s = "only " + quoted(c.Env.Passed)
	}
	if added := slices.DeleteFunc(slices.Clone(c.Env.Added), func(n string) bool { return n == "PWD" }); len(added) > 0 {
		s += fmt.Sprintf(", and %d of its own", len(added))
	}
	return s
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

// TestHostsProbeTables: what docs/model.md and the README say each host
// shows its model, where a result's text and structuredContent differ and
// the rest, is what the probe learned in it: docs/model.md in a table (a
// column for each case, a row for each host and each variant the probe ran
// in), the README in words.
func TestHostsProbeTables(t *testing.T) {
	_, typed := captures(t)
	hosts := byHost(typed)
	cases := slices.SortedFunc(maps.Keys(hosts[0].Probe.Cases), func(a, b string) int { return index(probeOrder, a) - index(probeOrder, b) })
	require.NotEmpty(t, cases, "%s's capture has no probe", hosts[0].Host)
	titles := []string{"host"}
	for _, k := range cases {
		titles = append(titles, hosts[0].Probe.Cases[k])
	}
	table := header(titles...)
	add := func(name string, facts map[string]string) {
		cells := []string{name}
		for _, k := range cases {
			require.Contains(t, facts, k, "%s: the probe learned nothing of %s", name, k)
			cells = append(cells, strings.ReplaceAll(facts[k], "|", "\\|"))
		}
		table += row(cells...)
	}
	shows := map[string][]string{} // the README's words for what a host shows: the titles of the hosts that do
	var flagged, not []string
	for _, c := range hosts {
		add(c.Title, c.Probe.Facts)
		for _, v := range slices.Sorted(maps.Keys(c.Variants)) {
			if p := c.Variants[v].Probe; p != nil {
				var env []string
				for _, k := range slices.Sorted(maps.Keys(c.Variants[v].Env)) {
					env = append(env, "`"+k+"="+c.Variants[v].Env[k]+"`")
				}
				add(c.Title+", "+strings.Join(env, " "), p)
			}
		}
		words, ok := readmeWords[c.Probe.Facts["differ"]]
		require.True(t, ok, "the README has no words for what %s shows where text and structuredContent differ: %q", c.Title, c.Probe.Facts["differ"])
		shows[words] = append(shows[words], c.Title)
		if strings.HasSuffix(c.Probe.Facts["fails"], ", not marked as an error") {
			not = append(not, c.Title)
		} else {
			require.True(t, strings.HasSuffix(c.Probe.Facts["fails"], ", marked as an error"), "%s: %q", c.Title, c.Probe.Facts["fails"])
			flagged = append(flagged, c.Title)
		}
	}
	checkTable(t, filepath.Join("docs", "model.md"), table)
	data, err := os.ReadFile("README.md")
	require.NoError(t, err)
	prose := strings.Join(strings.Fields(string(data)), " ")
	claim := func(titles []string, words string) {
		said := regexp.MustCompile(regexp.QuoteMeta(and(titles)) + `[^;.]*` + regexp.QuoteMeta(words))
		assert.True(t, said.MatchString(prose), "the README's \"What the model sees\" should say, as the probe learned, that %s: %s", and(titles), words)
	}
	for words, titles := range shows {
		claim(titles, words)
	}
	claim(flagged, "as an error")
	claim(not, " do")
}

// readmeWords are the README's words for what the probe learned a host
// shows where a result's text and structuredContent differ.
var readmeWords = map[string]string{
	"structuredContent, as JSON": "the object, parsed and written again",
	"the text":                   "the text",
	"the text, then structuredContent, as JSON": "the text, and the object too where the two differ",
}

// and writes titles as a sentence lists them: "A, B and C".
func and(titles []string) string {
	if len(titles) < 2 {
		return strings.Join(titles, "")
	}
	return strings.Join(titles[:len(titles)-1], ", ") + " and " + titles[len(titles)-1]
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
	table := header("client", "package", "version", "transports", "modes", "checked", "notes")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	for _, c := range list.Clients {
		var packages, versions []string
		for _, p := range c.Packages {
			packages, versions = append(packages, "`"+p.Package+"`"), append(versions, p.Version)
		}
		table += row(cell(c.Name), strings.Join(packages, ", "), strings.Join(versions, ", "),
			strings.ReplaceAll(strings.Join(c.Transports, ", "), "http", "Streamable HTTP"), quoted(c.Modes), cell(c.Checked), cell(c.Notes))
	}
	page, err := os.ReadFile(filepath.Join("docs", "clients.md"))
	require.NoError(t, err)
	assert.True(t, strings.Contains(string(page), table), "docs/clients.md has not the table of interop/clients.json; print it with node interop/table.mjs:\n%s", table)
}

// quoted writes names in backticks, with commas between.
func quoted(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return "`" + strings.Join(names, "`, `") + "`"
}

// header and row write a Markdown table's header and its rows.
func header(cells ...string) string {
	return row(cells...) + "|" + strings.Repeat("---|", len(cells)) + "\n"
}

func row(cells ...string) string { return "| " + strings.Join(cells, " | ") + " |\n" }

// checkTable checks that the page at file holds table, a Markdown table
// whose first line, its header, says where: the lines from the header to
// the last that starts with "|". With -tables it writes table there.
func checkTable(t *testing.T, file, table string) {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	page := string(data)
	head, _, _ := strings.Cut(table, "\n")
	start := strings.Index(page, head+"\n")
	if !assert.True(t, start >= 0, "%s has no table headed %s; it should have:\n%s", file, head, table) {
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

// hostOrder is the order of the hosts in the tables.
var hostOrder = []string{"vscode", "claude-code", "codex", "gemini", "copilot"}

// probeOrder is the order of the probe's cases in docs/model.md's table.
var probeOrder = []string{"differ", "blocks", "fails", "long", "titled"}

// byHost returns the captures in hostOrder, an unknown host last.
func byHost(typed map[string]hostCapture) []hostCapture {
	names := slices.Sorted(maps.Keys(typed))
	slices.SortStableFunc(names, func(a, b string) int { return index(hostOrder, a) - index(hostOrder, b) })
	var hosts []hostCapture
	for _, h := range names {
		hosts = append(hosts, typed[h])
	}
	return hosts
}

// index is slices.Index, with an unknown item last.
func index(list []string, s string) int {
	if i := slices.Index(list, s); i >= 0 {
		return i
	}
	return len(list)
}
