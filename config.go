package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
)

// This file is the config subcommand: it prints, for one client, the
// configuration that makes the client start this server. A host starts a
// stdio server itself, not from the user's shell: it needs absolute paths,
// of the go command and of this checkout (for "go -C DIR run ."), or of a
// built binary; and it passes the server only a few variables of its own
// environment (hosts built on the TypeScript SDK: HOME, LOGNAME, PATH,
// SHELL, TERM and USER on macOS and Linux), so the Go settings the shell
// has must be in the configuration too.

// modulePath is the module path that this checkout's go.mod declares. The
// config subcommand checks it, so that it never prints the directory of some
// other module.
const modulePath = "mcp-hello-tools"

// serverKey is the name under which the configurations register the server.
// Clients show it in their lists and name the server's log after it.
const serverKey = "hello-tools"

// goSettings are the Go settings a host's go run must share with the shell
// that printed the configuration: the caches, without which the first start
// is a cold build of a minute, longer than hosts wait, and where modules
// come from. Without GOMODCACHE or GOPATH, and HOME, go run fails outright:
// "go: module cache not found: neither GOMODCACHE nor GOPATH is set".
var goSettings = []string{"GOPATH", "GOMODCACHE", "GOCACHE", "GOPROXY", "GOFLAGS"}

// launch is how a client starts the server: an absolute command, its
// arguments, and the variables to set.
type launch struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

// A client is one MCP host that config can configure.
type client struct {
	name   string
	render func(launch) (string, error) // the text to paste, or the command to run
	where  string                       // what to do with the text, for a human
}

// clients are the hosts config knows, in the order the usage lists them.
// The README's Troubleshooting section says where each keeps its logs.
var clients = []client{
	{
		name:   "claude-desktop",
		render: mcpServersJSON,
		where: "Paste into claude_desktop_config.json (Settings > Developer > Edit Config), merging\n" +
			"\"mcpServers\" with any servers already there, then quit and restart Claude Desktop.",
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
	},
	{
		name: "claude-code",
		render: func(l launch) (string, error) {
			words := []string{"claude", "mcp", "add", "--scope", "user"}
			for _, k := range slices.Sorted(maps.Keys(l.Env)) {
				words = append(words, "--env", k+"="+l.Env[k])
			}
			words = append(append(words, serverKey, "--", l.Command), l.Args...)
			for i, w := range words {
				words[i] = shellQuote(w)
			}
			return strings.Join(words, " ") + "\n", nil
		},
		where: "Run this command once; --scope user makes the server available in every project.\n" +
			"Check it with: claude mcp list",
	},
	{
		name:   "cursor",
		render: mcpServersJSON,
		where: "Paste into ~/.cursor/mcp.json (every project) or .cursor/mcp.json (one project),\n" +
			"merging \"mcpServers\" with any servers already there.",
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
	names := make([]string, len(clients))
	for i, c := range clients {
		names[i] = c.name
	}
	flags.Usage = func() {
		fmt.Fprintf(flags.Output(), "Usage:\n\n\t%s config CLIENT [-binary PATH]\n\n"+
			"Prints the configuration that makes CLIENT start this server, with absolute paths.\n"+
			"CLIENT is one of: %s.\n\nThe flags are:\n\n", name, strings.Join(names, ", "))
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
	i := slices.Index(names, target)
	switch {
	case len(rest) > 0:
		flags.Usage()
		return fmt.Errorf("config: unexpected argument %q", rest[0])
	case target == "":
		flags.Usage()
		return errors.New("config: name a client: " + strings.Join(names, ", "))
	case i < 0:
		flags.Usage()
		return fmt.Errorf("config: unknown client %q; want one of %s", target, strings.Join(names, ", "))
	}

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
	text, err := clients[i].render(l)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(stdout, text); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "\n%s\nIf the server does not appear, see Troubleshooting in the README for its log.\n", clients[i].where)
	if *binary == "" {
		fmt.Fprintf(stderr, "Hosts give a server about 60 s to start, and go run compiles first: after changing\n"+
			"the code, run it once yourself before the host restarts the server:\n\t%s -C %s run . -version\n",
			shellQuote(l.Command), shellQuote(l.Args[1]))
	}
	return nil
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

// goRunLaunch returns the launch "GO -C DIR run .", with the Go settings
// of goSettings as the go command sees them now: GO is the go command found
// in PATH, and DIR the root of this checkout, found from the working
// directory (the program may itself run under go run, from a temporary
// file, so its own path says nothing of the checkout).
func goRunLaunch() (launch, error) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return launch{}, fmt.Errorf("cannot find the go command: %w; install Go, or give a built server with -binary", err)
	}
	if goCmd, err = filepath.Abs(goCmd); err != nil {
		return launch{}, err
	}
	out, err := exec.Command(goCmd, append([]string{"env", "-json", "GOMOD"}, goSettings...)...).Output()
	if err != nil {
		return launch{}, fmt.Errorf("%s env: %w", goCmd, err)
	}
	var env map[string]string
	if err := json.Unmarshal(out, &env); err != nil {
		return launch{}, fmt.Errorf("%s env -json: %w", goCmd, err)
	}
	gomod := env["GOMOD"]
	delete(env, "GOMOD")
	maps.DeleteFunc(env, func(_, v string) bool { return v == "" })
	if gomod == "" || gomod == os.DevNull {
		return launch{}, fmt.Errorf("the working directory is not in a Go module; run config in the %s checkout, "+
			"or give a built server with -binary", modulePath)
	}
	data, err := os.ReadFile(gomod)
	if err != nil {
		return launch{}, err
	}
	if got := modfile.ModulePath(data); got != modulePath {
		return launch{}, fmt.Errorf("%s declares module %q, not %q; run config in the %s checkout, "+
			"or give a built server with -binary", gomod, got, modulePath, modulePath)
	}
	return launch{Command: goCmd, Args: []string{"-C", filepath.Dir(gomod), "run", "."}, Env: env}, nil
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
