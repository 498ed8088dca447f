package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
//   - docs/hosts.md holds the table hostsTable makes from the captures.

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
	for _, page := range []string{"hosts.md", "model.md"} {
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
	// definition and a result.
	for host := range raw {
		for _, key := range []string{"calculate-2^64", "calculate-1/0", "json-rpc-error"} {
			assert.Contains(t, quoted["hosts.md"], host+" "+key, "docs/hosts.md quotes no <!-- capture: %s %s -->", host, key)
		}
		for _, key := range []string{"tools definitions echo", "calculate-2^64"} {
			assert.Contains(t, quoted["model.md"], host+" "+key, "docs/model.md quotes no <!-- capture: %s %s -->", host, key)
		}
	}
}

// hostOrder is the order of the hosts in the table: docs/hosts.md's.
var hostOrder = []string{"claude-code", "codex", "gemini", "copilot"}

// hostsTable returns the table of docs/hosts.md, made from the captures.
func hostsTable(t *testing.T, typed map[string]hostCapture) string {
	var b strings.Builder
	b.WriteString("| host | package and version | first message | revision | waits for a server | names a tool | passes the server |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	names := slices.Sorted(maps.Keys(typed))
	slices.SortStableFunc(names, func(a, b string) int { return index(hostOrder, a) - index(hostOrder, b) })
	for _, h := range names {
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
	data, err := os.ReadFile(filepath.Join("docs", "hosts.md"))
	require.NoError(t, err)
	table := hostsTable(t, typed)
	assert.True(t, strings.Contains(string(data), table), "docs/hosts.md has not the table of the captures in interop/hosts/captures:\n%s", table)
}

// TestHostsHideFromModel: the docs say that no host shows the model a tool's
// title, annotations or outputSchema; echo's captured definition says so,
// and interop/run that every other tool reaches the model as echo does: a
// host that showed calculate's outputSchema would fail there.
func TestHostsHideFromModel(t *testing.T) {
	raw, _ := captures(t)
	for host, capture := range raw {
		defs, ok := captureValue(capture, "tools definitions")
		require.True(t, ok, "%s's capture has no tool definitions", host)
		data, err := json.Marshal(defs)
		require.NoError(t, err)
		for _, key := range []string{`"title"`, `"annotations"`, `"outputSchema"`, `"_meta"`} {
			assert.NotContains(t, string(data), key+":", "%s shows the model a tool's %s: docs/model.md says no host does", host, key)
		}
	}
}
