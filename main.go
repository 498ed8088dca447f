// Command mcp-hello-tools is a Model Context Protocol (MCP) server with three
// small tools — echo, get_timestamp and calculate — written as a lesson in
// how an MCP server works.
//
// It speaks JSON-RPC 2.0 over stdio, one message per line, as the MCP
// specification's stdio transport describes: the client (Claude Desktop,
// VS Code, Claude Code, the MCP Inspector) starts the server as a child
// process, writes requests to its standard input and reads responses from
// its standard output. Standard output carries nothing but protocol
// messages; the startup line and one log line per tool call go to standard
// error.
//
// With -http it serves the same tools over the Streamable HTTP transport
// instead, at http://ADDRESS/mcp, for clients that connect to a running
// server rather than start one (see http.go).
//
// Usage:
//
//	mcp-hello-tools [flags]
//	mcp-hello-tools config CLIENT [-binary PATH]
//
// The config subcommand prints the configuration that makes CLIENT
// (claude-desktop, vscode, claude-code or cursor) start this server (see
// config.go).
//
// The flags are:
//
//	-http address
//		Serve Streamable HTTP at http://address/mcp instead of stdio.
//		The address must be a loopback one, such as 127.0.0.1:8080, as
//		the server has no authentication. Port 0 picks a free port; the
//		startup line on standard error gives the URL.
//	-trace
//		Log every JSON-RPC message read and written on stdio to standard
//		error, one line each, to watch a client talk to the server.
//	-version
//		Print the version and exit.
//
// Over stdio the server answers every line it reads, whatever arrives, and
// exits with status 0 when its standard input ends, once the requests read
// are answered, or promptly on SIGINT or SIGTERM. With -http it serves
// until SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"mcp-hello-tools/internal/protocol"
	"mcp-hello-tools/internal/stderr"
	"mcp-hello-tools/internal/stdio"
	"mcp-hello-tools/tools"
)

// tuneGC sets the garbage collector for what go-sdk allocates, unless
// GOGC or GOMEMLIMIT say otherwise. A tools/call allocates about 170 KB,
// nearly all of it go-sdk's 32 KiB JSON decoder buffers, which die at once,
// while the server keeps 3 MB or so alive: at the default GOGC of 100 the
// collector runs every 25 calls. At 130 it runs a quarter less often, for
// a megabyte of memory. A request of 8 MiB, which go-sdk copies many times
// over, makes hundreds of MiB of garbage: past 128 MiB, the collector
// works harder, to keep the process near what it holds.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(130)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(128 << 20)
	}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

// run parses the command line and serves MCP over stdio until stdin ends
// or ctx is cancelled; with -http, over Streamable HTTP until ctx is
// cancelled. With "config" first, it runs the config subcommand instead.
// stdout is written only by -version and config: while serving, it carries
// protocol messages only.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderrOut io.Writer) error {
	if len(args) > 0 && args[0] == "config" {
		return runConfig(args[1:], stdout, stderrOut)
	}
	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	flags.SetOutput(stderrOut)
	showVersion := flags.Bool("version", false, "print the version and exit")
	trace := flags.Bool("trace", false, "log every JSON-RPC message read and written on stdio to stderr")
	httpAddr := flags.String("http", "", "serve Streamable HTTP at http://`address`/mcp instead of stdio (loopback only, such as 127.0.0.1:8080)")
	flags.Usage = func() {
		fmt.Fprintf(flags.Output(), "Usage:\n\n\t%s [flags]\n\t%[1]s config CLIENT [-binary PATH]\n\n"+
			"Serves the MCP tools echo, get_timestamp and calculate over stdio,\n"+
			"or over Streamable HTTP with -http.\n\nThe flags are:\n\n", name)
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	switch {
	case flags.NArg() > 0:
		flags.Usage()
		return fmt.Errorf("unexpected argument %q", flags.Arg(0))
	case *showVersion:
		_, err := fmt.Fprintln(stdout, name, version)
		return err
	case *trace && *httpAddr != "":
		return errors.New("-trace shows the stdio transport's messages; it does not work with -http")
	}

	// A client may close our stderr or stdout early: a write then fails
	// with EPIPE instead of killing the process with SIGPIPE.
	signal.Ignore(syscall.SIGPIPE)
	tuneGC()
	logs := stderr.NewLogWriter(stderrOut)
	defer logs.Flush(time.Second)
	logger := slog.New(slog.NewTextHandler(logs, nil))
	server := newServer(time.Now, logger)
	if *httpAddr != "" {
		if err := serveHTTP(ctx, *httpAddr, server, logger); err != nil {
			return err
		}
		logger.Info("stopped", "reason", "signal")
		return nil
	}

	logger.Info("serving", "server", name, "version", version, "transport", "stdio",
		"tools", strings.Join(tools.Names(), ", "))
	opts := stdio.Options{In: stdin, Out: stdout, Logger: logger, Methods: protocol.Served(capabilities)}
	if *trace {
		opts.Trace = logs
	}
	// As server.Run(ctx, &mcp.StdioTransport{}) does, but a client's
	// mistakes do not end the session: see internal/stdio.
	if err := stdio.Serve(ctx, server, opts); err != nil {
		return err
	}
	reason := "end of input"
	if ctx.Err() != nil {
		reason = "signal"
	}
	logger.Info("stopped", "reason", reason)
	return nil
}
