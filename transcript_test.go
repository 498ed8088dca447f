package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"

	"mcp-hello-tools/internal/protocol"
	"mcp-hello-tools/internal/stdio"
)

// The transcripts in testdata/*.txtar are whole stdio sessions, kept as the
// README's wire examples. Each holds a comment saying what it shows, a
// "send" file (the lines a client writes to the server's stdin, one JSON-RPC
// message a line) and a "receive" file (the lines the server writes back).
// After the last line the input ends, as when a client closes the pipe.
//
// Replies are compared as JSON, in the order of the lines they answer:
// requests run concurrently, so the server may write them in another order.
// A reply may be shown in part, some of its result's members (shownIn).
// Run "go test -run TestTranscripts -update" to rewrite the receive files
// from what the server says.
var update = flag.Bool("update", false, "rewrite the receive files of testdata/*.txtar, and bundle/manifest.json's name, version, tools and long_description")

// transcriptSetups prepares the sessions of the transcripts that need more
// than the server itself: test tools, or a transport with lower limits.
var transcriptSetups = map[string]func(*mcp.Server, *stdio.Options){
	"panic.txtar":  func(s *mcp.Server, _ *stdio.Options) { addTestTools(s) },
	"eof.txtar":    func(s *mcp.Server, _ *stdio.Options) { addTestTools(s) },
	"cancel.txtar": func(s *mcp.Server, _ *stdio.Options) { addTestTools(s) },
	"abandon.txtar": func(s *mcp.Server, o *stdio.Options) {
		addTestTools(s)
		o.RunPeriod = 200 * time.Millisecond
	},
	"too_large.txtar": func(_ *mcp.Server, o *stdio.Options) { o.MaxLine = 200 },
}

// transcriptLogs holds, for some transcripts, text the server's log (its
// stderr) must contain.
var transcriptLogs = map[string][]string{
	"panic.txtar":   {"handler panicked", "something went wrong", "goroutine"},
	"abandon.txtar": {"abandoned a request", "method=tools/call"},
	"cancel.txtar":  {"request cancelled by the client", "id=2", `reason="the user pressed stop"`},
}

// addTestTools adds three tools that exist only in tests: "panic", whose
// handler panics; "wait", which answers once "release" is called, or when
// its request is cancelled; and "release".
func addTestTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{Name: "panic", Description: "Panics."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			panic("something went wrong")
		})
	released := make(chan struct{})
	var release sync.Once
	mcp.AddTool(s, &mcp.Tool{Name: "wait", Description: "Waits until released."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			select {
			case <-released:
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "released"}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "release", Description: "Releases every wait."},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			release.Do(func() { close(released) })
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
}

func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			t.Parallel()
			testTranscript(t, file)
		})
	}
}

func testTranscript(t *testing.T, file string) {
	archive, err := txtar.ParseFile(file)
	require.NoError(t, err)
	send, receive := txtarFile(archive, "send"), txtarFile(archive, "receive")
	require.NotNil(t, send, "%s has no send file", file)
	sent := strings.SplitAfter(string(send.Data), "\n")
	if sent[len(sent)-1] == "" {
		sent = sent[:len(sent)-1]
	}

	got, logs := runSession(t, filepath.Base(file), sent)
	for _, want := range transcriptLogs[filepath.Base(file)] {
		require.Contains(t, logs, want, "%s: server log", file)
	}

	var want []string
	if receive != nil {
		want = nonEmptyLines(string(receive.Data))
	}
	if *update {
		// A reply shown in part stays so, if the part is still right.
		for i := range got {
			if i < len(want) && shownIn(decodeLines(t, want[i:i+1])[0], decodeLines(t, got[i:i+1])[0]) {
				got[i] = want[i]
			}
		}
		data := []byte(strings.Join(got, "\n") + "\n")
		if len(got) == 0 {
			data = nil
		}
		if receive == nil {
			archive.Files = append(archive.Files, txtar.File{Name: "receive"})
			receive = &archive.Files[len(archive.Files)-1]
		}
		receive.Data = data
		require.NoError(t, os.WriteFile(file, txtar.Format(archive), 0o644))
		return
	}
	require.NotNil(t, receive, "%s has no receive file; run with -update", file)
	wantValues, gotValues := decodeLines(t, want), decodeLines(t, got)
	for i := range max(len(want), len(got)) {
		if i >= len(want) || i >= len(got) || !shownIn(wantValues[i], gotValues[i]) {
			t.Errorf("%s: reply %d differs (-want +got):\n%s\nIf the server is right, rewrite the file with\n"+
				"\tgo test -run TestTranscripts -update .\nand read the change: git diff --word-diff testdata",
				file, i+1, cmp.Diff(at(wantValues, i), at(gotValues, i)))
			return
		}
	}
}

// shownIn reports whether want, a reply as a transcript shows it, is got,
// or a part of it: got with some of its result's members left out, so that
// a transcript shows only what it is about (happy_path.txtar has the reply
// to initialize whole, the others as little of them as they need). A
// member shown is shown whole, so that one that changes, such as the
// capabilities, fails every transcript that shows it; but a list of tools
// may leave out tools, in its order, so that a tool added changes no
// transcript (happy_path.txtar shows echo's definition, whole).
func shownIn(want, got any) bool {
	w, wok := want.(map[string]any)
	g, gok := got.(map[string]any)
	if !wok || !gok {
		return reflect.DeepEqual(want, got)
	}
	wr, wok := w["result"].(map[string]any)
	gr, gok := g["result"].(map[string]any)
	if !wok || !gok || len(w) != len(g) {
		return reflect.DeepEqual(want, got)
	}
	for k, v := range w {
		if k != "result" && !reflect.DeepEqual(v, g[k]) {
			return false
		}
	}
	for k, v := range wr {
		if gv, ok := gr[k]; !ok || !reflect.DeepEqual(v, gv) && (k != "tools" || !subsequence(v, gv)) {
			return false
		}
	}
	return true
}

// subsequence reports whether want is a list of some of got's items, whole,
// in got's order.
func subsequence(want, got any) bool {
	w, wok := want.([]any)
	g, gok := got.([]any)
	for _, item := range g {
		if wok && gok && len(w) > 0 && reflect.DeepEqual(w[0], item) {
			w = w[1:]
		}
	}
	return wok && gok && len(w) == 0
}

func at(values []any, i int) any {
	if i < len(values) {
		return values[i]
	}
	return nil
}

// runSession serves one session with stdio.Serve, writing the lines sent
// one at a time, then closing the input. It returns the server's replies in
// the order of the lines they answer, and the server's log.
func runSession(t *testing.T, name string, sent []string) (replies []string, log string) {
	var logs logBuffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	server := newHardenedServer(fixedNow, logger)
	inR, inW := io.Pipe()
	rec := &recorder{}
	opts := stdio.Options{In: &countingReader{r: inR, rec: rec}, Out: rec, Logger: logger, Methods: protocol.Served(capabilities)}
	if setup := transcriptSetups[name]; setup != nil {
		setup(server, &opts)
	}
	done := make(chan error, 1)
	go func() { done <- stdio.Serve(context.Background(), server, opts) }()

	for _, line := range sent {
		_, err := io.WriteString(inW, line)
		require.NoError(t, err, "writing %q", line)
	}
	require.NoError(t, inW.Close())
	select {
	case err := <-done:
		require.NoError(t, err, "stdio.Serve")
	case <-time.After(failAfter):
		t.Fatalf("the server did not stop after the input ended")
	}
	return rec.inOrder(t, sent), logs.String()
}

// A recorder is the server's stdout in a transcript. It keeps each line
// written with the number of lines the server had read by then.
type recorder struct {
	mu      sync.Mutex
	read    int // lines read by the server so far
	partial []byte
	replies []written
}

// written is a line the server wrote, and how many it had read by then.
type written struct {
	line string
	read int
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.partial = append(r.partial, p...)
	for {
		i := bytes.IndexByte(r.partial, '\n')
		if i < 0 {
			return len(p), nil
		}
		r.replies = append(r.replies, written{line: string(r.partial[:i]), read: r.read})
		r.partial = r.partial[i+1:]
	}
}

// inOrder returns the replies ordered by the line they answer: for a reply
// with an id, the first request with that id read before the reply was
// written and not answered yet; for a reply with a null id, the line being
// read when it was written (the connection answers those lines itself,
// before it reads on).
func (r *recorder) inOrder(t *testing.T, sent []string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	require.Empty(t, r.partial, "the server wrote an unterminated line")
	ids := make([]string, len(sent)) // the id of each request sent
	for i, line := range sent {
		var req struct{ ID json.RawMessage }
		if json.Unmarshal([]byte(line), &req) == nil {
			ids[i] = string(req.ID)
		}
	}
	type answer struct {
		line string
		to   int // index in sent
	}
	answers := make([]answer, 0, len(r.replies))
	for _, rep := range r.replies {
		var msg struct{ ID json.RawMessage }
		require.NoError(t, json.Unmarshal([]byte(rep.line), &msg), "reply is not JSON: %s", rep.line)
		to := rep.read - 1
		if id := string(msg.ID); id != "null" {
			i := slices.Index(ids[:rep.read], id)
			require.GreaterOrEqual(t, i, 0, "reply to no request: %s", rep.line)
			ids[i] = "" // answered
			to = i
		}
		answers = append(answers, answer{rep.line, to})
	}
	slices.SortStableFunc(answers, func(a, b answer) int { return a.to - b.to })
	lines := make([]string, len(answers))
	for i, a := range answers {
		lines[i] = a.line
	}
	return lines
}

// A countingReader is the server's stdin in a transcript: it counts the
// lines the server reads, for the recorder. Each Read of the pipe returns
// at most one line, as the test writes one line per Write.
type countingReader struct {
	r   io.Reader
	rec *recorder
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.rec.mu.Lock()
	c.rec.read += bytes.Count(p[:n], []byte("\n"))
	c.rec.mu.Unlock()
	return n, err
}

func txtarFile(a *txtar.Archive, name string) *txtar.File {
	for i := range a.Files {
		if a.Files[i].Name == name {
			return &a.Files[i]
		}
	}
	return nil
}

func nonEmptyLines(s string) []string {
	var lines []string
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

// decodeLines decodes each line as JSON, numbers as json.Number, so that
// they compare by their digits, not as float64 (121932631112635269 and
// 121932631112635260 are one float64); and checks that it is a JSON-RPC
// 2.0 response whose error, if any, has a code the specifications assign:
// never 0 (go-sdk#976).
func decodeLines(t *testing.T, lines []string) []any {
	values := make([]any, len(lines))
	for i, line := range lines {
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&values[i]), "line %d is not JSON: %s", i+1, line)
		var resp struct {
			JSONRPC string
			Error   *jsonrpc.Error
		}
		require.NoError(t, json.Unmarshal([]byte(line), &resp))
		require.Equal(t, "2.0", resp.JSONRPC, "line %d: %s", i+1, line)
		if resp.Error != nil {
			require.True(t, specCode(resp.Error.Code), "line %d has a code no specification assigns: %s", i+1, line)
		}
	}
	return values
}

// specCode reports whether an error reply may carry code: one of the five
// of JSON-RPC 2.0 (§5.1), or of MCP's own (2026-07-28, "Error Codes").
func specCode(code int64) bool {
	switch code {
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound,
		jsonrpc.CodeInvalidParams, jsonrpc.CodeInternalError,
		mcp.CodeHeaderMismatch, mcp.CodeMissingRequiredClientCapabilities, mcp.CodeUnsupportedProtocolVersion:
		return true
	}
	return false
}
