// inspector.mjs drives the server with the MCP Inspector's command-line
// client, as a developer would from a terminal, and checks the JSON it
// prints. It prints one line per check, "PASS what" or "FAIL what: why", and
// exits with status 1 if any check failed.
//
// Usage: node interop/inspector.mjs BINARY CHECKOUT
//
// BINARY is the built server; CHECKOUT is the repository root, where the
// config subcommand finds the module for its "go run" configuration.

import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { checker, expect } from "./check.mjs";

const run = promisify(execFile);
const [binary, checkout] = process.argv.slice(2);
if (!binary || !checkout) {
  console.error("usage: node interop/inspector.mjs BINARY CHECKOUT");
  process.exit(2);
}

// The Inspector CLI 1.0.3 reads its own package.json at "../package.json"
// from the working directory, so it has to run from its build directory.
const require = createRequire(import.meta.url);
const cliDir = join(dirname(require.resolve("@modelcontextprotocol/inspector-cli/package.json")), "build");

// inspect runs the Inspector CLI on target (a command line, or --config
// FILE --server NAME) with the given method arguments, and returns the JSON
// it prints. The CLI exits 0 even for a result with isError set, so every
// check looks at the JSON.
async function inspect(target, method, timeout = 30_000) {
  const { stdout } = await run(process.execPath, [join(cliDir, "cli.js"), "--cli", ...target, ...method], {
    cwd: cliDir,
    timeout,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout);
}

const callTool = (tool, args) => [
  "--method", "tools/call", "--tool-name", tool,
  ...Object.entries(args).flatMap(([k, v]) => ["--tool-arg", `${k}=${v}`]),
];

const { check, failed } = checker("inspector");

// toolResult checks a tools/call result: isError as wanted, and a text block.
function toolResult(res, wantError) {
  expect(Array.isArray(res.content) && res.content[0]?.type === "text", `no text content in ${JSON.stringify(res)}`);
  expect(Boolean(res.isError) === wantError, `isError is ${Boolean(res.isError)}, want ${wantError}: ${JSON.stringify(res)}`);
  return res;
}

const stdio = [binary];

await check("tools/list names echo, get_timestamp, calculate with object input schemas", async () => {
  const { tools } = await inspect(stdio, ["--method", "tools/list"]);
  const names = tools.map((t) => t.name).sort();
  expect(names.join() === "calculate,echo,get_timestamp", `tools are ${names}`);
  for (const t of tools) {
    expect(t.inputSchema?.type === "object", `${t.name}: inputSchema.type is ${t.inputSchema?.type}`);
    expect(t.description, `${t.name}: no description`);
  }
});

await check("echo returns the message unchanged", async () => {
  const message = "héllo, wörld 🎉";
  const res = toolResult(await inspect(stdio, callTool("echo", { message })), false);
  expect(res.content[0].text === message, `text is ${JSON.stringify(res.content[0].text)}`);
});

await check("get_timestamp unix in Europe/Paris", async () => {
  const before = Math.floor(Date.now() / 1000);
  const res = toolResult(await inspect(stdio, callTool("get_timestamp", { format: "unix", timezone: "Europe/Paris" })), false);
  const s = res.structuredContent;
  expect(s?.timezone === "Europe/Paris", `timezone is ${s?.timezone}`);
  expect(s.timestamp === String(s.unix), `timestamp ${s.timestamp} is not unix ${s.unix}`);
  expect(Math.abs(s.unix - before) < 60, `unix ${s.unix} is not now (${before})`);
});

await check("calculate 2 * (3 + 4.5) ^ 2", async () => {
  const res = toolResult(await inspect(stdio, callTool("calculate", { expression: "2 * (3 + 4.5) ^ 2" })), false);
  const s = res.structuredContent;
  expect(s?.result === 112.5 && s.parsed === "(2 * ((3 + 4.5) ^ 2))", `structuredContent is ${JSON.stringify(s)}`);
});

await check("calculate 1/0 is a tool error", async () => {
  const res = toolResult(await inspect(stdio, callTool("calculate", { expression: "1/0" })), true);
  expect(res.content[0].text.includes("division by zero"), `text is ${JSON.stringify(res.content[0].text)}`);
});

await check("get_timestamp in Mars/Olympus is a tool error", async () => {
  const res = toolResult(await inspect(stdio, callTool("get_timestamp", { timezone: "Mars/Olympus" })), true);
  expect(res.content[0].text.includes("Mars/Olympus"), `text is ${JSON.stringify(res.content[0].text)}`);
});

// The config subcommand's Claude Desktop output is the "mcpServers" format
// the Inspector reads with --config: start the server from it, both ways.
const dir = await mkdtemp(join(tmpdir(), "mcp-hello-tools-inspector-"));
try {
  for (const [what, args] of [
    ["config claude-desktop -binary", ["config", "claude-desktop", "-binary", binary]],
    ["config claude-desktop (go run)", ["config", "claude-desktop"]],
  ]) {
    await check(`${what} starts the server`, async () => {
      const { stdout } = await run(binary, args, { cwd: checkout });
      const file = join(dir, "claude_desktop_config.json");
      await writeFile(file, stdout);
      // go run may have to link the binary: give it time.
      const { tools } = await inspect(["--config", file, "--server", "hello-tools"], ["--method", "tools/list"], 180_000);
      expect(tools.length === 3, `${tools.length} tools`);
    });
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

process.exit(failed() ? 1 : 0);
