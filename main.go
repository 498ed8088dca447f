// Command mcp-hello-tools is a Model Context Protocol (MCP) server, over stdio
// or Streamable HTTP, with a few small tools (package tools), written as a
// lesson in how an MCP server is built in Go. It is the lesson's second,
// hardened step: examples/hello serves the same tools with go-sdk alone, and
// this command through internal/stdio and internal/streamable, which keep
// the session alive where go-sdk v1.8.0 would end it (the README's tour).
//
// Usage:
//
//	mcp-hello-tools [-trace] [-http ADDRESS] [-version]
//	mcp-hello-tools config HOST [-binary PATH | -url URL] [-name KEY]
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
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"mcp-hello-tools/internal/logwriter"
	"mcp-hello-tools/internal/protocol"
	"mcp-hello-tools/internal/stdio"
)

func main() {
	err := run(stopOnSignal(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}

// stopOnSignal returns a context that SIGINT or SIGTERM cancels: serving
// stops, letting requests in flight finish. A second signal ends the
// process at once, as signals do by default: one that came before the
// first was let go is raised again.
func stopOnSignal() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-signals
		signal.Stop(signals)
		cancel()
		select {
		case sig := <-signals:
			if p, err := os.FindProcess(os.Getpid()); err != nil || p.Signal(sig) != nil {
				os.Exit(1) // on Windows, where a process cannot signal itself
			}
		default:
		}
	}()
	return ctx
}

// run runs the command with args, serving until ctx is cancelled or, on
// stdio, stdin ends. While serving, stdout carries protocol messages only.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	for _, arg := range args { // the flag package quotes an argument it refuses as it is
		if err := printable(arg); err != nil {
			return fmt.Errorf("the argument %w", err)
		}
	}
	if len(args) > 0 && args[0] == "config" {
		return runConfig(args[1:], stdout, stderr)
	}
	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	flags.SetOutput(stderr)
	showVersion := flags.Bool("version", false, "print the version and exit")
	trace := flags.Bool("trace", false, "log every JSON-RPC message read and written on stdio to stderr")
	httpAddr := flags.String("http", "", "serve Streamable HTTP at http://`address`/mcp instead of stdio (loopback only, such as 127.0.0.1:8080)")
	flags.Usage = func() {
		fmt.Fprintf(stderr, "Usage:\n\n\t%s [flags]\n\t%[1]s config HOST [-binary PATH | -url URL] [-name KEY]\n\n"+
			"Serves the MCP tools over stdio, or over Streamable HTTP with -http.\n\nThe flags are:\n\n", name)
		flags.PrintDefaults()
	}
	help, err := parse(flags, args)
	switch {
	case help:
		return nil
	case err != nil:
		return err
	case *showVersion:
		_, err := fmt.Fprintln(stdout, name, version)
		return err
	case *trace && *httpAddr != "":
		return errors.New("-trace shows the stdio transport's messages; it does not work with -http")
	}

	// What serving changes about the process: a client may close our
	// stderr or stdout early, and a write then fails with EPIPE instead of
	// killing the process with SIGPIPE; and memory is bounded (limits.go).
	signal.Ignore(syscall.SIGPIPE)
	limitMemory()
	logs := logwriter.New(stderr)
	defer logs.Flush(time.Second)
	logger := newLogger(logs)
	server := newHardenedServer(time.Now, logger)
	if *httpAddr != "" {
		err = serveHTTP(ctx, *httpAddr, server, logger)
	} else {
		logger.Info("serving", "server", name, "version", version, "transport", "stdio")
		opts := stdio.Options{In: stdin, Out: stdout, Logger: logger, Methods: protocol.Served(capabilities)}
		if *trace {
			opts.Trace = logs
		}
		// As server.Run(ctx, &mcp.StdioTransport{}) does, but a client's
		// mistakes do not end the session: see internal/stdio.
		err = stdio.Serve(ctx, server, opts)
	}
	if err != nil {
		return err
	}
	reason := "end of input"
	if ctx.Err() != nil {
		reason = "signal"
	}
	logger.Info("stopped", "reason", reason)
	return nil
}

// printable returns an error, quoting s inert, if s is not UTF-8 (a host
// reads its configuration as UTF-8, and would look for another path) or
// holds a character a terminal acts on rather than shows: C0 and C1
// controls, such as ESC, bidirectional overrides, such as U+202E, and the
// line and paragraph separators. Spaces of every kind are shown as they
// are (U+00A0, and U+202F, which macOS puts in a screenshot's name).
func printable(s string) error {
	switch {
	case !utf8.ValidString(s):
		return fmt.Errorf("%s is not UTF-8, as a host's configuration must be", quote(s))
	case strings.IndexFunc(s, func(r rune) bool { return !unicode.IsGraphic(r) }) >= 0:
		return fmt.Errorf("%s holds a control or formatting character, which a terminal would act on", quote(s))
	}
	return nil
}

// parse parses args into flags and into the operands given, in order: the
// arguments that are not flags, which the flags may come before, between or
// after. An operand with no argument for it is left as it is; an argument
// past the operands is refused, quoted inert, after the usage. help reports
// -h or -help: the flag package has printed the usage, and the command is
// done.
func parse(flags *flag.FlagSet, args []string, operands ...*string) (help bool, err error) {
	for {
		err = flags.Parse(args)
		switch {
		case errors.Is(err, flag.ErrHelp):
			return true, nil
		case err != nil:
			return false, err
		case flags.NArg() == 0:
			return false, nil
		case len(operands) == 0:
			flags.Usage()
			return false, fmt.Errorf("unexpected argument %s", quote(flags.Arg(0)))
		}
		*operands[0] = flags.Arg(0)
		operands, args = operands[1:], flags.Args()[1:]
	}
}

// newLogger returns the server's logger, writing text lines to w; each
// string a line carries is cut to protocol.MaxQuote bytes (a panic's stack
// excepted), since a client may send megabytes of a tool's name.
func newLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{ReplaceAttr: protocol.CutLogValue}))
}

// newHardenedServer is newServer with the server's error policy
// (internal/protocol) as the outermost receiving middleware: it recovers
// panics, where go-sdk v1.8.0 lets one end the process, and gives every
// error a code from the specification, not code 0 (go-sdk#976).
func newHardenedServer(now func() time.Time, logger *slog.Logger) *mcp.Server {
	server := newServer(now, logger)
	server.AddReceivingMiddleware(protocol.Middleware(logger))
	return server
}
