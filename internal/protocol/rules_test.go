package protocol

// The tests of rules.go and words.go: the methods served, what a session
// keeps of initialize, the words of refusals.

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEncode: an error reply with no id carries "id": null (JSON-RPC 2.0 §5).
func TestEncode(t *testing.T) {
	data, err := Encode(&jsonrpc.Response{Error: Errorf(-32700, "no")})
	require.NoError(t, err)
	assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"no"}}`, string(data))
}

func TestServed(t *testing.T) {
	tools := Served(&mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}})
	var served []string
	for name, ok := range tools {
		if ok {
			served = append(served, name)
		}
	}
	assert.ElementsMatch(t, []string{"initialize", "ping", "server/discover", "notifications/initialized",
		"notifications/cancelled", "tools/list", "tools/call"}, served)
	assert.True(t, Served(&mcp.ServerCapabilities{Resources: &mcp.ResourceCapabilities{}})["resources/read"])
}

// TestRefusalsInert: each refusal that quotes a client's text quotes it
// inert, as Inert does, whether the text came escaped in JSON (ESC, BEL as
// \u001b, \u0007) or raw (U+009B, U+202E, as UTF-8): the method of a
// modern request without its version, an id in use, and the "id",
// "jsonrpc" and "method" members refused.
func TestRefusalsInert(t *testing.T) {
	const hostile = `\u001b[2J\u0007` + "\u009b31m\u202e" // JSON text: two escaped, two raw
	ms := Served(&mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}})
	var escaped string
	require.NoError(t, json.Unmarshal([]byte(`"`+hostile+`"`), &escaped))
	id, err := jsonrpc.MakeID(escaped)
	require.NoError(t, err)
	messages := map[string]string{"id in use": InUse(id).Message}
	for name, line := range map[string]string{
		"params must carry the version": `{"jsonrpc":"2.0","id":1,"method":"` + hostile + `","params":{}}`,
		"id not UTF-8":                  `{"jsonrpc":"2.0","id":"` + "\xff" + hostile + `","method":"ping"}`,
		"id a lone surrogate":           `{"jsonrpc":"2.0","id":"\ud800` + hostile + `","method":"ping"}`,
		"id an object":                  `{"jsonrpc":"2.0","id":{"x":"` + hostile + `"},"method":"ping"}`,
		"jsonrpc":                       `{"jsonrpc":"` + hostile + `","id":1,"method":"ping"}`,
		"method":                        `{"jsonrpc":"2.0","id":1,"method":["` + hostile + `"]}`,
	} {
		_, err := ms.Admit([]byte(line), "2026-07-28", false)
		var r *Refusal
		require.ErrorAs(t, err, &r, "Admit(%s)", line)
		messages[name] = r.Err.Message
	}
	for name, msg := range messages {
		for _, r := range msg {
			assert.True(t, unicode.IsGraphic(r), "%s: %q holds %U, which a terminal acts on", name, msg, r)
		}
	}
}

// TestKeptOfInitialize: a session keeps the version, the capabilities of
// the specification and the client's name, not the rest.
// TestInert: what a client sent, quoted back, shows as text: controls,
// C1 and bidirectional overrides escaped, spaces of every kind kept; and
// -32022's data says the version requested so too.
func TestInert(t *testing.T) {
	assert.Equal(t, `a\x1b[2J\u009b31m\u202eb\u2028 `+"\u00a0c", Inert("a\x1b[2J\u009b31m\u202eb\u2028 \u00a0c"))
	assert.Equal(t, "a b\u00a0c", Inert("a b\u00a0c"), "spaces are graphic")
	assert.LessOrEqual(t, len(Inert(strings.Repeat("\x1b", 1000))), MaxQuote+len("…"))

	var e *jsonrpc.Error
	require.ErrorAs(t, unsupported("\u202e\u009b2J"), &e)
	var data mcp.UnsupportedProtocolVersionData
	require.NoError(t, json.Unmarshal(e.Data, &data))
	assert.Equal(t, `\u202e\u009b2J`, data.Requested)
	assert.Contains(t, e.Message, `\u202e\u009b2J`)
}

func TestKeptOfInitialize(t *testing.T) {
	params := `{"protocolVersion":"2025-11-25` + strings.Repeat("v", 1<<20) + `","_meta":{"x":1},"capabilities":{"roots":{"listChanged":true},"sampling":{},` +
		`"experimental":{"big":"` + strings.Repeat("x", 1<<20) + `"}},"clientInfo":{"name":"` + strings.Repeat("n", 1000) + `","version":"1","icons":[{"src":"a"}]}}`
	msg, err := Served(nil).Admit([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":`+params+`}`), "", false)
	require.NoError(t, err)
	kept := msg.Request.Params
	assert.Less(t, len(kept), 1000)
	assert.Contains(t, string(kept), `"protocolVersion":"2025-11-25vvv`, "the version, cut")
	assert.Contains(t, string(kept), `"roots":{"listChanged":true}`)
	assert.Contains(t, string(kept), `"sampling":{}`)
	assert.Contains(t, string(kept), `"version":"1"`)
	assert.NotContains(t, string(kept), "experimental")
	assert.NotContains(t, string(kept), "_meta")

	// The version go-sdk agrees to, for one asked at or past 2026-07-28,
	// which initialize does not serve; any other as asked.
	for asked, want := range map[string]string{"2026-07-28": "2025-11-25", "2099-01-01": "2025-11-25", "2020-01-01": "2020-01-01", "2025-06-18": "2025-06-18"} {
		msg, err := Served(nil).Admit([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+asked+`"}}`), "", false)
		require.NoError(t, err)
		var p mcp.InitializeParams
		require.NoError(t, json.Unmarshal(msg.Request.Params, &p))
		assert.Equal(t, want, p.ProtocolVersion, "initialize asking %s: the version kept", asked)
	}
}

// TestCutLogValue: a log line quotes at most MaxQuote bytes of each
// string, but a panic's stack, whole.
func TestCutLogValue(t *testing.T) {
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{ReplaceAttr: CutLogValue}))
	long := strings.Repeat("x", 100_000)
	logger.Info("m", "tool", long, "stack", long, "n", 7)
	assert.Contains(t, logs.String(), "tool="+strings.Repeat("x", MaxQuote)+"… ")
	assert.Contains(t, logs.String(), "stack="+long+" ")
	assert.Contains(t, logs.String(), "n=7")
}

// TestLimitsPage: docs/limits.md states this package's limits as they are.
func TestLimitsPage(t *testing.T) {
	page, err := os.ReadFile("../../docs/limits.md")
	require.NoError(t, err)
	for _, want := range []string{
		fmt.Sprintf("arrays and objects %d levels deep", maxNesting),
		fmt.Sprintf("%d,%03d JSON values in a message", maxValues/1000, maxValues%1000),
	} {
		assert.Contains(t, string(page), want)
	}
}
