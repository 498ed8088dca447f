package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"mcp-hello-tools/stdio"
)

// BenchmarkToolsCall measures one tools/call round trip, a calculate call,
// from a go-sdk client through the whole server and back, over OS pipes as
// on stdio: once with package stdio's connection at both ends, once with
// the SDK's own mcp.IOTransport. Compare the two with -benchmem:
//
//	go test -run XXX -bench ToolsCall -benchmem
func BenchmarkToolsCall(b *testing.B) {
	b.Run("stdio", func(b *testing.B) {
		benchmarkToolsCall(b, func(r io.ReadCloser, w io.WriteCloser) mcp.Transport {
			return &stdio.Transport{Reader: r, Writer: w}
		})
	})
	b.Run("sdk-io", func(b *testing.B) {
		benchmarkToolsCall(b, func(r io.ReadCloser, w io.WriteCloser) mcp.Transport {
			return &mcp.IOTransport{Reader: r, Writer: w}
		})
	})
}

func benchmarkToolsCall(b *testing.B, transport func(io.ReadCloser, io.WriteCloser) mcp.Transport) {
	toServer, fromClient, err := os.Pipe()
	require.NoError(b, err)
	toClient, fromServer, err := os.Pipe()
	require.NoError(b, err)

	server := newServer(fixedNow, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	served := make(chan error, 1)
	go func() { served <- server.Run(ctx, transport(toServer, fromServer)) }()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, transport(toClient, fromClient),
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(b, err)

	params := &mcp.CallToolParams{Name: "calculate", Arguments: map[string]any{"expression": "2 * (3 + 4.5) ^ 2"}}
	b.ReportAllocs()
	cpu, cpuOK := cpuTime()
	for b.Loop() {
		res, err := session.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatalf("CallTool(calculate) = %v, %v", res, err)
		}
	}
	b.StopTimer()
	if end, ok := cpuTime(); ok && cpuOK {
		b.ReportMetric(float64(end-cpu)/float64(b.N), "cpu-ns/op")
	}

	require.NoError(b, session.Close())
	_ = fromClient.Close() // the server's input ends (IOTransport has closed it already)
	if err := <-served; err != nil {
		b.Errorf("server.Run: %v", err)
	}
	for _, f := range []*os.File{toServer, toClient, fromServer} {
		_ = f.Close()
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
