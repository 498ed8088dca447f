package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// finalPing is sent after the fuzzed bytes: its answer shows the session
// survived them.
const finalPing = `{"jsonrpc":"2.0","id":"final-ping","method":"ping"}`

// FuzzConnection feeds arbitrary bytes to a server over a connection, then
// a ping, and checks that nothing panics, that every line written is one
// JSON-RPC 2.0 response with a standard error code, if any, and that the
// ping is answered.
//
// Run it with: go test -run '^$' -fuzz FuzzConnection -fuzztime 50000x ./stdio
// (a count, not a duration: Go 1.26's fuzzer can fail a duration-bounded run
// with "context deadline exceeded", go.dev/issue/75804).
func FuzzConnection(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		"{oops\n[1,2]\n42\n\r\n\n",
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","error":{"code":1,"message":"x"}}`,
		`{"jsonrpc":"2.0","id":null,"method":"x"}` + "\n" + `{"jsonrpc":"2.0","id":1e400,"method":"x"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"final-ping"}}`,
		"\xff\xfe\x00\n\"\\ud800\"\n",
		` {"jsonrpc":"2.0","id":3,"method":"ping"} ` + "\n" + `{"jsonrpc":"2.0","ID":4,"Method":"ping"}`,
		`{"jsonrpc":"\u0032.0","id":5,"method":"p\u0069ng","params":{"_meta":5}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		server := mcp.NewServer(&mcp.Implementation{Name: "fuzz", Version: "1"},
			&mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
		mcp.AddTool(server, &mcp.Tool{Name: "echo"},
			func(_ context.Context, _ *mcp.CallToolRequest, in struct{ Message string }) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
			})
		input := io.MultiReader(bytes.NewReader(data), strings.NewReader("\n"+finalPing+"\n"))
		transport := &Transport{Reader: input, Writer: &out, GracePeriod: time.Second}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := server.Run(ctx, transport); err != nil {
			t.Fatalf("server.Run: %v", err)
		}

		pinged := false
		for line := range strings.Lines(out.String()) {
			var resp struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  json.RawMessage `json:"result"`
				Error   *jsonrpc.Error  `json:"error"`
			}
			dec := json.NewDecoder(strings.NewReader(line))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&resp); err != nil || dec.More() {
				t.Fatalf("not one JSON-RPC response: %q (%v)", line, err)
			}
			if resp.JSONRPC != "2.0" || resp.ID == nil || (resp.Result == nil) == (resp.Error == nil) {
				t.Fatalf("not a JSON-RPC 2.0 response: %q", line)
			}
			if resp.Error != nil && !IsStandardCode(resp.Error.Code) {
				t.Fatalf("non-standard error code: %q", line)
			}
			if string(resp.ID) == `"final-ping"` {
				if pinged {
					t.Fatalf("the ping was answered twice; output:\n%s", out.String())
				}
				// Answered, with a result: a notifications/cancelled in the
				// fuzzed input cannot cancel it, as it names no request in
				// flight when it is read.
				if resp.Error != nil {
					t.Fatalf("the ping failed: %q", line)
				}
				pinged = true
			}
		}
		if !pinged {
			t.Fatalf("the ping after the input was not answered; output:\n%s", out.String())
		}
	})
}
