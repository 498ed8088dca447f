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
// It lists the tools, calls each with valid and with wrong arguments, calls
// an unknown tool, makes 20 calls at once and closes. In the auto and
// 2026-07-28 modes over stdio the Client probes on a sibling process of its
// own, then starts the session's: both go through stdio-server.mjs, which
// keeps each one's log and exit status for the close check. It prints one
// line per check, "PASS what" or "FAIL what: why", and exits with status 1
// if any check failed.
//
// Usage:
//
//	node interop/client-v2.mjs MODE BINARY                    # over stdio
//	node interop/client-v2.mjs MODE http://127.0.0.1:PORT/mcp # over Streamable HTTP
//
// MODE is legacy, auto or 2026-07-28.

import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { DefaultJsonSchemaValidator } from "@modelcontextprotocol/client/_shims";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { concurrently, expectCapabilities, expectCompiled, expectToolError, expectTools, expectValid, firstOfEach, invalid, show, toolNames, valid } from "./calls.mjs";
import { checker, expect } from "./check.mjs";
import { closeAndExit, stdioServer } from "./stdio-server.mjs";

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

const server = overHTTP ? undefined : stdioServer(target);
const transport = overHTTP
  ? new StreamableHTTPClientTransport(new URL(target))
  : new StdioClientTransport({ command: server.command, args: server.args });
const serverStderr = () => server?.log() ?? "";

const client = new Client(
  { name: "interop-ts-sdk-v2", version: "0.0.1" },
  { versionNegotiation: { mode: modes[mode] } },
);
try {
  await client.connect(transport);
} catch (err) {
  console.log(`FAIL ${label}: connect to ${target}: ${err.message}\n${serverStderr()}`);
  server?.remove();
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
  expectCapabilities(Object.keys(client.getServerCapabilities() ?? {}));
});

let tools = [];
await check(`tools/list: ${toolNames}`, async () => {
  ({ tools } = await client.listTools());
  expectTools(tools);
});

// The Client checks structuredContent with this validator (its default).
await check("every tool's schemas compile with the SDK's own validator (Ajv)", async () => {
  const validator = new DefaultJsonSchemaValidator();
  expectCompiled(tools, (schema) => {
    const validate = validator.getValidator(schema);
    return (value) => validate(value).valid;
  });
});

// After tools/list, callTool validates each structuredContent against the
// tool's outputSchema itself, and throws if they disagree.
const callTool = (call) => client.callTool({ name: call.tool, arguments: call.arguments });

for (const call of firstOfEach(valid)) {
  await check(show(call), async () => expectValid(await callTool(call), call));
}

for (const call of firstOfEach(invalid)) {
  await check(`${show(call)} is a tool error`, async () => expectToolError(await callTool(call)));
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

await check("20 concurrent calls", () => concurrently(20, callTool));

await closeAndExit({ check, failed }, server, "close: every server it started exits with status 0, its last log line msg=stopped", () => client.close());
