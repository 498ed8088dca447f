// server.mjs asks a stdio MCP server for its tools, as a host does first:
// the harness checks what the model got against the server's own list, not
// one written here, so that a tool a learner adds is checked too.

import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

// serverTools runs binary, sends initialize, notifications/initialized and
// tools/list, and returns the tools of the list. Its input ends only then:
// go-sdk's own stdio transport (examples/hello) drops the replies still to
// come when its input ends.
export function serverTools(binary, timeout = 30_000) {
  const lines = [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "interop-hosts", version: "1.0.0" } } },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [], { stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    let tools = null;
    const timer = setTimeout(() => child.kill("SIGKILL"), timeout);
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    createInterface({ input: child.stdout }).on("line", (line) => {
      try {
        const msg = JSON.parse(line);
        if (msg.id === 2 && Array.isArray(msg.result?.tools)) {
          tools = msg.result.tools;
          child.stdin.end();
        }
      } catch {
        // not a message: the check below says what came
      }
    });
    child.on("close", (status) => {
      clearTimeout(timer);
      if (tools) resolve(tools);
      else reject(new Error(`${binary} answered no tools/list (exit status ${status}): ${stderr.slice(-1000)}`));
    });
    child.stdin.write(lines.map((l) => JSON.stringify(l) + "\n").join(""));
  });
}
