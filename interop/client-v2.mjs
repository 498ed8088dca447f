// client-v2.mjs talks to the server with the TypeScript MCP SDK v2's Client
// (@modelcontextprotocol/client), in one of its three version negotiation
// modes:
//
//   - legacy: the 2025 initialize handshake, as the v1 Client does; the
//     negotiated version must be a 2025 revision;
//   - auto: a server/discover probe first, with a fallback to initialize
//     unless the server answers as a 2026-07-28 server; it must not fall
//     back: the negotiated version must be 2026-07-28;
//   - 2026-07-28: pinned to that revision, no probe and no fallback: every
//     request carries the version in its _meta.
//
// It lists the tools, calls each with valid and with wrong arguments, and
// calls an unknown tool. It prints one line per check, "PASS what" or
// "FAIL what: why", and exits with status 1 if any check failed.
//
// Usage:
//
//	node interop/client-v2.mjs MODE BINARY                    # over stdio
//	node interop/client-v2.mjs MODE http://127.0.0.1:PORT/mcp # over Streamable HTTP
//
// MODE is legacy, auto or 2026-07-28.

import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { expectToolError, expectValid, firstOfEach, invalid, show, valid } from "./calls.mjs";
import { checker, expect } from "./check.mjs";

const modern = "2026-07-28";
const modes = { legacy: "legacy", auto: "auto", [modern]: { pin: modern } };

const [mode, target] = process.argv.slice(2);
if (!(mode in modes) || !target) {
  console.error(`usage: node interop/client-v2.mjs ${Object.keys(modes).join("|")} BINARY|URL`);
  process.exit(2);
}
const overHTTP = /^https?:\/\//.test(target);
const label = `ts-sdk-v2 ${mode} ${overHTTP ? "http" : "stdio"}`;
const { check, failed } = checker(label);

const transport = overHTTP
  ? new StreamableHTTPClientTransport(new URL(target))
  : new StdioClientTransport({ command: target, stderr: "pipe" });
let serverStderr = "";
transport.stderr?.on("data", (chunk) => (serverStderr += chunk));

const client = new Client(
  { name: "interop-ts-sdk-v2", version: "0.0.1" },
  { versionNegotiation: { mode: modes[mode] } },
);
try {
  await client.connect(transport);
} catch (err) {
  console.log(`FAIL ${label}: connect to ${target}: ${err.message}\n${serverStderr}`);
  process.exit(1);
}

const version = client.getNegotiatedProtocolVersion();
const era = client.getProtocolEra();
await check(`connect: negotiated ${version} (${era} era)`, async () => {
  if (mode === "legacy") {
    expect(/^2025-/.test(version) && era === "legacy", `negotiated ${version} (${era}), want a 2025 revision`);
    expect(client.getDiscoverResult() === undefined, "a legacy connect sent server/discover");
  } else {
    expect(version === modern && era === "modern", `negotiated ${version} (${era}), want ${modern}: the client fell back`);
    const supported = client.getDiscoverResult()?.supportedVersions ?? [];
    expect(supported.includes(modern), `server/discover's supportedVersions are ${supported}`);
  }
});

await check("server info and capabilities", async () => {
  const info = client.getServerVersion();
  expect(info?.name === "mcp-hello-tools", `serverInfo.name is ${info?.name}`);
  const caps = Object.keys(client.getServerCapabilities() ?? {}).sort();
  expect(caps.join() === "tools", `capabilities are ${caps}, want tools only`);
});

await check("tools/list: echo, get_timestamp, calculate", async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  expect(names.join() === "calculate,echo,get_timestamp", `tools are ${names}`);
});

// After tools/list, callTool validates each structuredContent against the
// tool's outputSchema itself, and throws if they disagree.
for (const [tool, args, want] of firstOfEach(valid)) {
  await check(`${tool} ${show(args)}`, async () => {
    expectValid(await client.callTool({ name: tool, arguments: args }), want);
  });
}

for (const [tool, args, wantText] of firstOfEach(invalid)) {
  await check(`${tool} ${show(args)} is a tool error`, async () => {
    expectToolError(await client.callTool({ name: tool, arguments: args }), wantText);
  });
}

await check("an unknown tool is JSON-RPC error -32602", async () => {
  try {
    await client.callTool({ name: "no_such_tool", arguments: {} });
  } catch (err) {
    expect(err instanceof ProtocolError && err.code === -32602, `got ${err}`);
    return;
  }
  throw new Error("the call succeeded");
});

await client.close();
if (failed() && serverStderr) {
  console.log(`server stderr:\n${serverStderr}`);
}
process.exit(failed() ? 1 : 0);
