package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lookupTimeout is lookup's own deadline: shorter than any host's wait for
// a call (Codex's, 60 s, is the shortest), so that the model reads why the
// call failed, not the host's "timed out".
var lookupTimeout = 50 * time.Second

type lookupInput struct {
	Query string `json:"query" jsonschema:"what to look up"`
}

type lookupOutput struct {
	Answer string `json:"answer" jsonschema:"the service's answer, as text"`
}

var lookupTool = &mcp.Tool{
	Name:        "lookup",
	Description: "Looks a query up in the service at MY_SERVER_API_URL; it may take a while.",
	// It reads, and reaches a service beyond this machine.
	Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(true)},
}

// lookup asks the service, and reads its answer a piece at a time, sending
// progress after each when the call asked for it. ctx ends when the host
// cancels the call (notifications/cancelled) or the session ends: the
// request to the service is then cut too.
func lookup(ctx context.Context, req *mcp.CallToolRequest, in lookupInput) (*mcp.CallToolResult, lookupOutput, error) {
	service, key := os.Getenv("MY_SERVER_API_URL"), os.Getenv("MY_SERVER_API_KEY")
	if service == "" || key == "" {
		return nil, lookupOutput{}, errors.New("MY_SERVER_API_URL and MY_SERVER_API_KEY must be set in the host's configuration")
	}
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	ask, err := http.NewRequestWithContext(ctx, http.MethodGet, service+"?q="+url.QueryEscape(in.Query), nil)
	if err != nil {
		return nil, lookupOutput{}, fmt.Errorf("MY_SERVER_API_URL is not a URL: %w", err)
	}
	ask.Header.Set("Authorization", "Bearer "+key) // in a header: never in the URL, which errors quote
	res, err := http.DefaultClient.Do(ask)
	if err != nil {
		return nil, lookupOutput{}, failed(ctx, err)
	}
	// A body read to its end, or cut: its Close has nothing to report.
	defer func() { _ = res.Body.Close() }()
	if res.StatusCode != http.StatusOK { // say what was wrong, never the key
		return nil, lookupOutput{}, fmt.Errorf("the service answered %s: check MY_SERVER_API_KEY", res.Status)
	}
	var answer strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := res.Body.Read(buf)
		answer.Write(buf[:n])
		if n > 0 && req.Params.GetProgressToken() != nil {
			// Total is 0 (unknown) when the service sends no Content-Length.
			err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(),
				Progress: float64(answer.Len()), Total: float64(max(res.ContentLength, 0)), Message: "reading the answer"})
			if err != nil {
				return nil, lookupOutput{}, failed(ctx, err)
			}
		}
		if errors.Is(err, io.EOF) {
			return nil, lookupOutput{Answer: answer.String()}, nil
		}
		if err != nil {
			return nil, lookupOutput{}, failed(ctx, err)
		}
	}
}

// failed says why a call ended early: the host's cancellation, lookup's own
// deadline, or the service.
func failed(ctx context.Context, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("the service did not answer within %v; try again later", lookupTimeout)
	case ctx.Err() != nil:
		return ctx.Err() // cancelled: the host no longer waits for a result
	}
	return fmt.Errorf("the service could not be reached: %w", err)
}

func ptr[T any](v T) *T { return &v }
