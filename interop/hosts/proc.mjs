// proc.mjs runs the hosts' commands: each in a process group of its own,
// bounded in time, and stopped by its group's id, so that a host and every
// server it started end together, whatever the host does with its children.

import { spawn } from "node:child_process";

// run runs command with args and resolves to { status, signal, stdout,
// stderr, ms, timedOut } once it has ended, or once timeout milliseconds
// have passed, when its process group gets SIGTERM, then SIGKILL 3 s later.
// opts: env (the whole environment: nothing is inherited), cwd, input (its
// stdin, else none), timeout, onStart(pid, startedAt).
export function run(command, args, { env, cwd, input, timeout = 120_000, onStart } = {}) {
  return new Promise((resolve) => {
    const started = performance.timeOrigin + performance.now();
    const child = spawn(command, args, { env, cwd, detached: true, stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    onStart?.(child.pid, started);
    const out = [];
    const err = [];
    child.stdout.on("data", (c) => out.push(c));
    child.stderr.on("data", (c) => err.push(c));
    if (input !== undefined) child.stdin.end(input);
    let timedOut = false;
    let kill;
    const timer = setTimeout(() => {
      timedOut = true;
      stopGroup(child.pid, "SIGTERM");
      kill = setTimeout(() => stopGroup(child.pid, "SIGKILL"), 3000);
    }, timeout);
    child.on("error", (e) => err.push(Buffer.from(String(e))));
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      clearTimeout(kill);
      // Whatever the host left running in its group (a server it did not
      // stop) ends with it.
      stopGroup(child.pid, "SIGKILL");
      resolve({
        status,
        signal,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        ms: performance.timeOrigin + performance.now() - started,
        timedOut,
      });
    });
  });
}

// stopGroup sends signal to the process group pid leads, if it is still there.
function stopGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}
