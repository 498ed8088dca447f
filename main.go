// Command mcp-hello-tools is a Model Context Protocol (MCP) server with three
// small tools — echo, get_timestamp and calculate — written as a lesson in
// how an MCP server works.
//
// It speaks JSON-RPC 2.0 over stdio, one message per line, as the MCP
// specification's stdio transport describes: the client (Claude Desktop,
// VS Code, the MCP Inspector) starts the server as a child process, writes
// requests to its standard input and reads responses from its standard
// output. Standard output carries nothing but protocol messages; the startup
// banner and one log line per tool call go to standard error.
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
// (claude-desktop, vscode, claude-code or cursor) start this server, with
// the absolute paths of the go command and of this checkout filled in for
// "go -C DIR run .", or with -binary, of a built server (see config.go).
//
// The flags are:
//
//	-http address
//		Serve Streamable HTTP at http://address/mcp instead of stdio.
//		The address must be a loopback one, such as 127.0.0.1:8080, as
//		the server has no authentication. Port 0 picks a free port; the
//		startup line on standard error gives the URL.
//	-trace
//		Log every JSON-RPC message read and written to standard error,
//		one line each, to watch a client talk to the server.
//	-version
//		Print the version and exit.
//
// The server answers every line it reads, whatever arrives: a line that is
// not a JSON-RPC message gets an error reply, and the server reads on. It
// exits with status 0 when its standard input is closed, once the requests
// already read are answered (see package stdio), and promptly on SIGINT or
// SIGTERM. With -http it serves until SIGINT or SIGTERM, then lets requests
// in flight finish.
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
	"strings"
	"syscall"
	"time"

	"mcp-hello-tools/stdio"
	"mcp-hello-tools/tools"
)

// stopDeadline bounds how long the process takes to end after SIGINT or
// SIGTERM. Stopping takes milliseconds, or up to the HTTP server's 5 s of
// shutdown grace; but a peer that has stopped reading our stdout or stderr
// can block the writes that stopping waits for, and a signal must end the
// process all the same.
const stopDeadline = 10 * time.Second

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done() // a signal, or stop below once run has returned
		time.Sleep(stopDeadline)
		os.Exit(1) // run did not return in time: a signal asked us to stop
	}()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

// run parses the command line and serves MCP over stdio until standard input
// closes or ctx is cancelled; with -http, it serves Streamable HTTP until ctx
// is cancelled. With "config" as the first argument, it runs the config
// subcommand instead. stdout is written only by -version and config;
// while serving, the transport owns the process's standard output.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "config" {
		return runConfig(args[1:], stdout, stderr)
	}
	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	flags.SetOutput(stderr)
	showVersion := flags.Bool("version", false, "print the version and exit")
	trace := flags.Bool("trace", false, "log every JSON-RPC message read and written to stderr")
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
	if flags.NArg() > 0 {
		flags.Usage()
		return fmt.Errorf("unexpected argument %q", flags.Arg(0))
	}
	if *showVersion {
		_, err := fmt.Fprintln(stdout, name, version)
		return err
	}

	logger := slog.New(slog.NewTextHandler(stderr, nil))
	server := newServer(time.Now, logger)
	if *httpAddr != "" {
		if *trace {
			return errors.New("-trace shows the stdio transport's messages; it does not work with -http")
		}
		if err := serveHTTP(ctx, *httpAddr, server, logger); err != nil {
			return err
		}
		logger.Info("stopped", "reason", "signal")
		return nil
	}
	logger.Info("serving", "server", name, "version", version, "transport", "stdio",
		"tools", strings.Join(tools.Names(), ", "))
	transport := &stdio.Transport{Logger: logger}
	if *trace {
		transport.Trace = stderr
	}
	// Run returns when the client closes our stdin, or when ctx is cancelled
	// by a signal: both are a normal end of the session.
	if err := server.Run(ctx, transport); err != nil && !errors.Is(err, io.EOF) && ctx.Err() == nil {
		return err
	}
	reason := "end of input"
	if ctx.Err() != nil {
		reason = "signal"
	}
	logger.Info("stopped", "reason", reason)
	return nil
}
