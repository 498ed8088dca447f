// Command goclients checks mcp-hello-tools with the two Go MCP client
// libraries, each used as its own examples use it: the go-sdk's client
// (github.com/modelcontextprotocol/go-sdk/mcp, with CommandTransport and
// StreamableClientTransport) and mcp-go's (github.com/mark3labs/mcp-go/client,
// with its stdio and Streamable HTTP transports). It is a module of its own,
// so the server's go.mod keeps the server's dependencies alone.
//
// Usage:
//
//	goclients [-calls FILE] [-offers FILE] CLIENT MODE BINARY|URL
//
// CLIENT is go-sdk or mcp-go, and MODE one of the ways the client
// negotiates a protocol version:
//
//	go-sdk  default     no ClientSessionOptions: server/discover at 2026-07-28
//	go-sdk  2026-07-28  ClientSessionOptions{ProtocolVersion: "2026-07-28"}
//	go-sdk  2025-11-25  ClientSessionOptions{ProtocolVersion: "2025-11-25"}: initialize
//	go-sdk  2025-06-18  ClientSessionOptions{ProtocolVersion: "2025-06-18"}: initialize
//	mcp-go  default     no option: a server/discover probe, falling back to initialize
//	mcp-go  2026-07-28  WithProtocolVersion("2026-07-28")
//	mcp-go  legacy      WithLegacyProtocolOnly(): initialize at 2025-11-25
//	mcp-go  2025-11-25  WithProtocolVersion("2025-11-25"): initialize
//
// A BINARY is started over stdio, with a go-sdk or mcp-go client for each
// check that needs its own; a URL is a Streamable HTTP endpoint. -calls
// names interop/calls.json, the calls to make and what they must return;
// -offers, what the server offers, as node interop/offers.mjs prints it
// (by default the file INTEROP_OFFERS names, as interop/run sets it).
//
// It prints one line per check, "PASS what" or "FAIL what: why", and exits
// with status 1 if any check failed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// libraries maps each CLIENT to its modes, in the order of the usage.
var libraries = map[string][]mode{
	"go-sdk": goSDKModes,
	"mcp-go": mcpGoModes,
}

// A mode is one way a client library connects: connect opens a client on
// the server (a binary over stdio, or a URL) as that mode does, and version
// is the protocol version it must negotiate.
type mode struct {
	name    string
	version string
	connect func(ctx context.Context, target *target) (client, error)
}

// timeout bounds the whole run, and so every request in it.
const timeout = 2 * time.Minute

func main() {
	callsFile := flag.String("calls", "interop/calls.json", "the calls to make and what they must return")
	offersFile := flag.String("offers", os.Getenv("INTEROP_OFFERS"), "the server's capabilities and tools, as node interop/offers.mjs prints them")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: goclients [-calls FILE] [-offers FILE] go-sdk|mcp-go MODE BINARY|URL")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 3 {
		flag.Usage()
		os.Exit(2)
	}
	library, modeName, where := flag.Arg(0), flag.Arg(1), flag.Arg(2)
	modes, ok := libraries[library]
	i := slices.IndexFunc(modes, func(m mode) bool { return m.name == modeName })
	if !ok || i < 0 {
		flag.Usage()
		os.Exit(2)
	}
	if *offersFile == "" {
		fmt.Fprintln(os.Stderr, "goclients: no -offers file, and INTEROP_OFFERS names none: interop/run sets it; by hand, run node interop/offers.mjs BINARY > FILE first")
		os.Exit(2)
	}
	var calls calls
	var offers offers
	if err := errors.Join(readJSON(*callsFile, &calls), readJSON(*offersFile, &offers)); err != nil {
		fmt.Fprintln(os.Stderr, "goclients:", err)
		os.Exit(2)
	}

	t := &target{where: where, http: strings.HasPrefix(where, "http://") || strings.HasPrefix(where, "https://")}
	transport := "stdio"
	if t.http {
		transport = "http"
	}
	c := &checker{label: library + " " + modeName + " " + transport}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	run(ctx, c, modes[i], t, &calls, &offers, modeName == modes[0].name)
	if library == "mcp-go" && !t.http && modeName == "default" {
		checkMCPGoStderrPipe(ctx, c, t)
	}
	if c.failed {
		os.Exit(1)
	}
}
