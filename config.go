package main

import (
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

const (
	modulePath = "mcp-hello-tools" // checked, so that config never prints another module's directory
	serverKey  = "hello-tools"     // hosts list the server, and name its log, under this key
)

// goSettings go into the configuration's env, as hosts pass a server few
// variables (those on the TypeScript SDK: HOME, LOGNAME, PATH, SHELL, TERM,
// USER). Without the shell's caches, the first start is a cold build longer
// than hosts wait; without GOMODCACHE or GOPATH, go run fails outright.
var goSettings = []string{"GOPATH", "GOMODCACHE", "GOCACHE", "GOPROXY", "GOFLAGS"}

// launch is how a host starts the server.
type launch struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env,omitempty"`
}

// clients maps the hosts config knows to what to do with their configuration.
var clients = map[string]string{
	"claude-desktop": "Paste into claude_desktop_config.json (Settings > Developer > Edit Config), merging\n" +
		"\"mcpServers\" with any servers already there, then quit and restart Claude Desktop.",
	"vscode": "Paste into .vscode/mcp.json in a workspace, or into your user configuration\n" +
		"(command palette: MCP: Open User Configuration), merging \"servers\" with any there.",
	"claude-code": "Run this command once; --scope user makes the server available in every project.\n" +
		"Check it with: claude mcp list",
	"cursor": "Paste into ~/.cursor/mcp.json (every project) or .cursor/mcp.json (one project),\n" +
		"merging \"mcpServers\" with any servers already there.",
}

// runConfig runs "config CLIENT [-binary PATH]": it prints to stdout the
// configuration that makes CLIENT start this server, with the absolute paths
// a host needs, and to stderr what to do with it.
func runConfig(args []string, stdout, stderr io.Writer) error {
	list := strings.Join(slices.Sorted(maps.Keys(clients)), ", ")
	flags := flag.NewFlagSet(name+" config", flag.ContinueOnError)
	flags.SetOutput(stderr)
	binary := flags.String("binary", "", "configure the built server at `path` instead of go run of this checkout")
	flags.Usage = func() {
		fmt.Fprintf(stderr, "Usage:\n\n\t%s config CLIENT [-binary PATH]\n\n"+
			"Prints the configuration that makes CLIENT start this server, with absolute paths.\n"+
			"CLIENT is one of: %s.\n\nThe flags are:\n\n", name, list)
		flags.PrintDefaults()
	}
	// The flag may come before CLIENT or after it.
	err := flags.Parse(args)
	client := flags.Arg(0)
	if err == nil && client != "" {
		err = flags.Parse(flags.Args()[1:])
	}
	where, known := clients[client]
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil
	case err != nil:
		return err
	case flags.NArg() > 0:
		flags.Usage()
		return fmt.Errorf("config: unexpected argument %q", flags.Arg(0))
	case client == "":
		flags.Usage()
		return errors.New("config: name a client: " + list)
	case !known:
		flags.Usage()
		return fmt.Errorf("config: unknown client %q; want one of %s", client, list)
	}

	l, err := serverLaunch(*binary)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := writeConfig(stdout, client, l); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "\n%s\nIf the server does not appear, see Troubleshooting in the README for its log.\n", where)
	if *binary == "" {
		fmt.Fprintf(stderr, "Hosts give a server about 60 s to start, and go run compiles first: after changing\n"+
			"the code, run it once yourself before the host restarts the server:\n\t%s -C %s run . -version\n",
			shellQuote(l.Command), shellQuote(l.Args[1]))
	}
	return nil
}

// writeConfig writes the configuration of client: JSON to paste, or for
// Claude Code the command to run.
func writeConfig(w io.Writer, client string, l launch) error {
	var config any
	switch client {
	case "claude-desktop", "cursor":
		config = map[string]any{"mcpServers": map[string]launch{serverKey: l}}
	case "vscode":
		type server struct {
			Type string `json:"type"`
			launch
		}
		config = map[string]any{"servers": map[string]server{serverKey: {"stdio", l}}}
	case "claude-code":
		cmd := "claude mcp add --scope user"
		for _, k := range slices.Sorted(maps.Keys(l.Env)) {
			cmd += " --env " + shellQuote(k+"="+l.Env[k])
		}
		for _, word := range append([]string{serverKey, "--", l.Command}, l.Args...) {
			cmd += " " + shellQuote(word)
		}
		_, err := fmt.Fprintln(w, cmd)
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // a path's & or < as it is
	enc.SetIndent("", "  ")
	return enc.Encode(config)
}

// serverLaunch returns how a host is to start the server: the built server
// at binary if given, else "GO -C DIR run ." with goSettings as they are now,
// where GO is the go command in PATH and DIR the module root of the working
// directory (under go run, this program is a temporary file).
func serverLaunch(binary string) (launch, error) {
	if binary != "" {
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
	const elsewhere = "run config in the " + modulePath + " checkout, or give a built server with -binary"
	if gomod == "" || gomod == os.DevNull {
		return launch{}, errors.New("the working directory is not in a Go module; " + elsewhere)
	}
	data, err := os.ReadFile(gomod)
	if err != nil {
		return launch{}, err
	}
	if got := modfile.ModulePath(data); got != modulePath {
		return launch{}, fmt.Errorf("%s declares module %q, not %q; %s", gomod, got, modulePath, elsewhere)
	}
	return launch{Command: goCmd, Args: []string{"-C", filepath.Dir(gomod), "run", "."}, Env: env}, nil
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
