package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"mcp-hello-tools/internal/protocol"
	"mcp-hello-tools/internal/stdio"
)

// benchTransports are the two ways to serve stdio the benchmarks compare:
// internal/stdio, and the SDK's own transport, mcp.IOTransport (which
// mcp.StdioTransport is, over os.Stdin and os.Stdout).
var benchTransports = []struct {
	name  string
	serve func(context.Context, *mcp.Server, io.ReadCloser, io.WriteCloser) error
}{
	{"stdio", func(ctx context.Context, s *mcp.Server, r io.ReadCloser, w io.WriteCloser) error {
		return stdio.Serve(ctx, s, stdio.Options{In: r, Out: w, Methods: protocol.Served(capabilities)})
	}},
	{"sdk-io", func(ctx context.Context, s *mcp.Server, r io.ReadCloser, w io.WriteCloser) error {
		return s.Run(ctx, &mcp.IOTransport{Reader: r, Writer: w})
	}},
}

// BenchmarkToolsCall measures one tools/call round trip, a calculate call,
// from a go-sdk client through the whole server and back, over OS pipes as
// on stdio: once with package stdio's connection at both ends, once with
// the SDK's own mcp.IOTransport. Compare the two with -benchmem:
//
//	go test -run XXX -bench ToolsCall -benchmem
func BenchmarkToolsCall(b *testing.B) {
	for _, transport := range benchTransports {
		b.Run(transport.name, func(b *testing.B) {
			toClient, fromClient := serveOverPipes(b, transport.serve)
			session, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil).
				Connect(context.Background(), &mcp.IOTransport{Reader: toClient, Writer: fromClient},
					&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			require.NoError(b, err)
			defer func() { require.NoError(b, session.Close()) }()

			params := &mcp.CallToolParams{Name: "calculate", Arguments: map[string]any{"expression": "2 * (3 + 4.5) ^ 2"}}
			measure(b, func() {
				res, err := session.CallTool(context.Background(), params)
				if err != nil || res.IsError {
					b.Fatalf("CallTool(calculate) = %v, %v", res, err)
				}
			})
		})
	}
}

// cpuTime returns the CPU time, user and system, that the process has used
// so far, from /proc/self/stat; ok is false on systems without /proc.
// Unlike ns/op, the time of one round trip, it counts the work of every
// goroutine on all cores (the garbage collector's too), and not the waits
// between them, nor the time other processes hold the cores.
func cpuTime() (d time.Duration, ok bool) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	// The command name, field 2, is in parentheses and may hold spaces;
	// utime and stime are fields 14 and 15, in clock ticks of 1/100 s.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}

// BenchmarkToolsCallServer measures the server's side of a tools/call
// round trip alone: the client is a few lines of code that write the
// request line and read the reply line, the same for both transports, so
// the difference between stdio and sdk-io is the server's cost per call.
//
//	go test -run XXX -bench ToolsCallServer -benchmem
//
// On 2026-12-01 (2 shared cores, noisy; medians of -count 4), per call:
//
//	                     ns/op     cpu-ns/op   B/op      allocs/op
//	ToolsCall/stdio        431,000   568,000   274,700   289
//	ToolsCall/sdk-io       399,000   521,000   373,500   298    → the client's cost hides the server's
//	ToolsCallServer/stdio  175,000   229,000   140,600   237
//	ToolsCallServer/sdk-io 236,000   313,000   239,400   247    → 0.74× time, 0.73× CPU, 0.59× memory
//
// Of what the server allocates per call over package stdio, 93% is the
// 32 KiB buffers of the JSON decoders inside go-sdk's own handling of the
// request (reading its _meta and params, validating the arguments against
// the inputSchema, decoding them), which a server built on go-sdk cannot
// avoid; package stdio reads the request line without one.
func BenchmarkToolsCallServer(b *testing.B) {
	for _, transport := range benchTransports {
		b.Run(transport.name, func(b *testing.B) {
			toClient, fromClient := serveOverPipes(b, transport.serve)
			replies := bufio.NewReader(toClient)
			roundTrip := func(line string) []byte {
				_, err := io.WriteString(fromClient, line+"\n")
				require.NoError(b, err)
				if !strings.Contains(line, `"id"`) {
					return nil // a notification gets no reply
				}
				reply, err := replies.ReadSlice('\n')
				require.NoError(b, err)
				return reply
			}
			roundTrip(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}`)
			roundTrip(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"calculate","arguments":{"expression":"2 * (3 + 4.5) ^ 2"}}}`
			measure(b, func() {
				if reply := roundTrip(call); !bytes.Contains(reply, []byte(`"result":"112.5"`)) {
					b.Fatalf("tools/call calculate: %s", reply)
				}
			})
		})
	}
}

// serveOverPipes serves a new server over a pair of OS pipes with serve,
// and returns the client's ends. When the benchmark ends, the client's
// output closes, ending the server's input, and the server must stop
// cleanly.
func serveOverPipes(b *testing.B, serve func(context.Context, *mcp.Server, io.ReadCloser, io.WriteCloser) error) (toClient io.ReadCloser, fromClient io.WriteCloser) {
	toServer, fromClientFile, err := os.Pipe()
	require.NoError(b, err)
	toClientFile, fromServer, err := os.Pipe()
	require.NoError(b, err)
	server := newServer(fixedNow, slog.New(slog.DiscardHandler))
	served := make(chan error, 1)
	go func() { served <- serve(context.Background(), server, toServer, fromServer) }()
	b.Cleanup(func() {
		_ = fromClientFile.Close() // the server's input ends (it may be closed already)
		if err := <-served; err != nil && !errors.Is(err, io.EOF) {
			b.Errorf("serving: %v", err)
		}
		for _, f := range []*os.File{toServer, toClientFile, fromServer} {
			_ = f.Close()
		}
	})
	return toClientFile, fromClientFile
}

// measure runs roundTrip b.N times, reporting allocations and, where the
// system tells, the CPU time of the whole process per round trip.
func measure(b *testing.B, roundTrip func()) {
	b.ReportAllocs()
	cpu, cpuOK := cpuTime()
	for b.Loop() {
		roundTrip()
	}
	b.StopTimer()
	if end, ok := cpuTime(); ok && cpuOK {
		b.ReportMetric(float64(end-cpu)/float64(b.N), "cpu-ns/op")
	}
}
