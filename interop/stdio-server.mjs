// stdio-server.mjs lets a check see how a server that a client started over
// stdio ended, whatever the client does with the server's stderr (keeps it,
// inherits it, closes it early) and however it stops it (closing stdin, or
// SIGTERM).
//
// Run as a program, it is the command the client starts:
//
//	node stdio-server.mjs DIR COMMAND [ARG...]
//
// runs COMMAND on the client's stdin and stdout with its stderr written to
// a file of its own in DIR (a client may start the command more than once:
// the TypeScript SDK v2's probes with server/discover on a sibling process),
// passes SIGTERM and SIGINT on to it, and when it ends appends the line
// "stdio-server: exit status N" (or "signal NAME") and exits the same way.
//
// Imported, stdioServer(binary) gives that command line for a client's
// configuration, and expectStopped checks the logs afterwards;
// closeAndExit ends a client script with that check.

import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, watch, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "./check.mjs";

const self = fileURLToPath(import.meta.url);
const statusLine = /^stdio-server: (exit status \d+|signal \w+)$/;

// stdioServer returns how a client starts binary (with args) over stdio so
// that the check can read each server's stderr and exit status: command and
// args for the client's configuration, then log, ends, ended,
// expectStopped, and remove, which deletes the logs.
export function stdioServer(binary, args = []) {
  const dir = mkdtempSync(join(tmpdir(), "mcp-hello-tools-stdio-"));
  const logs = () => readdirSync(dir).sort().map((name) => readFileSync(join(dir, name), "utf8"));
  return {
    command: process.execPath,
    args: [self, dir, binary, ...args],
    // log returns the stderr of every server started so far, in order.
    log: () => logs().join(""),
    // ends tells how each server started with this command line ended, in
    // order: status, the line "exit status N" or "signal NAME" (undefined
    // while it runs), last, its last log line before that, and tail, the
    // end of its log.
    ends: () =>
      logs().map((log) => {
        const lines = log.trimEnd().split("\n");
        const ended = statusLine.exec(lines.at(-1));
        return {
          status: ended?.[1],
          last: ended ? (lines.at(-2) ?? "") : lines.at(-1),
          tail: lines.slice(-4).join("\n"),
        };
      }),
    // ended resolves once every server started with this command line has
    // ended (a client may stop one with SIGTERM and not wait for it), and
    // rejects if one has not within timeout milliseconds.
    ended(timeout = 10_000) {
      const done = () => this.ends().every((e) => e.status);
      return new Promise((resolve, reject) => {
        const watcher = watch(dir, () => done() && finish(resolve));
        const timer = setTimeout(() => {
          const tail = this.ends().find((e) => !e.status)?.tail;
          finish(() => reject(new Error(`a server was still running ${timeout / 1000} s after the client closed; its log ends:\n${tail}`)));
        }, timeout);
        const finish = (settle) => {
          watcher.close();
          clearTimeout(timer);
          settle();
        };
        if (done()) finish(resolve);
      });
    },
    // expectStopped checks, once each has ended, that every server started
    // with this command line ended with status 0, its last log line
    // msg=stopped. It returns how many there were.
    async expectStopped() {
      await this.ended();
      const ends = this.ends();
      expect(ends.length > 0, "the client started no server");
      for (const { status, last, tail } of ends) {
        expect(status === "exit status 0", `a server ended with ${status}; its log ends:\n${tail}`);
        expect(/\bmsg=stopped\b/.test(last), `a server's last log line is not msg=stopped: ${last}`);
      }
      return ends.length;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

// closeAndExit ends a client script: it runs the close check, close being
// the client's own, named what over stdio (server set) and what's part
// before its ":" over HTTP, where there is no server to watch; prints the
// servers' stderr if any check failed; removes the logs; and exits 1 if
// any check failed, else 0. check and failed are checker()'s.
export async function closeAndExit({ check, failed }, server, what, close) {
  await check(server ? what : what.split(":")[0], async () => {
    await close();
    await server?.expectStopped();
  });
  if (failed() && server?.log()) {
    console.log(`server stderr:\n${server.log()}`);
  }
  server?.remove();
  process.exit(failed() ? 1 : 0);
}

if (process.argv[1] === self) {
  const [dir, command, ...args] = process.argv.slice(2);
  // Named so that the logs sort in the order the servers started.
  const log = openSync(join(dir, `${process.hrtime.bigint().toString().padStart(20, "0")}-${process.pid}`), "a");
  const child = spawn(command, args, { stdio: ["inherit", "inherit", log] });
  for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => child.kill(signal));
  child.on("error", (err) => {
    writeSync(log, `stdio-server: ${err.message}\n`);
    process.exit(1);
  });
  child.on("exit", (code, signal) => {
    writeSync(log, `stdio-server: ${signal ? `signal ${signal}` : `exit status ${code}`}\n`);
    closeSync(log);
    process.exit(code ?? 1);
  });
}
