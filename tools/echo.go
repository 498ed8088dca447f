package tools

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxEchoLength is the longest message echo sends back, in characters
// (Unicode code points, Go's runes; not bytes, not UTF-16 units): a million.
// That bounds what a reply costs: its text is at most 4 MB of UTF-8, and
// at most 6 MB once written as a JSON string. A longer message is a tool
// error, whose text gives the limit and the message's length.
const MaxEchoLength = 1_000_000

// EchoInput is the arguments object of the echo tool.
//
// JSON strings hold Unicode text, not bytes: the decoder has already
// replaced any invalid UTF-8 in the request, and any \ud800-style escape of
// half a surrogate pair, with U+FFFD, and echo sends back what it got.
type EchoInput struct {
	Message string `json:"message" jsonschema:"The text to send back, at most 1000000 characters. It comes back character for character, as the server received it: JSON strings hold Unicode text, so bytes that are not valid UTF-8 arrive, and come back, as U+FFFD (the replacement character)."`
}

func addEcho(s *mcp.Server) {
	tool := &mcp.Tool{
		Name:        "echo",
		Title:       "Echo",
		Description: "Returns the given message unchanged, as a single text content block. Useful to check that the server is connected. Argument: message (string, required), at most 1000000 characters; a longer message is an error.",
		Annotations: readOnly(),
	}
	mcp.AddTool(s, tool, echo)
}

// echo answers with one text block holding the message. Its output type is
// any, so the tool has no outputSchema and no structuredContent. A message
// longer than MaxEchoLength is an error, which the SDK turns into a result
// with isError set; the error does not quote the message.
func echo(_ context.Context, _ *mcp.CallToolRequest, in EchoInput) (*mcp.CallToolResult, any, error) {
	// A string has no more characters than bytes, so most messages are
	// never counted.
	if len(in.Message) > MaxEchoLength {
		if n := utf8.RuneCountInString(in.Message); n > MaxEchoLength {
			return nil, nil, fmt.Errorf("message is %d characters long; echo sends back at most %d", n, MaxEchoLength)
		}
	}
	return &mcp.CallToolResult{
		Content: []mcp.Content{&mcp.TextContent{Text: in.Message}},
	}, nil, nil
}
