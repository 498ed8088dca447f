package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/modfile"
)

// The tests in this file run the command line: its flags, and the config
// subcommand, whose output is read back as each host reads it, and started
// as a host starts it.

// TestFlags runs the command with each set of flags: what it prints, and
// the refusals that come before it serves (of -http, before it listens).
func TestFlags(t *testing.T) {
	tests := []struct {
		args               []string
		wantErr            string // substring; "" means success
		wantStdout         string
		wantStderrContains string
	}{
		{args: []string{"-version"}, wantStdout: name + " " + version + "\n"},
		{args: []string{"-h"}, wantStderrContains: "Usage:"},
		{args: []string{"-help"}, wantStderrContains: "-version"},
		{args: []string{"-nosuchflag"}, wantErr: "not defined", wantStderrContains: "Usage:"},
		{args: []string{"-version", "serve"}, wantErr: `unexpected argument "serve"`, wantStderrContains: "Usage:"},
		{args: []string{"config", "vscode", "-h"}, wantStderrContains: "HOST is one of"},
		{args: []string{"-http", "0.0.0.0:8080"}, wantErr: "not a loopback address"},
		{args: []string{"-http", "8080"}, wantErr: "host:port"},
		{args: []string{"-http", "127.0.0.1:0", "-trace"}, wantErr: "-trace"},
		{args: []string{"-z\x1b[2J"}, wantErr: `the argument "-z\x1b[2J" holds a control`},                          // flag would quote it raw
		{args: []string{"-http", "127.0.0.1:\x1b[2J"}, wantErr: `the argument "127.0.0.1:\x1b[2J" holds a control`}, // and net
		{args: []string{"config", "vscode", "-binary", "\xff"}, wantErr: `the argument "\xff" is not UTF-8`},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tt.args, nil, &stdout, &stderr)
		if tt.wantErr != "" {
			require.Error(t, err, "run(%q)", tt.args)
			assert.Contains(t, err.Error(), tt.wantErr, "run(%q)", tt.args)
		} else {
			require.NoError(t, err, "run(%q)", tt.args)
		}
		assert.Equal(t, tt.wantStdout, stdout.String(), "run(%q) stdout", tt.args)
		assert.Contains(t, stderr.String(), tt.wantStderrContains, "run(%q) stderr", tt.args)
	}
}

// parseConfig extracts the server's launch from the output of config for
// client: the JSON or TOML entry the client reads, or the words of the
// claude mcp add command.
func parseConfig(t *testing.T, client, out string) launch {
	t.Helper()
	return parseEntry(t, client, serverKey, out)
}

// parseEntry extracts the launch of the server listed under key.
func parseEntry(t *testing.T, client, key, out string) launch {
	t.Helper()
	var l launch
	switch client {
	case "claude-desktop", "cursor", "gemini":
		var cfg struct {
			MCPServers map[string]launch `json:"mcpServers"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &cfg), "config %s output:\n%s", client, out)
		require.Contains(t, cfg.MCPServers, key, "config %s output:\n%s", client, out)
		l = cfg.MCPServers[key]
	case "copilot":
		var cfg struct {
			MCPServers map[string]struct {
				Type string `json:"type"`
				launch
				Tools []string `json:"tools"`
			} `json:"mcpServers"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &cfg), "config copilot output:\n%s", out)
		require.Contains(t, cfg.MCPServers, key, "config copilot output:\n%s", out)
		assert.Equal(t, "local", cfg.MCPServers[key].Type)
		assert.Equal(t, []string{"*"}, cfg.MCPServers[key].Tools)
		l = cfg.MCPServers[key].launch
	case "codex":
		var cfg struct {
			MCPServers map[string]struct {
				launch
				Required bool `toml:"required"`
			} `toml:"mcp_servers"`
		}
		// Pasted after a table of the user's own, and another server's.
		file := "[mcp_servers]\n\n[mcp_servers.other]\ncommand = \"x\"\n\n" + out
		require.NoError(t, toml.Unmarshal([]byte(file), &cfg), "config codex output:\n%s", out)
		require.Contains(t, cfg.MCPServers, key, "config codex output:\n%s", out)
		assert.True(t, cfg.MCPServers[key].Required, "config codex: required")
		l = cfg.MCPServers[key].launch
	case "vscode":
		var cfg struct {
			Servers map[string]struct {
				Type string `json:"type"`
				launch
			} `json:"servers"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &cfg), "config vscode output:\n%s", out)
		require.Contains(t, cfg.Servers, key, "config vscode output:\n%s", out)
		assert.Equal(t, "stdio", cfg.Servers[key].Type)
		l = cfg.Servers[key].launch
	case "claude-code":
		words := shellSplit(t, strings.TrimSuffix(out, "\n"))
		// The name comes before --env, which takes every word up to "--".
		prefix := []string{"claude", "mcp", "add", "--scope", "user", key}
		require.Greater(t, len(words), len(prefix), "config claude-code output: %s", out)
		require.Equal(t, prefix, words[:len(prefix)], "config claude-code output: %s", out)
		words = words[len(prefix):]
		for len(words) > 1 && words[0] == "--env" {
			k, v, ok := strings.Cut(words[1], "=")
			require.True(t, ok, "--env %s", words[1])
			if l.Env == nil {
				l.Env = map[string]string{}
			}
			l.Env[k] = v
			words = words[2:]
		}
		require.Greater(t, len(words), 1, "config claude-code output: %s", out)
		require.Equal(t, "--", words[0], "config claude-code output: %s", out)
		l.Command, l.Args = words[1], words[2:]
	default:
		t.Fatalf("parseConfig: no parser for client %q", client)
	}
	require.NotNil(t, l.Args, "config %s: args is null, want a list", client)
	return l
}

// shellSplit splits a command line the way a POSIX shell does, for the
// words shellQuote writes: bare words, single-quoted strings and \'. A bare
// character a shell (sh, bash or zsh) would act on fails the test: $, [, *,
// ~, #, a quote, and the others.
func shellSplit(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var word strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			word.WriteByte(c)
		case c == '\'':
			quoted, inWord = true, true
		case c == '\\' && i+1 < len(line):
			i++
			word.WriteByte(line[i])
			inWord = true
		case c == ' ':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		default:
			require.True(t, strings.IndexByte(shellBare, c) >= 0, "%q is bare in %s: a shell would act on it", c, line)
			word.WriteByte(c)
			inWord = true
		}
	}
	require.False(t, quoted, "unterminated quote in %s", line)
	if inWord {
		words = append(words, word.String())
	}
	return words
}

// shellBare are the characters no shell acts on, which a word may hold bare.
const shellBare = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,/:@%"

func TestConfigGoRun(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	require.NoError(t, err)
	goCmd, err = filepath.Abs(goCmd)
	require.NoError(t, err)
	moduleDir, err := os.Getwd() // go test runs in the package directory, the module root
	require.NoError(t, err)

	for _, h := range hosts {
		client := h.key
		t.Run(client, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			require.NoError(t, runConfig([]string{client}, &stdout, &stderr), "config %s; stderr:\n%s", client, &stderr)
			l := parseConfig(t, client, stdout.String())
			assert.Equal(t, goCmd, l.Command, "config %s: command", client)
			assert.Equal(t, []string{"-C", moduleDir, "run", "."}, l.Args, "config %s: args", client)
			for _, k := range []string{"GOMODCACHE", "GOCACHE", "GOPROXY"} {
				assert.Equal(t, goEnv(t, k), l.Env[k], "config %s: env %s, as the go command sees it", client, k)
			}
			assert.Equal(t, "0", l.Env["CGO_ENABLED"], "config %s: env CGO_ENABLED, whatever PATH the host passes", client)
			assert.Contains(t, stderr.String(), "\t"+noCgo+" "+shellQuote(goCmd)+" -C "+shellQuote(moduleDir)+" run . -version\n",
				"config %s tells to build first, as the host will", client)
		})
	}
}

// goEnv returns the value of a Go setting, as "go env" gives it.
func goEnv(t *testing.T, key string) string {
	out, err := exec.Command("go", "env", key).Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

// hostVariables are the variables of the user's environment that hosts
// built on the TypeScript SDK pass to a stdio server on macOS and Linux
// (getDefaultEnvironment in @modelcontextprotocol/sdk).
var hostVariables = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}

// TestConfigStartsServer starts the command config prints, as a host does:
// under the variables a host passes and the configuration's env, and under
// the configuration's env alone (no PATH, so no C compiler). First it runs
// the line config prints to build the server before a host starts it, as
// the user's shell would, with no deadline: a cold build's speed decides
// nothing. Then neither start builds anything again (go run -x shows no
// compile or link), and the server answers initialize.
func TestConfigStartsServer(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go run; skipped with -short")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the host's variables differ on Windows")
	}
	var stdout, stderr bytes.Buffer
	require.NoError(t, runConfig([]string{"claude-desktop"}, &stdout, &stderr), "stderr:\n%s", &stderr)
	l := parseConfig(t, "claude-desktop", stdout.String())
	warm := regexp.MustCompile(`(?m)^\t(` + noCgo + ` .* -version)$`).FindStringSubmatch(stderr.String())
	require.NotNil(t, warm, "config prints no line that builds the server first:\n%s", &stderr)
	out, err := exec.Command("sh", "-c", warm[1]).CombinedOutput()
	require.NoError(t, err, "the line config prints to build the server: %s\n%s", warm[1], cut(string(out), 2000))

	configured := []string{"GOFLAGS=" + strings.TrimSpace(l.Env["GOFLAGS"]+" -x")} // -x: show what go run does
	for k, v := range l.Env {
		if k != "GOFLAGS" {
			configured = append(configured, k+"="+v)
		}
	}
	var host []string
	for _, k := range hostVariables {
		if v, ok := os.LookupEnv(k); ok {
			host = append(host, k+"="+v)
		}
	}
	for name, env := range map[string][]string{"host variables": append(host, configured...), "no other variable": configured} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(l.Command, l.Args...)
			cmd.Env = env
			cmd.Dir = t.TempDir() // not the checkout: hosts start servers anywhere
			p := start(t, cmd)
			p.send(t, wireInit)
			p.closeInput(t)
			reply, ok := p.line(t)
			require.True(t, ok, "%s %v under %v: no reply", l.Command, l.Args, env)
			assert.Contains(t, reply, `"protocolVersion":"2025-11-25"`, "the server answers initialize")
			assert.Equal(t, 0, p.wait(t, failAfter), "%s %v under %v: exit status", l.Command, l.Args, env)
			assert.NotRegexp(t, `(?m)/(compile|link) `, p.stderr.String(),
				"go run built the server again under %v, after the line config prints had built it", env)
		})
	}
}

// cut returns s cut to n bytes, for a failure message.
func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func TestConfigBinary(t *testing.T) {
	// A path with a space and a quote, to test the JSON and shell quoting.
	dir := filepath.Join(t.TempDir(), "it's a dir")
	require.NoError(t, os.Mkdir(dir, 0o755))
	bin := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(bin, []byte("not really a server"), 0o755))

	for _, h := range hosts {
		client := h.key
		orders := map[string][]string{
			"client first": {client, "-binary", bin},
			"flag first":   {"-binary", bin, client},
		}
		for order, args := range orders {
			t.Run(client+" "+order, func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				require.NoError(t, runConfig(args, &stdout, &stderr), "config %q; stderr:\n%s", args, &stderr)
				l := parseConfig(t, client, stdout.String())
				assert.Equal(t, launch{Command: bin, Args: []string{}}, l, "config %q", args)
				assert.NotContains(t, stderr.String(), "run . -version", "config %q", args)
			})
		}
	}
}

// TestConfigName lists the server under another key, as a second server,
// the learner's own, needs, in every host's configuration.
func TestConfigName(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "my-server")
	require.NoError(t, os.WriteFile(bin, []byte("not really a server"), 0o755))
	for _, h := range hosts {
		var stdout, stderr bytes.Buffer
		args := []string{h.key, "-binary", bin, "-name", "my-server"}
		require.NoError(t, runConfig(args, &stdout, &stderr), "config %q; stderr:\n%s", args, &stderr)
		assert.Equal(t, launch{Command: bin, Args: []string{}}, parseEntry(t, h.key, "my-server", stdout.String()), "config %q", args)
		assert.NotContains(t, stdout.String(), serverKey, "config %q", args)
	}
}

// TestConfigSpaces: a path may hold spaces of any kind, which a terminal
// shows as spaces: config prints it as it is (macOS names a screenshot
// "Screenshot 2026-12-05 at 10.00.00\u202fAM").
func TestConfigSpaces(t *testing.T) {
	for _, space := range []string{" ", "\u00a0", "\u202f", "\u3000"} {
		dir := filepath.Join(t.TempDir(), "a"+space+"b")
		require.NoError(t, os.Mkdir(dir, 0o755))
		bin := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(bin, []byte("not really a server"), 0o755))
		var stdout, stderr bytes.Buffer
		require.NoError(t, runConfig([]string{"cursor", "-binary", bin}, &stdout, &stderr), "config -binary %q", bin)
		assert.Equal(t, bin, parseConfig(t, "cursor", stdout.String()).Command, "config -binary %q", bin)
	}
}

func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		args    []string
		wantErr string // substring
	}{
		{"no host", nil, "name a host"},
		{"unknown host", []string{"emacs"}, `unknown host "emacs"`},
		{"unknown host, with ESC", []string{"\x1b]0;pwned\a"}, `unknown host "\x1b]0;pwned\a"`},
		{"binary with ESC", []string{"vscode", "-binary", filepath.Join(dir, "a\x1b[2Jb")}, `"` + dir + `/a\x1b[2Jb" holds a control`},
		{"binary with a C1 control", []string{"vscode", "-binary", filepath.Join(dir, "a\u009bb")}, `a\u009bb" holds a control`},
		{"binary with a bidi override", []string{"vscode", "-binary", filepath.Join(dir, "a\u202eb")}, `a\u202eb" holds a control`},
		{"binary with a line separator", []string{"vscode", "-binary", filepath.Join(dir, "a\u2028b")}, `a\u2028b" holds a control`},
		{"binary not UTF-8", []string{"vscode", "-binary", filepath.Join(dir, "a\xffb")}, `a\xffb" is not UTF-8`},
		{"two clients", []string{"vscode", "cursor"}, `unexpected argument "cursor"`},
		{"missing binary", []string{"vscode", "-binary", filepath.Join(dir, "nothing")}, "go build -o"},
		{"binary is a directory", []string{"vscode", "-binary", dir}, "is a directory"},
		{"unknown flag", []string{"vscode", "-bin", "x"}, "not defined"},
		{"empty name", []string{"vscode", "-name", ""}, `-name "": want 1 to 32 letters`},
		{"name with a space", []string{"vscode", "-name", "my server"}, `-name "my server": want`},
		{"name too long", []string{"vscode", "-name", strings.Repeat("a", maxKey+1)}, "want 1 to 32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { refused(t, tt.args, tt.wantErr) })
	}
}

// TestConfigGoSettingNotUTF8: a Go setting that is not UTF-8 is refused,
// quoted inert, not written as the other path go env makes of it.
func TestConfigGoSettingNotUTF8(t *testing.T) {
	t.Setenv("GOMODCACHE", "/tmp/\xffmod")
	var stdout, stderr bytes.Buffer
	err := runConfig([]string{"codex"}, &stdout, &stderr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `GOMODCACHE "/tmp/\xffmod" is not UTF-8`)
	assert.Empty(t, stdout.String())
}

// TestConfigInertDirectory runs config in checkouts whose folder's name a
// terminal would act on, or a host would not read: it refuses, quoting the
// name inert, rather than print it, or fail on another path.
func TestConfigInertDirectory(t *testing.T) {
	gomod, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	for _, folder := range []string{"a\x1b]0;pwned\ab", "a\u202eb", "a\xffb"} {
		dir := filepath.Join(t.TempDir(), folder)
		require.NoError(t, os.Mkdir(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), gomod, 0o644))
		t.Chdir(dir)
		var stdout, stderr bytes.Buffer
		err := runConfig([]string{"vscode"}, &stdout, &stderr)
		require.Error(t, err, "config vscode in %q", dir)
		assert.Contains(t, err.Error(), strconv.Quote(dir), "config vscode in %q", dir)
		assert.True(t, utf8.ValidString(err.Error()) && !strings.ContainsAny(err.Error(), "\x1b\a\u202e"), "config vscode in %q: %q", dir, err)
		assert.Empty(t, stdout.String())
	}
}

// TestConfigOutsideCheckout runs config in a directory that is not this
// module: without -binary it cannot say where the checkout is.
func TestConfigOutsideCheckout(t *testing.T) {
	other := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(other, "go.mod"), []byte("module example.com/other\n\ngo 1.26\n"), 0o644))
	for _, dir := range []string{t.TempDir(), other} {
		t.Chdir(dir)
		var stdout, stderr bytes.Buffer
		err := runConfig([]string{"vscode"}, &stdout, &stderr)
		require.Error(t, err, "config vscode in %s", dir)
		assert.Contains(t, err.Error(), "-binary", "config vscode in %s suggests -binary", dir)
		assert.Empty(t, stdout.String())
	}
}

func TestRunDispatchesConfig(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"config", "cursor"}, nil, &stdout, &stderr))
	parseConfig(t, "cursor", stdout.String())
}

func TestModulePath(t *testing.T) {
	gomod, err := os.ReadFile("go.mod")
	require.NoError(t, err)
	assert.Equal(t, modulePath, modfile.ModulePath(gomod), "this checkout's go.mod declares modulePath")
}

func TestShellQuote(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/usr/local/go/bin/go", "/usr/local/go/bin/go"},
		{"-C", "-C"},
		{".", "."},
		{"", "''"},
		{"/Users/ann/My Projects/mcp", "'/Users/ann/My Projects/mcp'"},
		{`C:\Program Files\Go\bin\go.exe`, `'C:\Program Files\Go\bin\go.exe'`},
		{"it's", `'it'\''s'`},
		{"$HOME", "'$HOME'"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, shellQuote(tt.in), "shellQuote(%q)", tt.in)
		assert.Equal(t, []string{tt.in}, shellSplit(t, shellQuote(tt.in)), "shellSplit(shellQuote(%q))", tt.in)
	}
}

// TestSampleConfigs checks the shape of the configurations kept in the
// repository: the sample of Claude Desktop's entry, and VS Code's
// workspace configuration, which VS Code reads when it opens this folder.
func TestSampleConfigs(t *testing.T) {
	desktop, err := os.ReadFile("claude_desktop_config.json")
	require.NoError(t, err)
	l := parseConfig(t, "claude-desktop", string(desktop))
	assert.Equal(t, []string{"-C", "/absolute/path/to/mcp-hello-tools", "run", "."}, l.Args)
	for _, k := range goSettings[:4] {
		assert.Contains(t, l.Env, k, "claude_desktop_config.json: env")
	}
	assert.Equal(t, noCgo, "CGO_ENABLED="+l.Env["CGO_ENABLED"], "claude_desktop_config.json: env")

	vscode, err := os.ReadFile(filepath.Join(".vscode", "mcp.json"))
	require.NoError(t, err)
	var cfg struct {
		Servers map[string]struct {
			Type, Command, Cwd string
			Args               []string
		} `json:"servers"`
	}
	require.NoError(t, json.Unmarshal(vscode, &cfg), ".vscode/mcp.json")
	s := cfg.Servers[serverKey]
	assert.Equal(t, "stdio", s.Type)
	assert.Equal(t, []string{"run", "."}, s.Args)
	assert.Equal(t, "${workspaceFolder}", s.Cwd)
}

// TestHostsListed: the README's table of hosts is config's list, a row for
// each host with its name and its key, and none for a host config does not
// know.
func TestHostsListed(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	var keys []string
	for _, h := range hosts {
		keys = append(keys, h.key)
		assert.Contains(t, string(readme), "| "+h.name+" | `"+h.key+"` |", "the README's table of hosts has no row for %s", h.key)
	}
	for _, m := range regexp.MustCompile("(?m)^\\| [^|]+ \\| `([a-z-]+)` \\|").FindAllStringSubmatch(string(readme), -1) {
		assert.Contains(t, keys, m[1], "the README's table of hosts has %s, which config does not know", m[1])
	}
}

// parseURL extracts, from the output of config HOST -url, the URL of the
// server listed under key: the JSON or TOML entry the host reads, or the
// words of the claude mcp add command.
func parseURL(t *testing.T, client, key, out string) string {
	t.Helper()
	switch client {
	case "cursor", "gemini", "copilot":
		var cfg struct {
			MCPServers map[string]struct {
				Type    string   `json:"type"`
				URL     string   `json:"url"`
				HTTPURL string   `json:"httpUrl"`
				Tools   []string `json:"tools"`
				Command string   `json:"command"`
			} `json:"mcpServers"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &cfg), "config %s -url output:\n%s", client, out)
		require.Contains(t, cfg.MCPServers, key, "config %s -url output:\n%s", client, out)
		s := cfg.MCPServers[key]
		assert.Empty(t, s.Command, "config %s -url: command", client)
		switch client {
		case "cursor":
			return s.URL
		case "gemini":
			return s.HTTPURL
		}
		assert.Equal(t, "http", s.Type, "config copilot -url: type")
		assert.Equal(t, []string{"*"}, s.Tools, "config copilot -url: tools")
		return s.URL
	case "vscode":
		var cfg struct {
			Servers map[string]struct {
				Type, URL string
			} `json:"servers"`
		}
		require.NoError(t, json.Unmarshal([]byte(out), &cfg), "config vscode -url output:\n%s", out)
		require.Contains(t, cfg.Servers, key, "config vscode -url output:\n%s", out)
		assert.Equal(t, "http", cfg.Servers[key].Type, "config vscode -url: type")
		return cfg.Servers[key].URL
	case "codex":
		var cfg struct {
			MCPServers map[string]struct {
				URL      string `toml:"url"`
				Command  string `toml:"command"`
				Required bool   `toml:"required"`
			} `toml:"mcp_servers"`
		}
		file := "[mcp_servers]\n\n[mcp_servers.other]\ncommand = \"x\"\n\n" + out
		require.NoError(t, toml.Unmarshal([]byte(file), &cfg), "config codex -url output:\n%s", out)
		require.Contains(t, cfg.MCPServers, key, "config codex -url output:\n%s", out)
		assert.True(t, cfg.MCPServers[key].Required, "config codex -url: required")
		assert.Empty(t, cfg.MCPServers[key].Command, "config codex -url: command")
		return cfg.MCPServers[key].URL
	case "claude-code":
		words := shellSplit(t, strings.TrimSuffix(out, "\n"))
		prefix := []string{"claude", "mcp", "add", "--transport", "http", "--scope", "user", key}
		require.Len(t, words, len(prefix)+1, "config claude-code -url output: %s", out)
		require.Equal(t, prefix, words[:len(prefix)], "config claude-code -url output: %s", out)
		return words[len(prefix)]
	}
	t.Fatalf("parseURL: no parser for client %q", client)
	return ""
}

// TestConfigURL prints each host's configuration for a server serving
// Streamable HTTP at a URL, under each key, the flag before and after the
// host; a host that takes stdio servers only says so, and prints nothing.
func TestConfigURL(t *testing.T) {
	for _, h := range hosts {
		for _, u := range []string{"http://127.0.0.1:8080/mcp", "http://[::1]:41234/mcp", "http://localhost/mcp"} {
			for _, args := range [][]string{{h.key, "-url", u}, {"-url", u, "-name", "my-server", h.key}} {
				t.Run(strings.Join(args, " "), func(t *testing.T) {
					var stdout, stderr bytes.Buffer
					err := runConfig(args, &stdout, &stderr)
					if h.writeURL == nil {
						require.Error(t, err, "config %q", args)
						assert.Contains(t, err.Error(), "stdio servers only", "config %q", args)
						assert.Empty(t, stdout.String(), "config %q", args)
						return
					}
					require.NoError(t, err, "config %q; stderr:\n%s", args, &stderr)
					key := serverKey
					if slices.Contains(args, "-name") {
						key = "my-server"
						assert.NotContains(t, stdout.String(), serverKey, "config %q", args)
					}
					assert.Equal(t, u, parseURL(t, h.key, key, stdout.String()), "config %q", args)
					assert.Contains(t, stderr.String(), "-http ", "config %q tells to start the server", args)
					// The line to paste is one word for -http, in zsh too, where [::1] is a pattern.
					line := strings.TrimPrefix(regexp.MustCompile(`\tgo run \. -http .*\n`).FindString(stderr.String()), "\t")
					assert.Equal(t, []string{"go", "run", ".", "-http", hostPort(u)}, shellSplit(t, strings.TrimSuffix(line, "\n")),
						"config %q: the line that starts the server", args)
				})
			}
		}
	}
	var stdout, stderr bytes.Buffer
	require.NoError(t, runConfig([]string{"vscode", "-url", "http://127.0.0.1:8080/mcp"}, &stdout, &stderr))
	assert.JSONEq(t, `{"servers":{"hello-tools":{"type":"http","url":"http://127.0.0.1:8080/mcp"}}}`, stdout.String(), "config vscode -url")
	assert.Contains(t, stderr.String(), "\tgo run . -http 127.0.0.1:8080\n", "config vscode -url")
}

// TestConfigURLErrors: a URL the server cannot be at is refused, saying
// what one looks like, and nothing is printed to paste.
func TestConfigURLErrors(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		wantErr string // substring
	}{
		{"and -binary", []string{"codex", "-binary", "/bin/true", "-url", "http://127.0.0.1:8080/mcp"}, "-binary and -url: give one"},
		{"not loopback", []string{"codex", "-url", "http://example.com/mcp"}, `"example.com" is not a loopback address`},
		{"every address", []string{"codex", "-url", "http://0.0.0.0:8080/mcp"}, "not a loopback address"},
		{"https", []string{"codex", "-url", "https://127.0.0.1:8080/mcp"}, `the scheme is "https", not http`},
		{"no path", []string{"gemini", "-url", "http://127.0.0.1:8080"}, `the server serves /mcp, not ""`},
		{"no scheme", []string{"gemini", "-url", "127.0.0.1:8080/mcp"}, "such as http://127.0.0.1:8080/mcp"},
		{"bad escape", []string{"gemini", "-url", "http://127.0.0.1:8080/%zz"}, `invalid URL escape "%zz"`},
		{"with ESC", []string{"copilot", "-url", "http://127.0.0.1:8080/mcp\x1b[2J"}, `holds a control`},
		{"Claude Desktop", []string{"claude-desktop", "-url", "http://127.0.0.1:8080/mcp"}, "Claude Desktop starts stdio servers only"},
		{"with U+202E", []string{"vscode", "-url", "http://127.0.0.1:8080/mcp\u202e"}, `holds a control`},
		{"with U+009B", []string{"cursor", "-url", "http://127.0.0.1:8080/mcp\u009b2J"}, `holds a control`},
		{"port past 65535", []string{"codex", "-url", "http://127.0.0.1:99999/mcp"}, `the port is "99999", not one of 1 to 65535`},
		{"port 0", []string{"codex", "-url", "http://127.0.0.1:0/mcp"}, `the port is "0"`},
		{"user and password", []string{"cursor", "-url", "http://user:secret@127.0.0.1:8080/mcp"}, "holds a user name or password"},
		{"empty user", []string{"cursor", "-url", "http://@127.0.0.1:8080/mcp"}, "holds a user name or password"},
		{"query", []string{"claude-code", "-url", "http://127.0.0.1:8080/mcp?a='$(id)"}, "has a query or a fragment"},
		{"empty query", []string{"vscode", "-url", "http://127.0.0.1:8080/mcp?"}, "has a query or a fragment"},
		{"fragment", []string{"gemini", "-url", "http://127.0.0.1:8080/mcp#top"}, "has a query or a fragment"},
		{"empty fragment", []string{"gemini", "-url", "http://127.0.0.1:8080/mcp#"}, "has a query or a fragment"},
		{"zone", []string{"claude-code", "-url", "http://[::1%25$(id)]:8080/mcp"}, "names a network interface"},
		{"path escaped ESC", []string{"copilot", "-url", "http://127.0.0.1:8080/mcp%1b"}, `not "/mcp\x1b"`},
		{"long", []string{"codex", "-url", "http://127.0.0.1:8080/" + strings.Repeat("a", 1<<20)}, "the server serves /mcp"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { refused(t, tt.args, tt.wantErr) })
	}
}

// refused checks that config refuses args with an error holding wantErr,
// prints nothing to paste, and lets no ESC reach the terminal.
func refused(t *testing.T, args []string, wantErr string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := runConfig(args, &stdout, &stderr)
	require.Error(t, err, "config %q", args)
	assert.Contains(t, err.Error(), wantErr, "config %q", args)
	assert.Empty(t, stdout.String(), "config %q prints nothing to paste", args)
	assert.NotContains(t, err.Error()+stderr.String(), "\x1b", "config %q: ESC reaches the terminal", args)
}
