package main

import (
	"context"
	"errors"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// goSDKModes are the go-sdk client's: ClientSessionOptions.ProtocolVersion
// unset (the latest, 2026-07-28, with server/discover), or set.
var goSDKModes = []mode{
	{"default", "2026-07-28", connectGoSDK("")},
	{"2026-07-28", "2026-07-28", connectGoSDK("2026-07-28")},
	{"2025-11-25", "2025-11-25", connectGoSDK("2025-11-25")},
	{"2025-06-18", "2025-06-18", connectGoSDK("2025-06-18")},
}

// connectGoSDK returns a mode's connect: a go-sdk Client connected over a
// CommandTransport or a StreamableClientTransport, asking for version.
func connectGoSDK(version string) func(context.Context, *target) (client, error) {
	return func(ctx context.Context, t *target) (client, error) {
		c := &goSDKClient{}
		var transport mcp.Transport
		if t.http {
			transport = &mcp.StreamableClientTransport{Endpoint: t.where}
		} else {
			c.process = t.command()
			transport = &mcp.CommandTransport{Command: c.process.cmd}
		}
		var opts *mcp.ClientSessionOptions
		if version != "" {
			opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "interop-go-sdk", Version: "0.0.1"}, nil)
		var err error
		if c.session, err = client.Connect(ctx, transport, opts); err != nil {
			return nil, err
		}
		return c, nil
	}
}

type goSDKClient struct {
	session *mcp.ClientSession
	process *serverProcess
}

func (c *goSDKClient) negotiated() (string, string, []string) {
	res := c.session.InitializeResult()
	var name string
	if res.ServerInfo != nil {
		name = res.ServerInfo.Name
	}
	return res.ProtocolVersion, name, capabilityNames(res.Capabilities)
}

func (c *goSDKClient) listTools(ctx context.Context) ([]tool, error) {
	res, err := c.session.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	var tools []tool
	return tools, viaJSON(res.Tools, &tools)
}

func (c *goSDKClient) callTool(ctx context.Context, name string, args map[string]any) (result, error) {
	var r result
	res, err := c.session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return r, err
	}
	return r, viaJSON(res, &r)
}

func (c *goSDKClient) invalidParams(err error) bool {
	var rpcErr *jsonrpc.Error
	return errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeInvalidParams
}

func (c *goSDKClient) validator() string {
	return "github.com/google/jsonschema-go, the go-sdk's"
}

// compile resolves schema as the go-sdk resolves its tools' schemas.
func (c *goSDKClient) compile(schema map[string]any) (func(any) bool, error) {
	var s jsonschema.Schema
	if err := viaJSON(schema, &s); err != nil {
		return nil, err
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, err
	}
	return func(v any) bool { return resolved.Validate(v) == nil }, nil
}

func (c *goSDKClient) close() error { return c.session.Close() }

func (c *goSDKClient) server() *serverProcess { return c.process }
