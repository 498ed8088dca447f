// calls.mjs lists the tools/call requests the client checks make, with what
// each must return. client.mjs makes them all; the clients checked in several
// modes make the first call of each tool (firstOfEach).

import { expect } from "./check.mjs";

// valid lists calls that succeed; want checks the result's structuredContent
// (or, for echo, its text).
export const valid = [
  ["echo", { message: 'héllo\n"world" \u2028 🎉' }, (r) => r.content[0].text === 'héllo\n"world" \u2028 🎉'],
  ["echo", { message: "" }, (r) => r.content[0].text === ""],
  ["get_timestamp", {}, (r) => r.structuredContent.format === "iso8601" && r.structuredContent.timezone === "UTC"],
  ["get_timestamp", { format: "unix", timezone: "Europe/Paris" }, (r) => r.structuredContent.timestamp === String(r.structuredContent.unix)],
  ["get_timestamp", { format: "human", timezone: "Asia/Kolkata" }, (r) => r.structuredContent.utc_offset === "+05:30"],
  ["get_timestamp", { format: "iso8601", timezone: "America/New_York" }, (r) => /^\d{4}-\d\d-\d\dT/.test(r.structuredContent.timestamp)],
  ["calculate", { expression: "2 * (3 + 4.5) ^ 2" }, (r) => r.structuredContent.result === 112.5 && r.structuredContent.parsed === "(2 * ((3 + 4.5) ^ 2))"],
  ["calculate", { expression: "-2^2" }, (r) => r.structuredContent.result === -4],
  ["calculate", { expression: "2^3^2" }, (r) => r.structuredContent.result === 512],
  ["calculate", { expression: "10 - 4 - 3" }, (r) => r.structuredContent.result === 3],
];

// invalid lists calls whose arguments are wrong: each is a tool result with
// isError set and a text that names the problem, never a JSON-RPC error.
export const invalid = [
  ["echo", {}, "message"],
  ["echo", { message: 42 }, "message"],
  ["echo", { message: "a", volume: 11 }, "volume"],
  ["calculate", {}, "expression"],
  ["calculate", { expression: ["1"] }, "expression"],
  ["calculate", { expression: "2 * (3 + )" }, "column 10"],
  ["calculate", { expression: "1/0" }, "division by zero"],
  ["get_timestamp", { format: "rfc822" }, "rfc822"],
  ["get_timestamp", { timezone: "Mars/Olympus" }, "Mars/Olympus"],
  ["get_timestamp", { zone: "UTC" }, "zone"],
];

// firstOfEach keeps the first call of each tool in calls.
export function firstOfEach(calls) {
  const seen = new Set();
  return calls.filter(([tool]) => !seen.has(tool) && seen.add(tool));
}

// show renders arguments for a check's name, on one line.
export const show = (args) =>
  JSON.stringify(args).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);

// expectValid checks the result of a call from valid.
export function expectValid(res, want) {
  expect(!res.isError, `isError: ${res.content?.[0]?.text}`);
  expect(want(res), `unexpected result ${JSON.stringify(res)}`);
}

// expectToolError checks the result of a call from invalid: isError set, and
// a text that mentions wantText.
export function expectToolError(res, wantText) {
  expect(res.isError === true, `isError is ${res.isError}: ${JSON.stringify(res)}`);
  const text = res.content?.[0]?.text ?? "";
  expect(text.includes(wantText), `text ${JSON.stringify(text)} does not mention ${wantText}`);
}
