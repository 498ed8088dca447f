// client.mjs talks to the server with the TypeScript MCP SDK's Client, the
// client that Claude Desktop and many other hosts are built on. It calls
// every tool with valid and invalid arguments; after tools/list the SDK
// validates each structuredContent against the tool's outputSchema itself,
// and throws if they disagree. Over stdio the server is started through
// stdio-server.mjs, which keeps its log and exit status for the close
// check. It prints one line per check, "PASS what" or "FAIL what: why", and
// exits with status 1 if any check failed.
//
// Usage:
//
//	node interop/client.mjs default BINARY                    # over stdio
//	node interop/client.mjs default http://127.0.0.1:PORT/mcp # over Streamable HTTP
//
// The v1 Client has one mode, default: the initialize handshake.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { concurrently, expectCapabilities, expectCompiled, expectToolError, expectTools, expectValid, invalid, show, toolNames, valid } from "./calls.mjs";
import { checker, expect } from "./check.mjs";
import { closeAndExit, stdioServer } from "./stdio-server.mjs";

const [mode, target] = process.argv.slice(2);
if (mode !== "default" || !target) {
  console.error("usage: node interop/client.mjs default BINARY|URL");
  process.exit(2);
}
const overHTTP = /^https?:\/\//.test(target);
const label = overHTTP ? "ts-sdk http" : "ts-sdk stdio";

const { check, failed } = checker(label);

const server = overHTTP ? undefined : stdioServer(target);
const transport = overHTTP
  ? new StreamableHTTPClientTransport(new URL(target))
  : new StdioClientTransport({ command: server.command, args: server.args });
const serverStderr = () => server?.log() ?? "";

const client = new Client({ name: "interop-ts-sdk", version: "0.0.1" });
try {
  await client.connect(transport);
} catch (err) {
  console.log(`FAIL ${label}: connect to ${target}: ${err.message}\n${serverStderr()}`);
  server?.remove();
  process.exit(1);
}

await check("initialize: server info and capabilities", async () => {
  const info = client.getServerVersion();
  expect(info?.name === "mcp-hello-tools", `serverInfo.name is ${info?.name}`);
  expectCapabilities(Object.keys(client.getServerCapabilities() ?? {}));
});

let tools = [];
await check(`tools/list: ${toolNames}, with their schemas`, async () => {
  ({ tools } = await client.listTools());
  expectTools(tools);
});

// The Client checks structuredContent with this validator (its default).
await check("every tool's schemas compile with the SDK's own validator (Ajv)", async () => {
  const ajv = new AjvJsonSchemaValidator();
  expectCompiled(tools, (schema) => {
    const validate = ajv.getValidator(schema);
    return (value) => validate(value).valid;
  });
});

const callTool = (call) => client.callTool({ name: call.tool, arguments: call.arguments });

for (const call of valid) {
  await check(show(call), async () => expectValid(await callTool(call), call));
}

for (const call of invalid) {
  await check(`${show(call)} is a tool error`, async () => expectToolError(await callTool(call)));
}

await check("an unknown tool is JSON-RPC error -32602", async () => {
  try {
    await client.callTool({ name: "no_such_tool", arguments: {} });
  } catch (err) {
    expect(err instanceof McpError && err.code === ErrorCode.InvalidParams, `got ${err}`);
    return;
  }
  throw new Error("the call succeeded");
});

await check("ping", async () => {
  await client.ping();
});

await check("20 concurrent calls", () => concurrently(20, callTool));

await closeAndExit({ check, failed }, server, "close: the server exits with status 0, its last log line msg=stopped", () => client.close());
