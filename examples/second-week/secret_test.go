package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMain runs this test binary as the server itself when the tests
// below start it so, as go-sdk's own tests do: no build, no toolchain.
func TestMain(m *testing.M) {
	if os.Getenv("MY_SERVER_RUN_AS_SERVER") != "" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestKeyNotInStderr starts the server as a host does, a process with the
// key in its environment and every message traced on stderr, calls lookup
// with a key the service takes and with one it refuses, and finds the key
// nowhere in what the server wrote to stderr.
func TestKeyNotInStderr(t *testing.T) {
	const good = "sk-test-5f3a9c1e7b"
	service := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+good {
			http.Error(w, "no such key", http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, "an answer")
	}))
	defer service.Close()
	for _, key := range []string{good, "sk-test-refused-0d41"} {
		ctx, stop := context.WithTimeout(t.Context(), 20*time.Second)
		defer stop()
		var stderr bytes.Buffer
		server := exec.Command(os.Args[0])
		server.Env = append(os.Environ(), "MY_SERVER_RUN_AS_SERVER=1", "MY_SERVER_TRACE=1",
			"MY_SERVER_API_URL="+service.URL, "MY_SERVER_API_KEY="+key)
		server.Stderr = &stderr
		session, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0.1.0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: server}, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "lookup", Arguments: map[string]any{"query": "q"}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError != (key != good) {
			t.Errorf("lookup with key %s: IsError %v", key, res.IsError)
		}
		if err := session.Close(); err != nil { // ends its input; waits for it to exit
			t.Error(err)
		}
		if !strings.Contains(stderr.String(), `"method":"tools/call"`) {
			t.Errorf("MY_SERVER_TRACE=1: no tools/call in stderr:\n%s", stderr.String())
		}
		if strings.Contains(stderr.String(), key) {
			t.Errorf("the key %s is in stderr:\n%s", key, stderr.String())
		}
	}
}
