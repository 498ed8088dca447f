// langchain.mjs talks to the server with LangChain's MCP adapters
// (@langchain/mcp-adapters), as a LangChain.js application would:
// MultiServerMCPClient, then getTools(), which lists the tools and wraps
// each in a DynamicStructuredTool whose invocation sends tools/call. The
// adapters connect with the TypeScript SDK v1's Client, so always with the
// 2025 initialize handshake; that Client checks each structuredContent
// against the tool's outputSchema itself.
//
// LangChain validates a tool's arguments against its inputSchema before it
// sends anything: the calls whose arguments the schema alone refuses never
// reach the server (ToolInputParsingException), and a result with isError
// set becomes a ToolException. It prints one line per check, "PASS what" or
// "FAIL what: why", and exits with status 1 if any check failed.
//
// Usage:
//
//	node interop/langchain.mjs default BINARY                    # over stdio
//	node interop/langchain.mjs default http://127.0.0.1:PORT/mcp # over Streamable HTTP

import { createRequire } from "node:module";
import { dirname } from "node:path";
import { ToolInputParsingException } from "@langchain/core/tools";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { concurrently, expectCompiled, expectTools, expectValid, invalid, show, toolNames, valid } from "./calls.mjs";
import { checker, expect } from "./check.mjs";
import { closeAndExit, stdioServer } from "./stdio-server.mjs";

const [mode, target] = process.argv.slice(2);
if (mode !== "default" || !target) {
  console.error("usage: node interop/langchain.mjs default BINARY|URL");
  process.exit(2);
}
const overHTTP = /^https?:\/\//.test(target);
const label = `langchain ${overHTTP ? "http" : "stdio"}`;
const { check, failed } = checker(label);

const server = overHTTP ? undefined : stdioServer(target);
const client = new MultiServerMCPClient({
  mcpServers: {
    hello: overHTTP ? { transport: "http", url: target } : { transport: "stdio", command: server.command, args: server.args },
  },
});

let tools = [];
await check(`getTools(): ${toolNames}, each a DynamicStructuredTool with the tool's input schema`, async () => {
  tools = await client.getTools();
  // The adapters keep no outputSchema: the SDK's Client checks results.
  expectTools(tools.map((t) => ({ name: t.name, inputSchema: t.schema })), { outputSchema: false });
});

// LangChain validates tool input with @cfworker/json-schema (StructuredTool
// calls its validate): the one that @langchain/core depends on.
await check("every tool's input schema, as the adapters rewrote it, compiles with @cfworker/json-schema, LangChain's validator", async () => {
  const requireCore = createRequire(dirname(createRequire(import.meta.url).resolve("@langchain/core/tools")));
  const { Validator } = await import(requireCore.resolve("@cfworker/json-schema"));
  expectCompiled(
    tools.map((t) => ({ name: t.name, inputSchema: t.schema })),
    (schema) => {
      const validator = new Validator(schema);
      return (value) => validator.validate(value).valid;
    },
  );
});

const byName = (name) => {
  const t = tools.find((t) => t.name === name);
  expect(t, `getTools() has no ${name}`);
  return t;
};

// invoke returns what the tool gives the model, as a tools/call result:
// the text of a text-only result, or its text block with structuredContent.
async function invoke(call) {
  const content = await byName(call.tool).invoke(call.arguments);
  if (typeof content === "string") return { content: [{ type: "text", text: content }] };
  const { structuredContent, ...block } = Array.isArray(content) ? content[0] : content;
  return { content: [block], structuredContent };
}

for (const call of valid) {
  await check(show(call), async () => expectValid(await invoke(call), call));
}

for (const call of invalid) {
  const what = call.schemaRefuses
    ? `${show(call)}: LangChain refuses it itself (ToolInputParsingException)`
    : `${show(call)} is a tool error (ToolException)`;
  await check(what, async () => {
    try {
      await invoke(call);
    } catch (err) {
      if (call.schemaRefuses) expect(err instanceof ToolInputParsingException, `got ${err.name}: ${err.message}`);
      else expect(err.name === "ToolException", `got ${err.name}: ${err.message}`);
      return;
    }
    throw new Error("the call succeeded");
  });
}

// What the model reads: a ToolMessage whose content holds the text block,
// which is the result as JSON, and the structuredContent beside it.
await check("a tool call's ToolMessage gives the model the result twice: the text and structuredContent", async () => {
  const call = valid.find((c) => c.tool === "calculate");
  const message = await byName(call.tool).invoke({ type: "tool_call", id: "interop-1", name: call.tool, args: call.arguments });
  expect(message.status === "success", `status is ${message.status}`);
  const content = JSON.parse(message.content);
  expect(JSON.stringify(JSON.parse(content.text)) === JSON.stringify(content.structuredContent), `content is ${message.content}`);
});

// A LangChain tool can only call a tool that tools/list named: the unknown
// tool goes through the SDK Client the adapters connected.
await check("an unknown tool is JSON-RPC error -32602 (through getClient(), the adapters' SDK Client)", async () => {
  const sdk = await client.getClient("hello");
  try {
    await sdk.callTool({ name: "no_such_tool", arguments: {} });
  } catch (err) {
    expect(err instanceof McpError && err.code === ErrorCode.InvalidParams, `got ${err}`);
    return;
  }
  throw new Error("the call succeeded");
});

await check("20 concurrent tool invocations", () => concurrently(20, invoke));

await closeAndExit({ check, failed }, server, "close(): the server exits with status 0, its last log line msg=stopped", () => client.close());
