package tools

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxEchoLength is the longest message echo sends back, in characters
// (Unicode code points, not bytes or UTF-16 units). It bounds a reply's
// text to 4 MB of UTF-8, 6 MB once written as a JSON string.
const MaxEchoLength = 1_000_000

// echoInput is the arguments object of the echo tool. Message is Unicode
// text: the JSON decoder has replaced invalid UTF-8, and \ud800, with U+FFFD.
type echoInput struct {
	Message string `json:"message" jsonschema:"The text to send back. It comes back character for character, as the server received it: JSON strings hold Unicode text, so bytes that are not valid UTF-8 arrive, and come back, as U+FFFD (the replacement character)."`
}

func addEcho(s *mcp.Server) *mcp.Tool {
	t := &mcp.Tool{
		Name:  "echo",
		Title: "Echo",
		Description: fmt.Sprintf("Returns the given message unchanged, as a single text content block. Useful to check that the server "+
			"is connected. Argument: message (string, required), at most %d characters; a longer message is an error.", MaxEchoLength),
		Annotations: readOnly(),
	}
	mcp.AddTool(s, t, echo)
	return t
}

// echo answers with one text block; its output type is any, so there is no
// outputSchema or structuredContent. Past MaxEchoLength, the error (a result
// with isError set) gives the message's length, not its text.
func echo(_ context.Context, _ *mcp.CallToolRequest, in echoInput) (*mcp.CallToolResult, any, error) {
	// No string has more characters than bytes: most are never counted.
	if len(in.Message) > MaxEchoLength {
		if n := utf8.RuneCountInString(in.Message); n > MaxEchoLength {
			return nil, nil, fmt.Errorf("message is %d characters long; echo sends back at most %d", n, MaxEchoLength)
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Message}}}, nil, nil
}
