package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A host names each tool for its model from something of the server's: the
// key in the host's configuration (config's serverKey), or, in VS Code, the
// title the server reports in initialize. The model reads that name, so it
// must hold the server's name whole, once: VS Code cuts the title to 13
// characters, and "MCP hello tools" became mcp_mcp_hello_too_echo.

// vscodeName is VS Code's rule, as interop/vscode/run.mjs states it and its
// capture shows: "mcp_", the title lower-cased, each run of characters
// outside [a-z0-9_.-] one "_", cut to vscodePrefix characters, "_", the
// tool's name with its dots made "_".
func vscodeName(title, tool string) string {
	prefix := vscodeUnsafe.ReplaceAllString(strings.ToLower(title), "_")
	if len(prefix) > vscodePrefix {
		prefix = prefix[:vscodePrefix]
	}
	return "mcp_" + prefix + "_" + strings.ReplaceAll(tool, ".", "_")
}

var vscodeUnsafe = regexp.MustCompile(`[^a-z0-9_.-]+`)

// vscodePrefix is how much of a server's title VS Code keeps in a tool's name.
const vscodePrefix = 13

// TestToolNamesWhole: in every host whose capture says how it names a tool,
// the name the model reads for this server's tools holds the server's name
// whole and once. VS Code's rule is checked against the names its capture
// holds, then applied to the title server.go reports now.
func TestToolNamesWhole(t *testing.T) {
	raw, typed := captures(t)
	for host, c := range typed {
		t.Run(host, func(t *testing.T) {
			if host != "vscode" {
				// The others name tools by the configuration's key, which
				// Codex writes with "_" for "-".
				key := serverKey
				if !strings.Contains(c.Tools.Naming, key) {
					key = strings.ReplaceAll(serverKey, "-", "_")
				}
				assert.Contains(t, c.Tools.Naming, key, "%s names tools %q: without the key %q config gives the server", host, c.Tools.Naming, serverKey)
				return
			}
			for _, seen := range []struct{ title, path, tool string }{
				{c.Tools.ServerTitle, "tools definitions echo name", "echo"},
				{"probe", "probe definitions titled name", "titled"}, // the probe has a name, no title
			} {
				name, _ := captureValue(raw[host], seen.path)
				assert.Equal(t, vscodeName(seen.title, seen.tool), name, "VS Code named %q's %s otherwise than vscodeName says", seen.title, seen.tool)
			}
			got := vscodeName(title, "echo")
			whole := vscodeUnsafe.ReplaceAllString(strings.ToLower(title), "_")
			assert.Equal(t, "mcp_"+whole+"_echo", got, "VS Code cuts the title %q to %d characters: the model would read %s", title, vscodePrefix, got)
			assert.False(t, strings.HasPrefix(got, "mcp_mcp"), "the model would read %s: \"mcp\" twice", got)
		})
	}
}
