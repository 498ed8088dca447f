package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pelletier/go-toml/v2"
	"golang.org/x/mod/modfile"

	"mcp-hello-tools/internal/streamable"
)

const (
	modulePath = "mcp-hello-tools" // checked, so that config never prints another module's directory
	serverKey  = "hello-tools"     // hosts list the server, and name its log, under this key; -name sets another
	// startupTimeout is how long, in seconds, config asks a host that lets it
	// be set to wait for a server that go run builds first: a cold build
	// takes 45 s on an idle 2-core machine, three minutes under load.
	startupTimeout = 300
)

// goSettings go into the configuration's env, as most hosts pass a server
// few variables (Codex: HOME, LANG, PATH, SHELL, TERM and a few more).
// Without the shell's caches, the first start is a cold build longer than
// hosts wait; without GOMODCACHE or GOPATH, go run fails outright.
var goSettings = []string{"GOPATH", "GOMODCACHE", "GOCACHE", "GOPROXY", "GOFLAGS"}

// noCgo goes into the configuration's env, and into the line config prints
// to build the server before a host starts it. The go command builds with
// cgo only if it finds a C compiler in PATH, and a host may pass no PATH:
// the same source would build a second time, the standard library and
// go-sdk with it, longer than hosts wait. The server needs no cgo.
const noCgo = "CGO_ENABLED=0"

// launch is how a host starts the server.
type launch struct {
	Command string            `json:"command" toml:"command"`
	Args    []string          `json:"args" toml:"args"`
	Env     map[string]string `json:"env,omitempty" toml:"env,omitempty"`
}

// A host is a program that starts MCP servers for a model: config's name
// for it, how it is called, how to write its configuration, and what to do
// with what config prints. writeURL writes the configuration that makes it
// connect to a server already serving Streamable HTTP at a URL; nil for a
// host whose configuration takes stdio servers only.
type host struct {
	key, name string
	write     func(w io.Writer, e entry) error
	writeURL  func(w io.Writer, key, url string) error
	todo      string
}

// An entry is what config prints for a host: the server's key in the
// host's configuration, and how to start it.
type entry struct {
	key   string
	goRun bool // the launch is go run, which compiles before it serves
	launch
}

// hosts are the hosts config knows: the one list of them, which config's
// usage, its tests and docs/hosts.md follow.
var hosts = []host{
	{"claude-desktop", "Claude Desktop", mcpServers, nil, "Merge into claude_desktop_config.json (Settings > Developer > Edit Config),\n" +
		"then quit and restart Claude Desktop."},
	{"vscode", "VS Code (Copilot Chat)", vscodeServers, vscodeURL, "Paste into .vscode/mcp.json in a workspace, or into your user configuration\n" +
		"(command palette: MCP: Open User Configuration), merging \"servers\" with any there."},
	{"cursor", "Cursor", mcpServers, urlServers("url"), "Merge into ~/.cursor/mcp.json (every project) or .cursor/mcp.json (one project)."},
	{"claude-code", "Claude Code", claudeMCPAdd, claudeMCPAddURL, "Run this command once; --scope user makes the server available in every project.\n" +
		"Check it with: claude mcp list"},
	{"codex", "Codex CLI", codexTable, codexURL, "Add to ~/.codex/config.toml (or $CODEX_HOME/config.toml). required = true makes\n" +
		"Codex wait for the server, and stop if it cannot start. Check it with: codex mcp list"},
	{"gemini", "Gemini CLI", mcpServers, urlServers("httpUrl"), "Merge into ~/.gemini/settings.json (every project) or .gemini/settings.json\n" +
		"(one project). Check it with: gemini mcp list"},
	{"copilot", "GitHub Copilot CLI", copilotServers, copilotURL, "Merge into ~/.copilot/mcp-config.json, or pass the file to copilot with\n" +
		"--additional-mcp-config @FILE."},
}

// runConfig runs "config HOST [-binary PATH | -url URL]": it prints to
// stdout the configuration that makes HOST start this server, with the
// absolute paths a host needs, or connect to it at URL, where it serves
// Streamable HTTP (-http); and to stderr what to do with it.
func runConfig(args []string, stdout, stderr io.Writer) error {
	var keys []string
	for _, h := range hosts {
		keys = append(keys, h.key)
	}
	list := strings.Join(keys, ", ")
	flags := flag.NewFlagSet(name+" config", flag.ContinueOnError)
	flags.SetOutput(stderr)
	binary := flags.String("binary", "", "configure the built server at `path` instead of go run of this checkout")
	serverURL := flags.String("url", "", "configure the server serving Streamable HTTP at `url` (started with -http) instead of starting one")
	key := flags.String("name", serverKey, "list the server under `key` in the host's configuration")
	flags.Usage = func() {
		fmt.Fprintf(stderr, "Usage:\n\n\t%s config HOST [-binary PATH | -url URL] [-name KEY]\n\n"+
			"Prints the configuration that makes HOST start this server, with absolute paths,\n"+
			"or, with -url, connect to it where it serves Streamable HTTP.\n"+
			"HOST is one of: %s.\n\nThe flags are:\n\n", name, list)
		flags.PrintDefaults()
	}
	var hostKey string // the flags may come before HOST or after it
	help, err := parse(flags, args, &hostKey)
	i := slices.IndexFunc(hosts, func(h host) bool { return h.key == hostKey })
	switch {
	case help:
		return nil
	case err != nil:
		return fmt.Errorf("config: %w", err)
	case hostKey == "":
		flags.Usage()
		return errors.New("config: name a host: " + list)
	case i < 0:
		flags.Usage()
		return fmt.Errorf("config: unknown host %s; want one of %s", quote(hostKey), list)
	case !validKey(*key):
		return fmt.Errorf("config: -name %s: want 1 to %d letters, digits, '-' or '_', as hosts take in a tool's name", quote(*key), maxKey)
	case *serverURL != "":
		return configURL(hosts[i], *binary, *serverURL, *key, stdout, stderr)
	}

	l, err := serverLaunch(*binary)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := hosts[i].write(stdout, entry{*key, *binary == "", l}); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "\n%s\nIf the server does not appear, see docs/troubleshooting.md for its log.\n", hosts[i].todo)
	if *binary == "" {
		fmt.Fprintf(stderr, "go run compiles before the server starts, longer than most hosts wait the first time:\n"+
			"after changing the code, build it once yourself, as the host will, before the host starts the server:\n\t%s\n",
			warmUp(l))
	}
	return nil
}

// configURL prints h's configuration for the server at rawURL, listed
// under key, and what to do with it.
func configURL(h host, binary, rawURL, key string, stdout, stderr io.Writer) error {
	switch {
	case binary != "":
		return errors.New("config: -binary and -url: give one; -binary makes the host start the server, -url connect to one running")
	case h.writeURL == nil:
		return fmt.Errorf("config: %s starts stdio servers only from its configuration; configure it without -url, and it starts the server itself", h.name)
	}
	if err := checkURL(rawURL); err != nil {
		return fmt.Errorf("config: -url %w", err)
	}
	if err := h.writeURL(stdout, key, rawURL); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "\n%s\nThe host connects to the server and does not start it: start it first, and keep it running:\n"+
		"\tgo run . -http %s\n(or the built server with -http %[2]s). See docs/http.md.\n", h.todo, shellQuote(hostPort(rawURL)))
	return nil
}

// checkURL returns an error that says what is wrong with s as the URL of
// this server: it must be http, on a loopback host (-http listens
// nowhere else), with the path the server serves, and printable.
func checkURL(s string) error {
	if err := printable(s); err != nil {
		return err
	}
	want := "want the URL the server's \"serving\" line gives, such as http://127.0.0.1:8080" + streamable.Path
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w; %s", quote(s), errors.Unwrap(err), want)
	case u.Scheme != "http":
		return fmt.Errorf("%s: the scheme is %s, not http, which -http serves; %s", quote(s), quote(u.Scheme), want)
	case !streamable.IsLoopback(u.Hostname()):
		return fmt.Errorf("%s: %s is %w, and -http listens on loopback only; %s", quote(s), quote(u.Hostname()), errNotLoopback, want)
	case strings.Contains(u.Hostname(), "%"):
		return fmt.Errorf("%s: %s names a network interface (a zone), which -http takes none of; %s", quote(s), quote(u.Hostname()), want)
	case u.Port() != "" && !validPort(u.Port()):
		return fmt.Errorf("%s: the port is %s, not one of 1 to 65535 (-http's port 0 picks one, which its \"serving\" line gives); %s", quote(s), quote(u.Port()), want)
	case u.Path != streamable.Path:
		return fmt.Errorf("%s: the server serves %s, not %s; %s", quote(s), streamable.Path, quote(u.Path), want)
	case u.User != nil:
		// The server has no authentication; the host would keep the password in its configuration.
		return fmt.Errorf("%s: holds a user name or password, which the server takes none of; %s", quote(s), want)
	case u.ForceQuery || u.RawQuery != "" || strings.Contains(s, "#"):
		return fmt.Errorf("%s: has a query or a fragment, which the server reads none of; %s", quote(s), want)
	}
	return nil
}

// validPort reports whether port, the digits of a URL's, is one a server
// listens on: 1 to 65535.
func validPort(port string) bool {
	n, err := strconv.Atoi(port)
	return err == nil && n >= 1 && n <= 65535
}

// hostPort returns the host and port of a URL checkURL accepted, for -http.
func hostPort(s string) string {
	u, _ := url.Parse(s)
	if u.Port() == "" {
		return net.JoinHostPort(u.Hostname(), "80")
	}
	return u.Host
}

// warmUp returns the shell line that builds what the host will start, with
// noCgo as in the configuration's env, and runs it with -version.
func warmUp(l launch) string {
	line := noCgo
	for _, word := range append([]string{l.Command}, l.Args...) {
		line += " " + shellQuote(word)
	}
	return line + " -version"
}

// maxKey is the longest key -name takes: a host puts it in front of each
// tool's name (mcp__KEY__calculate), and model APIs take names of 64
// characters at most.
const maxKey = 32

// validKey reports whether key is one a host takes: 1 to maxKey ASCII
// letters, digits, '-' or '_'.
func validKey(key string) bool {
	return len(key) > 0 && len(key) <= maxKey && strings.Trim(key,
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == ""
}

// mcpServers writes the configuration of Claude Desktop, Cursor and Gemini
// CLI: the server under "mcpServers".
func mcpServers(w io.Writer, e entry) error {
	return writeJSON(w, map[string]any{"mcpServers": map[string]launch{e.key: e.launch}})
}

// vscodeServers writes VS Code's: the server, of type stdio, under "servers".
func vscodeServers(w io.Writer, e entry) error {
	type server struct {
		Type string `json:"type"`
		launch
	}
	return writeJSON(w, map[string]any{"servers": map[string]server{e.key: {"stdio", e.launch}}})
}

// copilotServers writes Copilot CLI's: the server, of type local, with
// every tool allowed, under "mcpServers".
func copilotServers(w io.Writer, e entry) error {
	type server struct {
		Type string `json:"type"`
		launch
		Tools []string `json:"tools"`
	}
	return writeJSON(w, map[string]any{"mcpServers": map[string]server{e.key: {"local", e.launch, []string{"*"}}}})
}

// claudeMCPAdd writes Claude Code's command that adds the server. The name
// comes before --env, which takes every word after it up to "--".
func claudeMCPAdd(w io.Writer, e entry) error {
	cmd := "claude mcp add --scope user " + e.key
	for _, k := range slices.Sorted(maps.Keys(e.Env)) {
		cmd += " --env " + shellQuote(k+"="+e.Env[k])
	}
	for _, word := range append([]string{"--", e.Command}, e.Args...) {
		cmd += " " + shellQuote(word)
	}
	_, err := fmt.Fprintln(w, cmd)
	return err
}

// codexTable writes Codex's TOML table [mcp_servers.KEY]. Without
// required, codex exec does not wait for the server before the model's turn.
func codexTable(w io.Writer, e entry) error {
	type server struct {
		launch
		Required       bool `toml:"required"`
		StartupTimeout int  `toml:"startup_timeout_sec,omitempty"` // Codex's default: 30
	}
	s := server{launch: e.launch, Required: true}
	if e.goRun {
		s.StartupTimeout = startupTimeout
	}
	data, err := toml.Marshal(map[string]map[string]server{"mcp_servers": {e.key: s}})
	if err != nil {
		return err
	}
	// go-toml writes the table's parent, [mcp_servers], first: a second
	// [mcp_servers] in a file that has one is invalid TOML.
	_, err = w.Write(bytes.TrimPrefix(data, []byte("[mcp_servers]\n")))
	return err
}

// urlServers returns the writer of a host that takes, under "mcpServers",
// a server's URL in member: Cursor's "url", Gemini CLI's "httpUrl".
func urlServers(member string) func(w io.Writer, key, url string) error {
	return func(w io.Writer, key, url string) error {
		return writeJSON(w, map[string]any{"mcpServers": map[string]any{key: map[string]string{member: url}}})
	}
}

// httpServer is a server of type http at URL, as VS Code and Copilot CLI
// take it; Tools, if set, are the tools allowed.
type httpServer struct {
	Type  string   `json:"type"`
	URL   string   `json:"url"`
	Tools []string `json:"tools,omitempty"`
}

// vscodeURL writes VS Code's: the server, of type http, under "servers".
func vscodeURL(w io.Writer, key, url string) error {
	return writeJSON(w, map[string]any{"servers": map[string]httpServer{key: {"http", url, nil}}})
}

// copilotURL writes Copilot CLI's: the server, of type http, with every
// tool allowed, under "mcpServers".
func copilotURL(w io.Writer, key, url string) error {
	return writeJSON(w, map[string]any{"mcpServers": map[string]httpServer{key: {"http", url, []string{"*"}}}})
}

// claudeMCPAddURL writes Claude Code's command that adds the server at
// url. Without --scope, claude mcp add writes the local scope: this
// project's directory alone.
func claudeMCPAddURL(w io.Writer, key, url string) error {
	_, err := fmt.Fprintln(w, "claude mcp add --transport http --scope user "+key+" "+shellQuote(url))
	return err
}

// codexURL writes Codex's TOML table [mcp_servers.KEY] with the server's url.
func codexURL(w io.Writer, key, url string) error {
	type server struct {
		URL      string `toml:"url"`
		Required bool   `toml:"required"`
	}
	data, err := toml.Marshal(map[string]map[string]server{"mcp_servers": {key: {url, true}}})
	if err != nil {
		return err
	}
	_, err = w.Write(bytes.TrimPrefix(data, []byte("[mcp_servers]\n")))
	return err
}

// writeJSON writes v as indented JSON. Paths keep & and < as they are.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// serverLaunch returns how a host is to start the server: the built server
// at binary if given, else "GO -C DIR run ." with goSettings as they are now
// and noCgo,
// where GO is the go command in PATH and DIR the module root of the working
// directory (under go run, this program is a temporary file). Each string
// is one a terminal shows as it is.
func serverLaunch(binary string) (launch, error) {
	l, err := findServer(binary)
	if err != nil {
		return launch{}, err
	}
	for _, s := range append(append([]string{l.Command}, l.Args...), slices.Collect(maps.Values(l.Env))...) {
		if err := printable(s); err != nil {
			return launch{}, fmt.Errorf("%w: move the checkout, rename its folder, or change the setting", err)
		}
	}
	return l, nil
}

func findServer(binary string) (launch, error) {
	if binary != "" {
		if err := printable(binary); err != nil {
			return launch{}, fmt.Errorf("-binary: %w", err)
		}
		info, err := os.Stat(binary)
		switch {
		case err != nil:
			return launch{}, fmt.Errorf("-binary: %w; build the server first with \"go build -o %s .\" in the checkout", err, binary)
		case info.IsDir():
			return launch{}, fmt.Errorf("-binary %s is a directory; give the path of the built server, as made by \"go build -o %s .\"",
				binary, filepath.Join(binary, name))
		}
		abs, err := filepath.Abs(binary)
		return launch{Command: abs, Args: []string{}}, err
	}
	goCmd, err := exec.LookPath("go")
	if err == nil {
		goCmd, err = filepath.Abs(goCmd)
	}
	if err != nil {
		return launch{}, fmt.Errorf("cannot find the go command: %w; install Go, or give a built server with -binary", err)
	}
	dir, err := os.Getwd()
	for _, s := range []string{goCmd, dir} {
		if err == nil {
			err = printable(s)
		}
	}
	if err != nil {
		return launch{}, fmt.Errorf("%w: move the checkout, or rename its folder", err)
	}
	for _, k := range goSettings { // go env writes bytes that are not UTF-8 as U+FFFD: another path
		if v, ok := os.LookupEnv(k); ok && !utf8.ValidString(v) {
			return launch{}, fmt.Errorf("%s %w", k, printable(v))
		}
	}
	out, err := exec.Command(goCmd, append([]string{"env", "-json", "GOMOD"}, goSettings...)...).Output()
	var env map[string]string
	if err == nil {
		err = json.Unmarshal(out, &env)
	}
	if err != nil {
		return launch{}, fmt.Errorf("%s env: %w", goCmd, err)
	}
	gomod := env["GOMOD"]
	maps.DeleteFunc(env, func(k, v string) bool { return k == "GOMOD" || v == "" })
	k, v, _ := strings.Cut(noCgo, "=")
	env[k] = v
	const elsewhere = "run config in the " + modulePath + " checkout, or give a built server with -binary"
	if gomod == "" || gomod == os.DevNull {
		return launch{}, errors.New("the working directory is not in a Go module; " + elsewhere)
	}
	data, err := os.ReadFile(gomod)
	if err != nil {
		return launch{}, err
	}
	if got := modfile.ModulePath(data); got != modulePath {
		return launch{}, fmt.Errorf("%s declares module %s, not %q; %s", gomod, quote(got), modulePath, elsewhere)
	}
	return launch{Command: goCmd, Args: []string{"-C", filepath.Dir(gomod), "run", "."}, Env: env}, nil
}

// quote returns s in double quotes, cut to 200 bytes, with every byte a
// terminal would act on escaped, as Go writes a string literal.
func quote(s string) string {
	if len(s) > 200 {
		return strconv.Quote(strings.ToValidUTF8(s[:200], "")) + "…"
	}
	return strconv.Quote(s)
}

// shellQuote returns s as one word for a POSIX shell: bare if no character
// of s is special to the shell, else in single quotes, inside which all is
// literal; a single quote in s ends them, is written \', and starts them again.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,/:@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
