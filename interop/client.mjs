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

const target = process.argv[2];
if (!target) {
  console.error("usage: node interop/client.mjs BINARY | URL");
  process.exit(2);
}
const overHTTP = /^https?:\/\//.test(target);
const label = overHTTP ? "ts-sdk http" : "ts-sdk stdio";

let failures = 0;

// check runs one check: fn throws to fail it.
async function check(what, fn) {
  try {
    await fn();
    console.log(`PASS ${label}: ${what}`);
  } catch (err) {
    failures++;
    console.log(`FAIL ${label}: ${what}: ${err.message}`);
  }
}

function expect(cond, message) {
  if (!cond) throw new Error(message);
}

// Calls that succeed; want checks the result's structuredContent (or, for
// echo, its text).
const valid = [
  ["echo", { message: 'héllo\n"world" \u2028 🎉' }, (r) => r.content[0].text === 'héllo\n"world" \u2028 🎉'],
  ["echo", { message: "" }, (r) => r.content[0].text === ""],
  ["get_timestamp", {}, (r) => r.structuredContent.format === "iso8601" && r.structuredContent.timezone === "UTC"],
  ["get_timestamp", { format: "unix", timezone: "Europe/Paris" }, (r) => r.structuredContent.timestamp === String(r.structuredContent.unix)],
  ["get_timestamp", { format: "human", timezone: "Asia/Kolkata" }, (r) => r.structuredContent.utc_offset === "+05:30"],
  ["get_timestamp", { format: "iso8601", timezone: "America/New_York" }, (r) => /^\d{4}-\d\d-\d\dT/.test(r.structuredContent.timestamp)],
  ["calculate", { expression: "2 * (3 + 4.5) ^ 2" }, (r) => r.structuredContent.result === 112.5 && r.structuredContent.parsed === "(2 * ((3 + 4.5) ^ 2))"],
  ["calculate", { expression: "-2^2" }, (r) => r.structuredContent.result === -4],
  ["calculate", { expression: "2^3^2" }, (r) => r.structuredContent.result === 512],
  ["calculate", { expression: "10 - 4 - 3" }, (r) => r.structuredContent.result === 3],
];

// Calls whose arguments are wrong: each is a tool result with isError set
// and a text that names the problem, never a JSON-RPC error.
const invalid = [
  ["echo", {}, "message"],
  ["echo", { message: 42 }, "message"],
  ["echo", { message: "a", volume: 11 }, "volume"],
  ["calculate", {}, "expression"],
  ["calculate", { expression: ["1"] }, "expression"],
  ["calculate", { expression: "2 * (3 + )" }, "column 10"],
  ["calculate", { expression: "1/0" }, "division by zero"],
  ["get_timestamp", { format: "rfc822" }, "rfc822"],
  ["get_timestamp", { timezone: "Mars/Olympus" }, "Mars/Olympus"],
  ["get_timestamp", { zone: "UTC" }, "zone"],
];

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
  // interop/run skips the conformance scenarios of the capabilities the
  // server does not advertise (logging, resources, prompts): keep both in step.
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

// show renders arguments for a check's name, on one line.
const show = (args) => JSON.stringify(args).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);

for (const [tool, args, want] of valid) {
  await check(`${tool} ${show(args)}`, async () => {
    const res = await client.callTool({ name: tool, arguments: args });
    expect(!res.isError, `isError: ${res.content?.[0]?.text}`);
    expect(want(res), `unexpected result ${JSON.stringify(res)}`);
  });
}

for (const [tool, args, wantText] of invalid) {
  await check(`${tool} ${show(args)} is a tool error`, async () => {
    const res = await client.callTool({ name: tool, arguments: args });
    expect(res.isError === true, `isError is ${res.isError}: ${JSON.stringify(res)}`);
    const text = res.content?.[0]?.text ?? "";
    expect(text.includes(wantText), `text ${JSON.stringify(text)} does not mention ${wantText}`);
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
if (failures > 0 && serverStderr) {
  console.log(`server stderr:\n${serverStderr}`);
}
process.exit(failures > 0 ? 1 : 0);
