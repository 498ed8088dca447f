package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// A client is one library's connection to the server, seen through what
// the checks need. Results and tools come through JSON, as the library
// would hand them to a host.
type client interface {
	// negotiated returns the protocol version in use, and the server's
	// initialize (or server/discover) result: serverInfo.name and the
	// names of the capabilities it advertised.
	negotiated() (version, serverName string, capabilities []string)
	listTools(ctx context.Context) ([]tool, error)
	callTool(ctx context.Context, name string, args map[string]any) (result, error)
	// invalidParams reports whether err is the library's form of a
	// JSON-RPC error with code -32602.
	invalidParams(err error) bool
	// validator names the JSON Schema validator the library itself
	// uses, and compile compiles a schema with it.
	validator() string
	compile(schema map[string]any) (func(v any) bool, error)
	close() error
	// server is the server process the client started, or nil over HTTP.
	server() *serverProcess
}

// concurrentCalls is how many tools/call requests are in flight at once.
const concurrentCalls = 20

// run connects to the server in mode m and checks the session: the
// version negotiated, tools/list, every schema compiled by the library's
// own validator, good and bad calls, an unknown tool, concurrent calls,
// and the close. With every set it makes every call of calls.json, else
// the first of each tool.
func run(ctx context.Context, c *checker, m mode, t *target, cs *calls, o *offers, every bool) {
	var cl client
	if !c.check("connect: negotiates "+m.version, func() error {
		var err error
		if cl, err = m.connect(ctx, t); err != nil {
			return err
		}
		version, name, caps := cl.negotiated()
		return all(
			expect(version == m.version, "negotiated %s, want %s", version, m.version),
			expect(name == "mcp-hello-tools", "serverInfo.name is %q", name),
			expect(slices.Equal(caps, capabilityNames(o.Capabilities)), "capabilities are %v, the server's are %v", caps, capabilityNames(o.Capabilities)),
		)
	}) && cl == nil {
		return
	}

	var tools []tool
	c.check("tools/list: "+strings.Join(o.names(), ", "), func() error {
		var err error
		if tools, err = cl.listTools(ctx); err != nil {
			return err
		}
		return o.expectTools(tools)
	})

	// Each valid result's structuredContent goes through the outputSchema
	// compiled here, as a host that checks results would.
	validators := map[string]func(any) bool{}
	c.check("every tool's schemas compile with "+cl.validator(), func() error {
		return cs.expectCompiled(tools, cl.compile, validators)
	})

	valid, invalid := cs.Valid, cs.Invalid
	if !every {
		valid, invalid = firstOfEach(valid), firstOfEach(invalid)
	}
	callValid := func(cv call) error {
		r, err := cl.callTool(ctx, cv.Tool, cv.Arguments)
		if err != nil {
			return err
		}
		if err := cv.expectValid(r); err != nil {
			return err
		}
		if out := validators[cv.Tool+".outputSchema"]; out != nil && !out(r.StructuredContent) {
			return fmt.Errorf("structuredContent %v does not match the outputSchema", r.StructuredContent)
		}
		return nil
	}
	for _, cv := range valid {
		c.check(cv.String(), func() error { return callValid(cv) })
	}
	for _, ci := range invalid {
		c.check(ci.String()+" is a tool error", func() error {
			r, err := cl.callTool(ctx, ci.Tool, ci.Arguments)
			if err != nil {
				return err
			}
			return expectToolError(r)
		})
	}
	c.check("an unknown tool is JSON-RPC error -32602", func() error {
		_, err := cl.callTool(ctx, "no_such_tool", map[string]any{})
		if err == nil {
			return fmt.Errorf("the call succeeded")
		}
		return expect(cl.invalidParams(err), "got %v", err)
	})
	c.check(fmt.Sprintf("%d concurrent calls", concurrentCalls), func() error {
		errs := make([]error, concurrentCalls)
		var wg sync.WaitGroup
		for i := range concurrentCalls {
			cv := cs.Valid[i%len(cs.Valid)]
			wg.Go(func() {
				if err := callValid(cv); err != nil {
					errs[i] = fmt.Errorf("%s: %w", cv, err)
				}
			})
		}
		wg.Wait()
		return all(errs...)
	})

	what := "close"
	if cl.server() != nil {
		what = "close: the server exits with status 0, its last log line msg=stopped"
	}
	c.check(what, func() error {
		if err := cl.close(); err != nil {
			return fmt.Errorf("close: %w", err)
		}
		if p := cl.server(); p != nil {
			return p.expectStopped()
		}
		return nil
	})
}

// expectCompiled compiles every tool's inputSchema and outputSchema with
// compile, keeping each validator in validators under "TOOL.inputSchema"
// or "TOOL.outputSchema", and checks what the input schemas say of the
// calls: the arguments of each valid call are accepted, and those marked
// schemaRefuses are refused.
func (cs *calls) expectCompiled(tools []tool, compile func(map[string]any) (func(any) bool, error), validators map[string]func(any) bool) error {
	for _, t := range tools {
		for key, schema := range map[string]map[string]any{"inputSchema": t.InputSchema, "outputSchema": t.OutputSchema} {
			if schema == nil {
				continue
			}
			v, err := compile(schema)
			if err != nil {
				return fmt.Errorf("%s: %s does not compile: %w", t.Name, key, err)
			}
			validators[t.Name+"."+key] = v
		}
	}
	for _, cv := range cs.Valid {
		if in := validators[cv.Tool+".inputSchema"]; in == nil || !in(cv.Arguments) {
			return fmt.Errorf("%s: the inputSchema refuses valid arguments", cv)
		}
	}
	for _, ci := range cs.Invalid {
		if in := validators[ci.Tool+".inputSchema"]; in == nil || in(ci.Arguments) == ci.SchemaRefuses {
			return fmt.Errorf("%s: the inputSchema %s it", ci, map[bool]string{true: "accepts", false: "refuses"}[ci.SchemaRefuses])
		}
	}
	return nil
}

// capabilityNames returns the names of the capabilities in caps, a
// library's capabilities type, that are set.
func capabilityNames(caps any) []string {
	var m map[string]any
	if err := viaJSON(caps, &m); err != nil {
		return []string{err.Error()}
	}
	for k, v := range m {
		if v == nil {
			delete(m, k)
		}
	}
	return slices.Sorted(maps.Keys(m))
}
