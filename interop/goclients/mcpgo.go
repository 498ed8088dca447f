package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"

	mcpclient "github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// mcpGoModes are mcp-go's: no option (a server/discover probe that falls
// back to initialize), a pinned version, or the handshake only.
var mcpGoModes = []mode{
	{"default", "2026-07-28", connectMCPGo()},
	{"2026-07-28", "2026-07-28", connectMCPGo(mcpclient.WithProtocolVersion("2026-07-28"))},
	{"legacy", "2025-11-25", connectMCPGo(mcpclient.WithLegacyProtocolOnly())},
	{"2025-11-25", "2025-11-25", connectMCPGo(mcpclient.WithProtocolVersion("2025-11-25"))},
}

// connectMCPGo returns a mode's connect: an mcp-go Client with opts, over
// its stdio transport or its Streamable HTTP transport.
//
// Over stdio the server's stderr goes to a buffer of the check's own,
// through WithCommandFunc: mcp-go's Close closes the stderr pipe it would
// otherwise read before it waits for the server, so the server's last log
// line would be lost (checkMCPGoStderrPipe shows it).
func connectMCPGo(opts ...mcpclient.ClientOption) func(context.Context, *target) (client, error) {
	return func(ctx context.Context, t *target) (client, error) {
		c := &mcpGoClient{}
		var tr transport.Interface
		if t.http {
			h, err := transport.NewStreamableHTTP(t.where)
			if err != nil {
				return nil, err
			}
			tr = h
		} else {
			c.process = t.command()
			tr = transport.NewStdioWithOptions(t.where, nil, nil,
				transport.WithCommandFunc(func(context.Context, string, []string, []string) (*exec.Cmd, error) {
					return c.process.cmd, nil
				}))
		}
		c.client = mcpclient.NewClient(tr, opts...)
		if err := c.start(ctx); err != nil {
			_ = c.client.Close()
			return nil, err
		}
		return c, nil
	}
}

type mcpGoClient struct {
	client  *mcpclient.Client
	process *serverProcess
	result  *mcp.InitializeResult
}

// start starts the transport and negotiates, as mcp-go's examples do.
func (c *mcpGoClient) start(ctx context.Context) error {
	if err := c.client.Start(ctx); err != nil {
		return err
	}
	req := mcp.InitializeRequest{}
	req.Params.ClientInfo = mcp.Implementation{Name: "interop-mcp-go", Version: "0.0.1"}
	var err error
	c.result, err = c.client.Initialize(ctx, req)
	return err
}

func (c *mcpGoClient) negotiated() (string, string, []string) {
	return c.result.ProtocolVersion, c.result.ServerInfo.Name, capabilityNames(c.result.Capabilities)
}

func (c *mcpGoClient) listTools(ctx context.Context) ([]tool, error) {
	res, err := c.client.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	var tools []tool
	return tools, viaJSON(res.Tools, &tools)
}

func (c *mcpGoClient) callTool(ctx context.Context, name string, args map[string]any) (result, error) {
	var r result
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.client.CallTool(ctx, req)
	if err != nil {
		return r, err
	}
	return r, viaJSON(res, &r)
}

func (c *mcpGoClient) invalidParams(err error) bool {
	return errors.Is(err, mcp.ErrInvalidParams)
}

func (c *mcpGoClient) validator() string {
	return "github.com/santhosh-tekuri/jsonschema/v6, mcp-go's"
}

// compile compiles schema as mcp-go's server compiles its tools' schemas
// (server/input_validation.go); its client validates nothing itself.
func (c *mcpGoClient) compile(schema map[string]any) (func(any) bool, error) {
	doc, err := reparse(schema)
	if err != nil {
		return nil, err
	}
	compiler := jsonschema.NewCompiler()
	if err := compiler.AddResource("tool.json", doc); err != nil {
		return nil, err
	}
	compiled, err := compiler.Compile("tool.json")
	if err != nil {
		return nil, err
	}
	return func(v any) bool {
		doc, err := reparse(v)
		return err == nil && compiled.Validate(doc) == nil
	}, nil
}

// reparse returns v as the validator's own JSON decoder reads it.
func reparse(v any) (any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(data))
}

func (c *mcpGoClient) close() error { return c.client.Close() }

func (c *mcpGoClient) server() *serverProcess { return c.process }

// checkMCPGoStderrPipe checks the server with mcp-go's stdio client as most
// of its users start it, NewStdioMCPClient, which reads the server's stderr
// itself (GetStderr). Its Close closes that pipe before it waits for the
// server: the server, whose stderr writes then fail, must still exit with
// status 0 (Close returns the exit error). Whether its last log line got
// through first is a race: the check's name says, and does not judge.
func checkMCPGoStderrPipe(ctx context.Context, c *checker, t *target) {
	last := "not read"
	err := func() error {
		cl, err := mcpclient.NewStdioMCPClient(t.where, nil)
		if err != nil {
			return err
		}
		g := &mcpGoClient{client: cl}
		if err := g.start(ctx); err != nil {
			_ = cl.Close()
			return err
		}
		stderr, ok := mcpclient.GetStderr(cl)
		if !ok {
			return fmt.Errorf("GetStderr: no stderr")
		}
		if _, err := g.listTools(ctx); err != nil {
			return err
		}
		if err := cl.Close(); err != nil {
			return fmt.Errorf("close: %w", err)
		}
		log, err := io.ReadAll(stderr)
		if err != nil {
			return err
		}
		last = "lost, as mcp-go closed the pipe first"
		if strings.Contains(string(log), "msg=stopped") {
			last = "read in time"
		}
		return nil
	}()
	c.check("close with NewStdioMCPClient's own stderr pipe: the server exits with status 0 (its last log line: "+last+")",
		func() error { return err })
}
