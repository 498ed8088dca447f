// mcp-remote.mjs checks the server through mcp-remote, the bridge that lets
// a client that only starts stdio servers (as Claude Desktop long did) use
// one over Streamable HTTP: the client starts "mcp-remote URL" as its
// server, and mcp-remote relays each message to the URL. In one of
// mcp-remote's protocol modes (--protocol legacy, its default, or auto), it
// runs four local clients through it in turn: the TypeScript SDK v1's Client
// (the initialize handshake), and the v2 Client in its legacy, auto and
// 2026-07-28 modes. Each lists the tools, calls each with valid and with
// wrong arguments, calls an unknown tool, makes 20 calls at once, and
// closes: mcp-remote must then exit with status 0.
//
// The first tools/list of the v2 Client in auto or 2026-07-28 mode takes as
// long as mcp-remote takes to start (some 300 to 500 ms): that Client probes
// with server/discover on a sibling process of its own, and starts the
// session's process, which must start up and connect to the URL before it
// can relay anything, only once the probe has its answer. The check names
// say how long the first tools/list took.
//
// It prints one line per check, "PASS what" or "FAIL what: why", and exits
// with status 1 if any check failed.
//
// Usage: node interop/mcp-remote.mjs legacy|auto http://127.0.0.1:PORT/mcp

import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Client as ClientV2, ProtocolError } from "@modelcontextprotocol/client";
import { DefaultJsonSchemaValidator } from "@modelcontextprotocol/client/_shims";
import { getDefaultEnvironment, StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { concurrently, expectCompiled, expectToolError, expectTools, expectValid, firstOfEach, invalid, show, toolNames, valid } from "./calls.mjs";
import { checker, expect } from "./check.mjs";
import { stdioServer } from "./stdio-server.mjs";

const [mode, url] = process.argv.slice(2);
if (!["legacy", "auto"].includes(mode) || !/^https?:\/\//.test(url ?? "")) {
  console.error("usage: node interop/mcp-remote.mjs legacy|auto URL");
  process.exit(2);
}

const require = createRequire(import.meta.url);
const remoteDir = dirname(require.resolve("mcp-remote/package.json"));
const proxy = join(remoteDir, require(join(remoteDir, "package.json")).bin["mcp-remote"]);
// mcp-remote keeps OAuth state under ~/.mcp-auth unless told otherwise.
const configDir = mkdtempSync(join(tmpdir(), "mcp-hello-tools-mcp-remote-"));

// The local clients: the v1 Client, always the handshake, and the v2
// Client in each of its modes, with the version each must negotiate (the
// v1 Client does not say which).
// v1 Client does not say which), the error class of each, and the
// validator each checks structuredContent with (its default).
const v1 = { Client: ClientV1, Stdio: StdioV1, RPCError: McpError, Validator: AjvJsonSchemaValidator };
const v2 = { Client: ClientV2, Stdio: StdioV2, RPCError: ProtocolError, Validator: DefaultJsonSchemaValidator };
const locals = [
  { name: "ts-sdk", ...v1, options: {}, version: undefined },
  { name: "ts-sdk-v2 legacy", ...v2, options: { versionNegotiation: { mode: "legacy" } }, version: /^2025-/ },
  { name: "ts-sdk-v2 auto", ...v2, options: { versionNegotiation: { mode: "auto" } }, version: /^2026-07-28$/ },
  { name: "ts-sdk-v2 2026-07-28", ...v2, options: { versionNegotiation: { mode: { pin: "2026-07-28" } } }, version: /^2026-07-28$/ },
];

let failures = false;
for (const local of locals) {
  const { check, failed } = checker(`mcp-remote ${mode} ${local.name}`);
  const bridge = stdioServer(proxy, [url, "--protocol", mode]);
  const transport = new local.Stdio({
    command: bridge.command,
    args: bridge.args,
    env: { ...getDefaultEnvironment(), MCP_REMOTE_CONFIG_DIR: configDir },
  });
  const client = new local.Client({ name: `interop-${local.name.replace(" ", "-")}`, version: "0.0.1" }, local.options);

  const connected = await check("connect", async () => {
    await client.connect(transport);
    expect(client.getServerVersion()?.name === "mcp-hello-tools", `serverInfo.name is ${client.getServerVersion()?.name}`);
    if (local.version) {
      const version = client.getNegotiatedProtocolVersion();
      expect(local.version.test(version), `negotiated ${version}, want ${local.version}`);
    }
  });
  if (!connected) {
    console.log(bridge.log());
    failures = true;
    continue;
  }

  const start = performance.now();
  const { tools } = await client.listTools();
  const took = Math.round(performance.now() - start);
  await check(`tools/list: ${toolNames} (the first took ${took} ms)`, () => expectTools(tools));
  await check("every tool's schemas compile with the client's own validator (Ajv)", () => {
    const validator = new local.Validator();
    expectCompiled(tools, (schema) => {
      const validate = validator.getValidator(schema);
      return (value) => validate(value).valid;
    });
  });

  for (const call of firstOfEach(valid)) {
    await check(show(call), async () => expectValid(await client.callTool({ name: call.tool, arguments: call.arguments }), call));
  }
  for (const call of firstOfEach(invalid)) {
    await check(`${show(call)} is a tool error`, async () =>
      expectToolError(await client.callTool({ name: call.tool, arguments: call.arguments })),
    );
  }
  await check("an unknown tool is JSON-RPC error -32602", async () => {
    try {
      await client.callTool({ name: "no_such_tool", arguments: {} });
    } catch (err) {
      expect(err instanceof local.RPCError && err.code === -32602, `got ${err}`);
      return;
    }
    throw new Error("the call succeeded");
  });
  await check("20 concurrent calls", () => concurrently(20, (call) => client.callTool({ name: call.tool, arguments: call.arguments })));
  // The v2 Client stops its probe's sibling with SIGTERM, which mcp-remote
  // does not handle: that one dies of it, unless it has seen its input end
  // and exited first (seen once under load: exit status 0). The session's
  // must exit.
  const ends = [];
  await check(`close: mcp-remote exits with status 0`, async () => {
    await client.close();
    await bridge.ended();
    ends.push(...bridge.ends());
    const session = ends.at(-1);
    expect(session?.status === "exit status 0", `it ended with ${session?.status}; its log ends:\n${session?.tail}`);
    for (const sibling of ends.slice(0, -1)) {
      expect(["signal SIGTERM", "exit status 0"].includes(sibling.status), `the probe's sibling ended with ${sibling.status}`);
    }
  });
  if (failed()) {
    console.log(`mcp-remote's log:\n${bridge.log()}`);
    failures = true;
  }
  bridge.remove();
}
rmSync(configDir, { recursive: true, force: true });
process.exit(failures ? 1 : 0);
