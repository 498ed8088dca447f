package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// This file is the config subcommand: it prints, for one client, the
// configuration that makes the client start this server. A desktop client
// starts the server itself, without the user's shell, so it needs absolute
// paths: of the go command and of this checkout (for "go -C DIR run ."), or
// of a built binary.

// modulePath is the module path that this checkout's go.mod declares. The
// config subcommand checks it, so that it never prints the directory of some
// other module.
const modulePath = "mcp-hello-tools"

// serverKey is the name under which the configurations register the server.
// Clients show it in their lists and name the server's log after it.
const serverKey = "hello-tools"

// launch is how a client starts the server: an absolute command and its
// arguments.
type launch struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

// A client is one MCP host that config can configure.
type client struct {
	name   string
	render func(launch) (string, error) // the text to paste, or the command to run
	where  string                       // what to do with the text, for a human
	logs   string                       // where the client keeps the server's stderr
}

// clients are the hosts config knows, in the order the usage lists them.
var clients = []client{
	{
		name:   "claude-desktop",
		render: mcpServersJSON,
		where: "Paste into claude_desktop_config.json (Settings > Developer > Edit Config), merging\n" +
			"\"mcpServers\" with any servers already there, then restart Claude Desktop.",
		logs: "~/Library/Logs/Claude/mcp-server-" + serverKey + ".log on macOS,\n" +
			"%APPDATA%\\Claude\\logs\\mcp-server-" + serverKey + ".log on Windows.",
	},
	{
		name: "vscode",
		render: func(l launch) (string, error) {
			type server struct {
				Type string `json:"type"`
				launch
			}
			return indentJSON(map[string]any{"servers": map[string]server{serverKey: {"stdio", l}}})
		},
		where: "Paste into .vscode/mcp.json in a workspace, or into your user configuration\n" +
			"(command palette: MCP: Open User Configuration), merging \"servers\" with any there.",
		logs: "the Output panel, channel \"MCP: " + serverKey + "\" (or MCP: List Servers > Show Output).",
	},
	{
		name: "claude-code",
		render: func(l launch) (string, error) {
			words := append([]string{"claude", "mcp", "add", "--scope", "user", serverKey, "--", l.Command}, l.Args...)
			for i, w := range words {
				words[i] = shellQuote(w)
			}
			return strings.Join(words, " ") + "\n", nil
		},
		where: "Run this command once; --scope user makes the server available in every project.\n" +
			"Check it with: claude mcp list",
		logs: "run claude --debug mcp to see the server's stderr; /mcp in a session shows its status.",
	},
	{
		name:   "cursor",
		render: mcpServersJSON,
		where: "Paste into ~/.cursor/mcp.json (every project) or .cursor/mcp.json (one project),\n" +
			"merging \"mcpServers\" with any servers already there.",
		logs: "the Output panel, channel \"MCP Logs\".",
	},
}

// mcpServersJSON renders the "mcpServers" configuration that Claude Desktop
// and Cursor share.
func mcpServersJSON(l launch) (string, error) {
	return indentJSON(map[string]any{"mcpServers": map[string]launch{serverKey: l}})
}

// indentJSON encodes v with two-space indentation, leaving characters such
// as & and < as they are.
func indentJSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// runConfig runs "config CLIENT [-binary PATH]": it prints the configuration
// for CLIENT to stdout, ready to paste or to run, and what to do with it to
// stderr. The flag may come before or after CLIENT.
func runConfig(args []string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet(name+" config", flag.ContinueOnError)
	flags.SetOutput(stderr)
	binary := flags.String("binary", "", "configure the built server at `path` instead of go run of this checkout")
	flags.Usage = func() {
		fmt.Fprintf(flags.Output(), "Usage:\n\n\t%s config CLIENT [-binary PATH]\n\n"+
			"Prints the configuration that makes CLIENT start this server, with absolute paths.\n"+
			"CLIENT is one of: %s.\n\nThe flags are:\n\n", name, strings.Join(clientNames(), ", "))
		flags.PrintDefaults()
	}

	var target string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		target, args = args[0], args[1:]
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	rest := flags.Args()
	if target == "" && len(rest) > 0 {
		target, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 {
		flags.Usage()
		return fmt.Errorf("config: unexpected argument %q", rest[0])
	}
	i := slices.IndexFunc(clients, func(c client) bool { return c.name == target })
	if i < 0 {
		flags.Usage()
		if target == "" {
			return errors.New("config: name a client: " + strings.Join(clientNames(), ", "))
		}
		return fmt.Errorf("config: unknown client %q; want one of %s", target, strings.Join(clientNames(), ", "))
	}
	c := clients[i]

	var l launch
	var err error
	if *binary != "" {
		l, err = binaryLaunch(*binary)
	} else {
		l, err = goRunLaunch()
	}
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	text, err := c.render(l)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(stdout, text); err != nil {
		return err
	}
	_, err = fmt.Fprintf(stderr, "\n%s\nThe server's stderr (one line per tool call; add -trace to args for every message):\n%s\n",
		c.where, c.logs)
	if err == nil && *binary == "" {
		_, err = fmt.Fprintf(stderr, "Clients give a server little time to start (Claude Desktop waits 60 s), and go run\n"+
			"compiles first: after changing the code, run it once yourself before the client restarts\n"+
			"the server, so the client's go run finds it built: %s -C %s run . -version\n",
			shellQuote(l.Command), shellQuote(l.Args[1]))
	}
	return err
}

func clientNames() []string {
	var names []string
	for _, c := range clients {
		names = append(names, c.name)
	}
	return names
}

// binaryLaunch returns the launch of the built server at path.
func binaryLaunch(path string) (launch, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return launch{}, err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return launch{}, fmt.Errorf("-binary: %w; build the server first with \"go build -o %s .\" in the checkout", err, path)
	}
	if info.IsDir() {
		return launch{}, fmt.Errorf("-binary %s is a directory; give the path of the built server, as made by \"go build -o %s .\"",
			abs, filepath.Join(path, name))
	}
	return launch{Command: abs, Args: []string{}}, nil
}

// goRunLaunch returns the launch "GO -C DIR run .": GO is the go command
// found in PATH now, and DIR is the root of this checkout, found from the
// working directory. The program may itself run under go run, from a
// temporary file, so its own path says nothing about the checkout.
func goRunLaunch() (launch, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return launch{}, fmt.Errorf("cannot find the go command: %w; install Go, or give a built server with -binary", err)
	}
	if goCmd, err = filepath.Abs(goCmd); err != nil {
		return launch{}, err
	}
	out, err := exec.Command(goCmd, "env", "GOMOD").Output()
	if err != nil {
		return launch{}, fmt.Errorf("%s env GOMOD: %w", goCmd, err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return launch{}, fmt.Errorf("the working directory is not in a Go module; run config in the %s checkout, "+
			"or give a built server with -binary", modulePath)
	}
	data, err := os.ReadFile(gomod)
	if err != nil {
		return launch{}, err
	}
	if got := moduleDirective(data); got != modulePath {
		return launch{}, fmt.Errorf("%s declares module %q, not %q; run config in the %s checkout, "+
			"or give a built server with -binary", gomod, got, modulePath, modulePath)
	}
	return launch{Command: goCmd, Args: []string{"-C", filepath.Dir(gomod), "run", "."}}, nil
}

// moduleRE matches a go.mod's module directive: the path, bare or quoted.
var moduleRE = regexp.MustCompile(`(?m)^\s*module\s+"?([^"\s]+)"?`)

// moduleDirective returns the module path that the go.mod content data
// declares, or "" if it declares none.
func moduleDirective(data []byte) string {
	if m := moduleRE.FindSubmatch(data); m != nil {
		return string(m[1])
	}
	return ""
}

// shellQuote returns s as one word for a POSIX shell: as it is if it holds
// only characters the shell does not treat specially, otherwise in single
// quotes, inside which every character is literal (PowerShell reads them the
// same way). A single quote inside closes the quotes, is written as \', and
// opens them again.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,/:@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
