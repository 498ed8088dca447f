// client.mjs talks to the server with the TypeScript MCP SDK's Client, the
// client that Claude Desktop and many other hosts are built on. It calls
// every tool with valid and invalid arguments; after tools/list the SDK
// validates each structuredContent against the tool's outputSchema itself,
// and throws if they disagree. It prints one line per check, "PASS what" or
// "FAIL what: why", and exits with status 1 if any check failed.
//
// Usage:
//
//	node interop/client.mjs BINARY                    # over stdio
//	node interop/client.mjs http://127.0.0.1:PORT/mcp # over Streamable HTTP

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { expectToolError, expectValid, invalid, show, valid } from "./calls.mjs";
import { checker, expect } from "./check.mjs";

const target = process.argv[2];
if (!target) {
  console.error("usage: node interop/client.mjs BINARY | URL");
  process.exit(2);
}
const overHTTP = /^https?:\/\//.test(target);
const label = overHTTP ? "ts-sdk http" : "ts-sdk stdio";

const { check, failed } = checker(label);

const transport = overHTTP
  ? new StreamableHTTPClientTransport(new URL(target))
  : new StdioClientTransport({ command: target, stderr: "pipe" });
let serverStderr = "";
transport.stderr?.on("data", (chunk) => (serverStderr += chunk));

const client = new Client({ name: "interop-ts-sdk", version: "0.0.1" });
try {
  await client.connect(transport);
} catch (err) {
  console.log(`FAIL ${label}: connect to ${target}: ${err.message}\n${serverStderr}`);
  process.exit(1);
}

await check("initialize: server info and capabilities", async () => {
  const info = client.getServerVersion();
  expect(info?.name === "mcp-hello-tools", `serverInfo.name is ${info?.name}`);
  // interop/expected-failures/ lists the conformance checks of the
  // capabilities the server does not advertise (logging, completions,
  // resources, prompts): keep both in step.
  const caps = Object.keys(client.getServerCapabilities() ?? {}).sort();
  expect(caps.join() === "tools", `capabilities are ${caps}, want tools only (see interop/run)`);
});

await check("tools/list: three tools, output schemas for get_timestamp and calculate", async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  expect(names.join() === "calculate,echo,get_timestamp", `tools are ${names}`);
  for (const t of tools) {
    expect(Boolean(t.outputSchema) === (t.name !== "echo"), `${t.name}: outputSchema ${t.outputSchema ? "present" : "missing"}`);
  }
});

for (const [tool, args, want] of valid) {
  await check(`${tool} ${show(args)}`, async () => {
    expectValid(await client.callTool({ name: tool, arguments: args }), want);
  });
}

for (const [tool, args, wantText] of invalid) {
  await check(`${tool} ${show(args)} is a tool error`, async () => {
    expectToolError(await client.callTool({ name: tool, arguments: args }), wantText);
  });
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

await client.close();
if (failed() && serverStderr) {
  console.log(`server stderr:\n${serverStderr}`);
}
process.exit(failed() ? 1 : 0);
