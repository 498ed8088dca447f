// tap.mjs stands between a host and a stdio server in the runs that
// measure: it passes every line both ways and records, in a file of its
// own, what the host passed the server (the names of its environment
// variables), each line with the time it went by, and how it ended.
//
//	node tap.mjs [-decoy NAME] LOG COMMAND [ARG...]
//	node tap.mjs -silent LOG
//
// LOG gets one JSON object a line: first {"start", "env": [names]}, then
// {"at", "dir": "in"|"out", "line"} per message (in: host to server), then
// {"at", "end": why}. at is in milliseconds since the Unix epoch, to the
// microsecond, as the harness notes the host's start.
//
// -decoy NAME adds a tool NAME, which the server does not have, to the
// tools/list result the host gets: a host refuses to call a tool it was not
// given, so this is how a call reaches the server for its JSON-RPC error
// ("unknown tool"). Every other line passes unchanged. -silent is a server
// that never answers: how long a host waits for one.
//
// The runs that check what the model is shown start the server exactly as
// config prints it, without this.

import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { createInterface } from "node:readline";

// now is the time in milliseconds since the Unix epoch, to the microsecond.
const now = () => performance.timeOrigin + performance.now();

const argv = process.argv.slice(2);
let decoy = null;
let silent = false;
if (argv[0] === "-decoy") [, decoy] = argv.splice(0, 2);
else if (argv[0] === "-silent") silent = Boolean(argv.shift());
const [log, command, ...args] = argv;
const record = (entry) => appendFileSync(log, JSON.stringify(entry) + "\n");
record({ start: now(), env: Object.keys(process.env).sort() });

const lines = (input, fn) => createInterface({ input, crlfDelay: Infinity }).on("line", fn);
const end = (why, code) => {
  record({ at: now(), end: why });
  process.exit(code);
};
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => (server ? server.kill(signal) : end(signal, 0)));

const server = silent ? null : spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
lines(process.stdin, (line) => {
  record({ at: now(), dir: "in", line });
  server?.stdin.write(line + "\n");
});
process.stdin.on("end", () => (server ? server.stdin.end() : end("end of input", 0)));
if (server) {
  server.stdin.on("error", () => {}); // a server gone: its exit says so
  lines(server.stdout, (line) => {
    const out = decoy ? withDecoy(line) : line;
    record({ at: now(), dir: "out", line: out });
    process.stdout.write(out + "\n");
  });
  server.on("exit", (code, signal) => end(signal ?? `exit status ${code}`, code ?? 1));
}

// withDecoy returns line with the decoy tool added, if it is a tools/list
// result: a tool that takes no arguments, with the annotations of the
// server's first tool (Codex asks to approve a call of a tool not marked
// read-only, and refuses it when it may not ask).
function withDecoy(line) {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch {
    return line;
  }
  const tools = msg?.result?.tools;
  if (!Array.isArray(tools)) return line;
  const { annotations } = tools[0] ?? {};
  tools.push({ name: decoy, description: "A tool this server does not have.", inputSchema: { type: "object", properties: {} }, annotations });
  return JSON.stringify(msg);
}
