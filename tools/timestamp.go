package tools

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TimestampInput is the arguments object of the get_timestamp tool.
type TimestampInput struct {
	Format   string `json:"format,omitempty" jsonschema:"iso8601, unix or human. Default iso8601."`
	Timezone string `json:"timezone,omitempty" jsonschema:"An IANA time zone name such as Europe/Paris. Default UTC."`
}

// TimestampOutput is the structuredContent of a get_timestamp result.
type TimestampOutput struct {
	Timestamp string `json:"timestamp"`
}

func addTimestamp(s *mcp.Server, now func() time.Time) {
	tool := &mcp.Tool{
		Name:        "get_timestamp",
		Title:       "Current time",
		Description: "Returns the current time.",
		Annotations: readOnly(),
	}
	mcp.AddTool(s, tool, func(_ context.Context, _ *mcp.CallToolRequest, _ TimestampInput) (*mcp.CallToolResult, TimestampOutput, error) {
		return nil, TimestampOutput{Timestamp: now().UTC().Format(time.RFC3339)}, nil
	})
}
