// capture.mjs makes a host's capture comparable from run to run, and
// compares it with the committed one.

import { isDeepStrictEqual } from "node:util";

// normalize replaces what changes from run to run (times, the clock's
// values) in value, a capture's part, with a fixed text.
export function normalize(value) {
  return JSON.parse(
    JSON.stringify(value)
      .replace(/Wall time: [0-9.]+ seconds/g, "Wall time: 0.0000 seconds")
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)/g, "2026-12-01T12:00:00$1")
      .replace(/(?<![0-9.])1\d{9}(?![0-9.])/g, "1796140800"),
  );
}

// listsOfTools replaces, in every string within value, a list of the
// server's tools by the names a host gave them (names), two or more, each
// quoted or not, by "{the server's tools}": a host that refuses a tool it
// was not given may list those it has (Copilot CLI) or suggest a few
// (Gemini CLI), and a tool added to the server must leave the capture as
// it is.
export function listsOfTools(value, names) {
  const one = `"?(?:${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})"?`;
  const list = new RegExp(`${one}(?:, ${one})+`, "g");
  const walk = (v) => {
    if (typeof v === "string") return v.replace(list, "{the server's tools}");
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value);
}

// envNames says which of the host's environment variables reached the
// server, which it kept back, and which it added.
export function envNames(given, got) {
  const names = Object.keys(given);
  return {
    passed: names.filter((n) => got.includes(n)).sort(),
    withheld: names.filter((n) => !got.includes(n)).sort(),
    added: got.filter((n) => !names.includes(n)).sort(),
  };
}

// toolMethods keeps, of the methods a host sent, those of the lifecycle
// and of tools: what else it sends depends on the server's other
// capabilities (Gemini CLI lists resources when the server has them).
export function toolMethods(methods) {
  return methods.filter((m) => !/^(resources|prompts|completion|logging)\//.test(m));
}

// differences lists the paths at which a and b differ, with b's value.
export function differences(a, b, path = "") {
  if (isDeepStrictEqual(a, b)) return [];
  if (a && b && typeof a === "object" && typeof b === "object" && Array.isArray(a) === Array.isArray(b)) {
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].flatMap((k) => differences(a[k], b[k], `${path}.${k}`));
  }
  return [`${path || "."}: ${JSON.stringify(a)?.slice(0, 200)} → ${JSON.stringify(b)?.slice(0, 200)}`];
}

// comparable returns a capture less what may change with nothing changed
// for the model: the host's version (package.json holds the pin) and the
// start limit, whose figure -waits checks on its own, within a margin.
// So is what the model was shown for the call a restart over HTTP held:
// Gemini CLI quotes its whole exchange with the server there, which holds
// what the server offers besides tools (exercise 2's resource changed it);
// docs/http.md's quote of it is checked against the committed capture.
export function comparable(capture) {
  const { version: _, startLimit: __, ...rest } = capture ?? {};
  if (rest.http?.restarted) {
    const { shown: ___, ...restarted } = rest.http.restarted;
    return { ...rest, http: { ...rest.http, restarted } };
  }
  return rest;
}

// What a capture's parts are to the model, in the order changes prints
// them: each a name and the paths (differences' form, ".a.b") it covers.
const groups = [
  ["first message and revision", /^\.(first|revisions)\b/],
  ["methods sent", /^\.methods\b/],
  ["a call's _meta", /^\.callMeta\b/],
  ["over Streamable HTTP", /^\.http\b/],
  ["variables passed", /^\.env\b/],
  ["what the probe learned", /^\.(probe|variants\.[^.:]+\.probe)\b/],
  ["each tool as shown", /^\.(tools|variants)\b/],
  ["each result as shown", /^\.shown\b/],
  ["mcp list", /^\.list\b/],
  ["waits for a server", /^\.startLimit\.seconds\b/],
  ["version", /^\.version\b/],
];

// changes lists what differs between two captures of a host, a line a
// difference, each under what it is to the model (groups); a difference
// the groups do not name comes last, as "other".
export function changes(before, after) {
  const named = differences(before, after)
    .filter((d) => !d.startsWith(".startLimit.how"))
    .map((d) => ({ d, i: groups.findIndex(([, path]) => path.test(d)) }))
    .map(({ d, i }) => ({ d, i: i < 0 ? groups.length : i }));
  return named.sort((a, b) => a.i - b.i).map(({ d, i }) => `${groups[i]?.[0] ?? "other"}: ${d}`);
}
