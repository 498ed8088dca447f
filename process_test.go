package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcp-hello-tools/tools"
)

// The tests in this file run the real program, the test binary run as the
// server, and talk to it over its standard input and output as Claude
// Desktop and VS Code do: with a go-sdk client of each era, or line by
// line; they end it by closing its input or with a signal. Every test that
// runs a process, here and in peers_test.go, http_test.go,
// shortfalls_test.go and config_test.go, starts it with start.

// runAsServer, set in its environment, has the test binary run as the
// server: TestMain runs main, as go-sdk's mcp/cmd_test.go does. So the
// end-to-end tests need no toolchain, and count in coverage.
const runAsServer = "MCP_HELLO_TOOLS_RUN_AS_SERVER"

func TestMain(m *testing.M) {
	switch {
	case os.Getenv(runAsServer) != "":
		main()
		os.Exit(0)
	case os.Getenv(runAsBare) != "":
		serveBare()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// failAfter is how long a test waits for the server before it fails: a
// server that is right answers at once, and the deadline is for failures.
const failAfter = time.Minute

// serverCommand returns the command that runs the server with args: this
// test binary, run as the server. With -short, such tests are skipped.
func serverCommand(t testing.TB, args ...string) *exec.Cmd {
	if testing.Short() {
		t.Skip("runs the server as a process of its own; skipped with -short")
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runAsServer+"=1")
	return cmd
}

// slow skips a test that measures memory or load over seconds, unless the
// environment has MCP_HELLO_TOOLS_SLOW=1, as .ci/run does.
func slow(t *testing.T) {
	if os.Getenv("MCP_HELLO_TOOLS_SLOW") == "" {
		t.Skip("measures memory over seconds: run with MCP_HELLO_TOOLS_SLOW=1")
	}
}

// A process is a server running as a process of its own, with pipes on
// its standard input and output.
type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser // its standard input
	out    *os.File       // its standard output
	stdout *bufio.Reader  // over out
	stderr *logBuffer     // its standard error; nil if the test took it
	exited chan struct{}  // closed once it has exited; then err is cmd.Wait's
	err    error
}

// start starts cmd: the server (serverCommand), the tools on go-sdk alone
// (bareCommand), or a command that runs one. Its standard error is kept,
// unless the test has set cmd.Stderr, and written to the test log if the
// test fails; when the test ends, the process is killed if it has not
// exited.
func start(t testing.TB, cmd *exec.Cmd) *process {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, w, err := os.Pipe()
	require.NoError(t, err)
	cmd.Stdout = w
	p := &process{cmd: cmd, stdin: stdin, out: out, stdout: bufio.NewReaderSize(out, 1<<20), exited: make(chan struct{})}
	if cmd.Stderr == nil {
		p.stderr = &logBuffer{}
		cmd.Stderr = p.stderr
	}
	err = cmd.Start()
	_ = w.Close() // the process has its own
	require.NoError(t, err, "starting %s", cmd.Path)
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = cmd.Process.Kill()
			<-p.exited
		}
		_ = out.Close()
		if t.Failed() && p.stderr != nil {
			t.Logf("the standard error of %s:\n%s", filepath.Base(cmd.Path), p.stderr)
		}
	})
	return p
}

// send writes each line to the process's standard input, and a newline.
func (p *process) send(t testing.TB, lines ...string) {
	t.Helper()
	for _, line := range lines {
		_, err := io.WriteString(p.stdin, line+"\n")
		require.NoError(t, err, "writing %.200s", line)
	}
}

// line reads the next line the process writes, without its newline, or
// reports false if its output has ended.
func (p *process) line(t testing.TB) (string, bool) {
	t.Helper()
	_ = p.out.SetReadDeadline(time.Now().Add(failAfter)) // for a failure only
	line, err := p.stdout.ReadString('\n')
	if errors.Is(err, os.ErrDeadlineExceeded) {
		p.dump()
		t.Fatalf("no line from %s within %v", filepath.Base(p.cmd.Path), failAfter)
	}
	if errors.Is(err, io.EOF) && line == "" {
		return "", false
	}
	require.NoError(t, err, "reading the output of %s; it ends in the middle of a line: %.200q", filepath.Base(p.cmd.Path), line)
	return strings.TrimSuffix(line, "\n"), true
}

// rest reads the lines the process writes until its output ends.
func (p *process) rest(t testing.TB) []string {
	t.Helper()
	var lines []string
	for line, ok := p.line(t); ok; line, ok = p.line(t) {
		lines = append(lines, line)
	}
	return lines
}

// receive reads the next line the process writes, a JSON-RPC response.
func (p *process) receive(t testing.TB) reply {
	t.Helper()
	line, ok := p.line(t)
	require.True(t, ok, "the output of %s ended before a reply", filepath.Base(p.cmd.Path))
	return decodeReply(t, line)
}

// converse writes each line to the process and, after each request, reads
// a line back, as a client that waits for each reply does, until the
// output ends (the process has exited); then it ends the input, reads the
// rest of the output, and returns every line read and the exit status.
func (p *process) converse(t testing.TB, lines ...string) (replies []string, status int) {
	t.Helper()
	for _, line := range lines {
		if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
			break // the process has exited
		}
		if !strings.Contains(line, `"id"`) {
			continue // a notification, or no message at all
		}
		reply, ok := p.line(t)
		if !ok {
			break
		}
		replies = append(replies, reply)
	}
	_ = p.stdin.Close() // it may be closed already: the process has exited
	return append(replies, p.rest(t)...), p.wait(t, failAfter)
}

// closeInput ends the process's standard input, as a client that leaves.
func (p *process) closeInput(t testing.TB) {
	t.Helper()
	require.NoError(t, p.stdin.Close())
}

// signal sends sig to the process.
func (p *process) signal(t testing.TB, sig os.Signal) {
	t.Helper()
	require.NoError(t, p.cmd.Process.Signal(sig))
}

// wait waits for the process to exit, for at most within, and returns its
// exit status, -1 if a signal ended it. A process that has not exited by
// then gets SIGQUIT, for a goroutine dump in its log, and the test fails.
func (p *process) wait(t testing.TB, within time.Duration) int {
	t.Helper()
	select {
	case <-p.exited:
	case <-time.After(within):
		p.dump()
		t.Fatalf("%s did not exit within %v", filepath.Base(p.cmd.Path), within)
	}
	var exit *exec.ExitError
	if p.err != nil && !errors.As(p.err, &exit) {
		t.Fatalf("waiting for %s: %v", filepath.Base(p.cmd.Path), p.err)
	}
	return p.cmd.ProcessState.ExitCode()
}

// dump has a server that has not exited write its goroutines to its log,
// and exit; one that cannot write them (its stderr full: nothing reads
// it) is killed. The go command (go run) is killed at once: its
// goroutines say nothing of the server, and only bury the line that says
// what failed.
func (p *process) dump() {
	sig := syscall.SIGQUIT
	if filepath.Base(p.cmd.Path) == "go" {
		sig = syscall.SIGKILL
	}
	select {
	case <-p.exited:
		return
	default:
		_ = p.cmd.Process.Signal(sig)
	}
	select {
	case <-p.exited:
	case <-time.After(dumpWithin):
		_ = p.cmd.Process.Kill()
		<-p.exited // SIGKILL cannot be refused
	}
}

// dumpWithin is how long a server is given to write its goroutines.
const dumpWithin = 10 * time.Second

// awaitLog waits until the process has logged a line that pattern
// matches, and returns the match and its submatches.
func (p *process) awaitLog(t testing.TB, pattern string) []string {
	t.Helper()
	m, ok := p.stderr.await(regexp.MustCompile(pattern), p.exited)
	require.True(t, ok, "%s logged no line matching %s", filepath.Base(p.cmd.Path), pattern)
	return m
}

// connect connects a go-sdk client over the process's pipes, as
// mcp.CommandTransport would over its own, asking for protocolVersion.
// When the test ends, the session closes, ending the server's input, and
// the server exits with status 0.
func (p *process) connect(t testing.TB, protocolVersion string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-test", Version: "v0.0.1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), failAfter)
	defer cancel()
	// Closing the session closes the writer alone, as CommandTransport does.
	session, err := client.Connect(ctx, &mcp.IOTransport{Reader: io.NopCloser(p.out), Writer: p.stdin},
		&mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	require.NoError(t, err, "connecting to %s", filepath.Base(p.cmd.Path))
	t.Cleanup(func() {
		assert.NoError(t, session.Close())
		assert.Equal(t, 0, p.wait(t, failAfter), "exit status once the client has closed the session")
	})
	return session
}

// checkPeakRSS logs the process's peak resident memory, and checks that
// it is below limit, where /proc tells it (Linux).
func (p *process) checkPeakRSS(t *testing.T, limit int64, what string) {
	t.Helper()
	if peak, ok := p.peakRSS(); ok {
		t.Logf("peak resident memory: %d MiB", peak>>20)
		assert.Less(t, peak, limit, "peak resident memory %s", what)
	}
}

// peakRSS returns the process's peak resident memory, in bytes, on
// systems with /proc; the process must not have exited.
func (p *process) peakRSS() (int64, bool) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// A logBuffer is a server's log, read by the test while it is written.
type logBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	grown chan struct{} // closed at the next write, if not nil
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.grown != nil {
		close(b.grown)
		b.grown = nil
	}
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// await waits until re matches the log, and returns the match and its
// submatches; or, once ended is closed or failAfter has passed, reports
// false.
func (b *logBuffer) await(re *regexp.Regexp, ended <-chan struct{}) ([]string, bool) {
	deadline := time.After(failAfter)
	for {
		b.mu.Lock()
		m := re.FindStringSubmatch(b.buf.String())
		if b.grown == nil {
			b.grown = make(chan struct{})
		}
		grown := b.grown
		b.mu.Unlock()
		if m != nil {
			return m, true
		}
		select {
		case <-grown:
		case <-ended:
			m := re.FindStringSubmatch(b.String()) // all is written once the process has exited
			return m, m != nil
		case <-deadline:
			return nil, false
		}
	}
}

// A reply is a line a server writes: a JSON-RPC response.
type reply struct {
	line   string
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decodeReply(t testing.TB, line string) reply {
	t.Helper()
	r := reply{line: line}
	require.NoError(t, json.Unmarshal([]byte(line), &r), "the reply is not JSON: %.200s", line)
	return r
}

// callTool calls a tool and fails the test on a JSON-RPC error.
func callTool(t testing.TB, session *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err, "CallTool(%s, %v)", tool, args)
	require.NotEmpty(t, res.Content, "CallTool(%s, %v) has no content", tool, args)
	return res
}

// hostProtocolVersions are the protocol versions real hosts use today: the
// two of the initialize handshake most hosts send, and 2026-07-28, which a
// go-sdk client asks for unless told otherwise (with server/discover, and
// no handshake).
var hostProtocolVersions = []string{"2025-06-18", "2025-11-25", "2026-07-28"}

const (
	wireInit        = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wire-test","version":"1.0.0"}}}`
	wireInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	wireCall        = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"calculate","arguments":{"expression":"6 * 7"}}}`
)

func TestBinaryToolCalls(t *testing.T) {
	for _, v := range hostProtocolVersions {
		t.Run(v, func(t *testing.T) {
			session := start(t, serverCommand(t)).connect(t, v)
			ctx := context.Background()
			assert.Equal(t, v, session.InitializeResult().ProtocolVersion)
			assert.Equal(t, name, session.InitializeResult().ServerInfo.Name)

			list, err := session.ListTools(ctx, nil)
			require.NoError(t, err)
			var names []string
			for _, tool := range list.Tools {
				names = append(names, tool.Name)
			}
			assert.ElementsMatch(t, toolNames(), names)

			callEachTool(t, session)
		})
	}
}

// callEachTool calls each tool of the server through session, and checks
// the answers: echo's text, calculate's result and its tool error, and
// get_timestamp's instant, now.
func callEachTool(t *testing.T, session *mcp.ClientSession) {
	t.Helper()
	res := callTool(t, session, "echo", map[string]any{"message": "héllo\n\"world\" \u2028 🎉"})
	assert.False(t, res.IsError)
	assert.Equal(t, "héllo\n\"world\" \u2028 🎉", res.Content[0].(*mcp.TextContent).Text)

	res = callTool(t, session, "calculate", map[string]any{"expression": "2 * (3 + 4.5) ^ 2"})
	assert.False(t, res.IsError)
	assert.JSONEq(t, `{"result": "112.5", "exact": true, "parsed": "(2 * ((3 + 4.5) ^ 2))"}`, mustJSON(t, res.StructuredContent))

	res = callTool(t, session, "calculate", map[string]any{"expression": "1/0"})
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, "division by zero")

	before := time.Now().Unix()
	res = callTool(t, session, "get_timestamp", map[string]any{"format": "unix", "timezone": "Europe/Paris"})
	assert.False(t, res.IsError)
	var ts struct {
		Timestamp string `json:"timestamp"`
		Timezone  string `json:"timezone"`
		Unix      int64  `json:"unix"`
	}
	require.NoError(t, json.Unmarshal([]byte(mustJSON(t, res.StructuredContent)), &ts))
	assert.Equal(t, "Europe/Paris", ts.Timezone)
	assert.Equal(t, fmt.Sprint(ts.Unix), ts.Timestamp)
	assert.InDelta(t, before, ts.Unix, 5)
}

// TestBinaryStdoutIsProtocolOnly drives the server by hand, line by line,
// and checks that every line it writes to stdout is a JSON-RPC 2.0 response
// to one of the requests, with nothing more, and that it exits with status
// 0 when stdin closes.
func TestBinaryStdoutIsProtocolOnly(t *testing.T) {
	p := start(t, serverCommand(t))
	replies, status := p.converse(t,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"get_timestamp","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"calculate","arguments":{"expression":"1+"}}}`)
	require.Equal(t, 5, len(replies), "replies")
	for _, line := range replies {
		var resp struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
			Error   json.RawMessage `json:"error"`
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		require.NoError(t, dec.Decode(&resp), "stdout line is not a JSON-RPC response: %.200s", line)
		assert.Equal(t, "2.0", resp.JSONRPC, line)
		assert.NotEmpty(t, resp.Result, line)
		assert.Empty(t, resp.Error, line)
	}
	assert.Zero(t, status, "exit status")
	assert.Contains(t, p.stderr.String(), "tools/call", "one log line per tool call on stderr")
}

// TestWirePrintfPipe runs the command of the README: the input ends right
// after the call, and both replies still come back.
func TestWirePrintfPipe(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs sh")
	}
	server := serverCommand(t)
	cmd := exec.Command("sh", "-c", `printf '%s\n' "$INIT" "$INITIALIZED" "$CALL" | "$0"`, server.Path)
	cmd.Env = append(slices.Clip(server.Env), "INIT="+wireInit, "INITIALIZED="+wireInitialized, "CALL="+wireCall)
	p := start(t, cmd)
	p.closeInput(t) // the server's input is printf's
	lines := p.rest(t)
	require.Equal(t, 0, p.wait(t, failAfter))
	require.Len(t, lines, 2, "replies:\n%s", strings.Join(lines, "\n"))
	assert.Contains(t, lines[0], `"id":1,"result":{`)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{\"exact\":true,\"parsed\":\"(6 * 7)\",\"result\":\"42\"}"}],"structuredContent":{"exact":true,"parsed":"(6 * 7)","result":"42"}}}`, lines[1])
}

// TestCalculateDigits calls calculate through the real binary, over stdio,
// and reads result as a host written in JavaScript does, parsing every JSON
// number into a float64, in structuredContent and in the text block: result
// is a string, so the parse cannot round it (121932631112635269 would be
// 121932631112635260 as a number).
func TestCalculateDigits(t *testing.T) {
	tests := []struct {
		expression, result string
		exact              bool
	}{
		{"123456789 * 987654321", "121932631112635269", true},
		{"2^64", "18446744073709551616", true},
		{"2^53 + 1", "9007199254740993", true},
		{"0.1 + 0.2", "0.3", true},
		{"0.07 * 100", "7", true},
		{"3.3 * 3", "9.9", true},
		{"1 - 0.9", "0.1", true},
		{"1.1 * 1.1", "1.21", true},
		{"10^-30", "1e-30", true},
		{"2^70", "1180591620717411303424", true},
		{"-(10^25) - 1", "-10000000000000000000000001", true},
		{"10^400", "1e+400", true},
		{"10^-400", "1e-400", true},
		{"-0", "0", true},
		{"1/3", "0.3333333333333333", false},
		{"2^0.5", "1.4142135623730951", false},
		{"(2^0.5)^2", "2.0000000000000004", false},
		{"2^-400", "3.8725919148493183e-121", false},
	}
	p := start(t, serverCommand(t))
	p.send(t, wireInit, wireInitialized)
	require.Nil(t, p.receive(t).Error)
	for i, tt := range tests {
		expression, err := json.Marshal(tt.expression)
		require.NoError(t, err)
		p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"calculate","arguments":{"expression":%s}}}`, i+2, expression))
		resp := p.receive(t)
		require.Nil(t, resp.Error, "tools/call calculate %q", tt.expression)
		var result struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		require.NoError(t, json.Unmarshal(resp.Result, &result))
		require.Len(t, result.Content, 1, "calculate %q: content", tt.expression)
		for where, data := range map[string][]byte{
			"structuredContent": result.StructuredContent,
			"the text block":    []byte(result.Content[0].Text),
		} {
			var out map[string]any // as JSON.parse reads it
			require.NoError(t, json.Unmarshal(data, &out), "calculate %q: %s is %s", tt.expression, where, data)
			assert.Equal(t, tt.result, out["result"], "calculate %q: result in %s", tt.expression, where)
			assert.Equal(t, tt.exact, out["exact"], "calculate %q: exact in %s", tt.expression, where)
		}
	}
}

// zoneinfoSources are the places Go's time package reads the tz database
// from on Linux, besides the ZONEINFO environment variable and the copy
// time/tzdata embeds in the binary (src/time/zoneinfo_unix.go).
var zoneinfoSources = []string{
	"/usr/share/zoneinfo",
	"/usr/share/lib/zoneinfo",
	"/usr/lib/locale/TZ",
	"/etc/zoneinfo",
}

// TestNoSystemZoneinfo checks that the real binary answers get_timestamp
// right on a machine with no tz database, as in a scratch or distroless
// container: the zones come from the copy time/tzdata embeds.
//
// It runs only with MCP_HELLO_NO_ZONEINFO=1, which .ci/no-zoneinfo sets
// after hiding every database Go could read (the system's and
// $GOROOT/lib/time/zoneinfo.zip) in a private mount namespace. The test
// first checks that they are hidden, so it cannot pass by accident.
func TestNoSystemZoneinfo(t *testing.T) {
	if os.Getenv("MCP_HELLO_NO_ZONEINFO") != "1" {
		t.Skip("needs a machine without a tz database; run .ci/no-zoneinfo")
	}
	_, set := os.LookupEnv("ZONEINFO")
	require.False(t, set, "ZONEINFO is set")
	for _, dir := range zoneinfoSources {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		require.NoError(t, err)
		require.Empty(t, entries, "%s is not empty", dir)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	require.NoError(t, err, "go env GOROOT")
	archive := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "time", "zoneinfo.zip")
	_, err = os.Stat(archive)
	require.ErrorIs(t, err, os.ErrNotExist, "%s is not hidden", archive)

	session := start(t, serverCommand(t)).connect(t, "2025-11-25")
	for _, zone := range []string{"Europe/Paris", "America/New_York"} {
		before := time.Now()
		res := callTool(t, session, "get_timestamp", map[string]any{"timezone": zone})
		after := time.Now()
		require.False(t, res.IsError, "get_timestamp %s: %s", zone, mustJSON(t, res.Content))
		var got tools.TimestampOutput
		require.NoError(t, json.Unmarshal([]byte(mustJSON(t, res.StructuredContent)), &got))

		// This test binary has the embedded database too: it imports tools,
		// which imports time/tzdata.
		loc, err := time.LoadLocation(zone)
		require.NoError(t, err)
		// A transition could fall between before and after; accept either side.
		sides := map[string]bool{
			before.In(loc).Format("-07:00"): before.In(loc).IsDST(),
			after.In(loc).Format("-07:00"):  after.In(loc).IsDST(),
		}
		dst, ok := sides[got.UTCOffset]
		assert.True(t, ok, "get_timestamp %s: utc_offset %s, want one of %v", zone, got.UTCOffset, sides)
		assert.Equal(t, dst, got.IsDST, "get_timestamp %s: is_dst", zone)
		assert.Equal(t, zone, got.Timezone)
		assert.Contains(t, map[string][]string{
			"Europe/Paris":     {"+01:00", "+02:00"},
			"America/New_York": {"-05:00", "-04:00"},
		}[zone], got.UTCOffset, "get_timestamp %s: utc_offset", zone)

		at, err := time.Parse(time.RFC3339, got.Timestamp)
		require.NoError(t, err, "get_timestamp %s: timestamp", zone)
		assert.True(t, strings.HasSuffix(got.Timestamp, got.UTCOffset), "get_timestamp %s: %s does not end in %s", zone, got.Timestamp, got.UTCOffset)
		assert.WithinRange(t, at, before.Truncate(time.Second), after, "get_timestamp %s: timestamp", zone)
	}
}

// TestWireSIGTERMWhileIdle: the server stops promptly, with status 0, when
// told to while it waits for input.
func TestWireSIGTERMWhileIdle(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM")
	}
	p := start(t, serverCommand(t))
	p.send(t, wireInit)
	require.NotNil(t, p.receive(t).Result)
	p.send(t, wireInitialized, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	require.NotNil(t, p.receive(t).Result) // all is read and answered: the server waits for input
	p.signal(t, syscall.SIGTERM)
	assert.Equal(t, 0, p.wait(t, 5*time.Second))
}

// TestWireTrace: with -trace, every message read and written is logged to
// stderr, one line each; stdout carries only the replies.
func TestWireTrace(t *testing.T) {
	p := start(t, serverCommand(t, "-trace"))
	p.send(t, `{oops`)
	assert.Equal(t, "null", string(p.receive(t).ID))
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	assert.Equal(t, "1", string(p.receive(t).ID))
	p.closeInput(t)
	assert.Equal(t, 0, p.wait(t, failAfter))
	for _, want := range []string{
		`read: {"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n",
		`write: {"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
		"read: {oops\n",
		`write: {"jsonrpc":"2.0","id":null,"error":{"code":-32700,`,
	} {
		assert.Contains(t, p.stderr.String(), want)
	}
}

var stress = flag.Int("stress", 0, "run TestWireStress with this many spawn, call, close cycles of the binary")

// TestWireStress runs the binary many times over, with -stress N: each
// cycle starts it, initializes, makes two calls, and then either closes its
// stdin or sends SIGTERM. A cycle whose server does not exit in time fails
// with a goroutine dump of the server.
func TestWireStress(t *testing.T) {
	if *stress == 0 {
		t.Skip("run with -stress N")
	}
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM")
	}
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	begin := time.Now()
	for range 4 {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(*stress) && failed.Load() == 0; i = next.Add(1) {
				ok := t.Run(fmt.Sprint("cycle-", i), func(t *testing.T) { stressCycle(t, i%2 == 0) })
				if !ok {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d cycles in %v, %d failed", min(next.Load()-4, int64(*stress)), time.Since(begin), failed.Load())
}

func stressCycle(t *testing.T, sigterm bool) {
	p := start(t, serverCommand(t))
	p.send(t, wireInit, wireInitialized, wireCall,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`)
	if !sigterm {
		p.closeInput(t)
	}
	for range 3 {
		require.Nil(t, p.receive(t).Error)
	}
	if sigterm {
		p.signal(t, syscall.SIGTERM)
	}
	require.Equal(t, 0, p.wait(t, 10*time.Second))
}
