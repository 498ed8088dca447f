// tap-log.mjs reads the log tap.mjs writes: what a host sent a server and
// when, and what the server answered.

import { readFileSync } from "node:fs";

// readTap parses the log at file for the first server started at since or
// later (an mcp list before the conversation starts one of its own):
// start (when it started), env (the names of the variables it got),
// messages ({ at, dir, msg } in order), first ({ method, revision } of the
// host's first message), methods (those the host sent, each once, in order
// of first use), errors (the messages of the server's JSON-RPC errors).
export function readTap(file, since = 0) {
  const all = readFileSync(file, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const from = all.findIndex((e) => e.start !== undefined && e.start >= since);
  const next = all.findIndex((e, i) => i > from && e.start !== undefined);
  const entries = from < 0 ? [] : all.slice(from, next < 0 ? undefined : next);
  const head = entries[0] ?? {};
  const messages = entries
    .filter((e) => e.dir)
    .map((e) => {
      try {
        return { at: e.at, dir: e.dir, msg: JSON.parse(e.line) };
      } catch {
        return { at: e.at, dir: e.dir, msg: null };
      }
    });
  const sent = messages.filter((m) => m.dir === "in" && m.msg?.method);
  const first = sent[0]?.msg;
  return {
    start: head.start,
    env: head.env ?? [],
    messages,
    first: first ? { method: first.method, revision: revision(first) } : null,
    methods: [...new Set(sent.map((m) => m.msg.method))],
    errors: messages.filter((m) => m.dir === "out" && m.msg?.error).map((m) => m.msg.error.message),
  };
}

// revision returns the protocol revision a request asks for: initialize's
// protocolVersion, or a 2026-07-28 request's own in its _meta.
function revision(msg) {
  return msg.params?.protocolVersion ?? msg.params?._meta?.["io.modelcontextprotocol/protocolVersion"] ?? null;
}

// timings returns, in milliseconds: listed, from startedAt (the host's
// start) to the server's answer to the first tools/list; calls, each
// tools/call's time from request to answer; and their median and max.
export function timings(tap, startedAt) {
  const asked = new Map();
  let listed;
  const calls = [];
  for (const { at, dir, msg } of tap.messages) {
    if (!msg) continue;
    if (dir === "in" && msg.method && msg.id !== undefined) asked.set(JSON.stringify(msg.id), { at, method: msg.method });
    if (dir !== "out" || msg.id === undefined) continue;
    const req = asked.get(JSON.stringify(msg.id));
    if (req?.method === "tools/list" && listed === undefined) listed = at - startedAt;
    if (req?.method === "tools/call") calls.push(at - req.at);
  }
  const sorted = calls.toSorted((a, b) => a - b);
  return { listed, calls, median: sorted[Math.floor(sorted.length / 2)], max: sorted.at(-1) };
}

// printTimes prints, per host, the time from its start to the tools listed
// and the tools/call times on the wire, for the server and examples/hello,
// with their ratios. No check reads them: a shared machine's times vary.
export function printTimes(rows) {
  const ms = (x) => (x === undefined ? "-" : x < 10 ? `${x.toFixed(2)} ms` : `${x.toFixed(0)} ms`);
  const ratio = (a, b) => (a === undefined || b === undefined || b === 0 ? "-" : (a / b).toFixed(2));
  console.log("\n== times: start to tools listed, and tools/call on the wire (median, max): server | examples/hello | ratio");
  for (const { host, server: s, hello: h } of rows) {
    console.log(
      `${host.padEnd(12)} listed ${ms(s?.listed)} | ${ms(h?.listed)} | ${ratio(s?.listed, h?.listed)}` +
        `   call ${ms(s?.median)}, ${ms(s?.max)} | ${ms(h?.median)}, ${ms(h?.max)} | ${ratio(s?.median, h?.median)}`,
    );
  }
}
