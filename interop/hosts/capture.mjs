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

// differences lists the paths at which a and b differ, with b's value.
export function differences(a, b, path = "") {
  if (isDeepStrictEqual(a, b)) return [];
  if (a && b && typeof a === "object" && typeof b === "object" && Array.isArray(a) === Array.isArray(b)) {
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].flatMap((k) => differences(a[k], b[k], `${path}.${k}`));
  }
  return [`${path || "."}: ${JSON.stringify(a)?.slice(0, 200)} → ${JSON.stringify(b)?.slice(0, 200)}`];
}
