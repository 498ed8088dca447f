// offers.mjs asks a stdio MCP server what it offers, as a host does first:
// the capabilities of its initialize result and the tools of its
// tools/list. The checks of interop/ compare what a client or a host saw
// with the server's own answer, not with a list written here, so that a
// tool or a capability a learner adds (exercises/) is checked, not refused.
//
//	node interop/offers.mjs BINARY   # prints {"capabilities": {…}, "tools": […]}
//
// and a line on stderr that names them.
//
// interop/run prints it once to a file, named by INTEROP_OFFERS for every
// client check (calls.mjs reads it).

import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

// serverOffers runs binary, sends initialize, notifications/initialized and
// tools/list, and returns { capabilities, serverInfo, tools }. Its input ends only
// then: go-sdk's own stdio transport (examples/hello) drops the replies
// still to come when its input ends.
export function serverOffers(binary, timeout = 30_000) {
  const lines = [
    { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "interop-offers", version: "1.0.0" } } },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(binary, [], { stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    let capabilities = null;
    let serverInfo = null;
    let tools = null;
    const timer = setTimeout(() => child.kill("SIGKILL"), timeout);
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    createInterface({ input: child.stdout }).on("line", (line) => {
      try {
        const msg = JSON.parse(line);
        if (msg.id === 1) ({ capabilities = null, serverInfo = null } = msg.result ?? {});
        if (msg.id === 2 && Array.isArray(msg.result?.tools)) {
          tools = msg.result.tools;
          child.stdin.end();
        }
      } catch {
        // not a message: the check below says what came
      }
    });
    child.on("close", (status) => {
      clearTimeout(timer);
      if (capabilities && tools) resolve({ capabilities, serverInfo, tools });
      else reject(new Error(`${binary} answered no initialize and tools/list (exit status ${status}): ${stderr.slice(-1000)}`));
    });
    child.stdin.write(lines.map((l) => JSON.stringify(l) + "\n").join(""));
  });
}

// readOffers reads the file INTEROP_OFFERS names, which interop/run writes.
export function readOffers() {
  const file = process.env.INTEROP_OFFERS;
  if (!file) {
    throw new Error("INTEROP_OFFERS names no file: interop/run sets it; by hand, run node interop/offers.mjs BINARY > FILE first");
  }
  return JSON.parse(readFileSync(file, "utf8"));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const binary = process.argv[2];
  if (!binary) {
    console.error("usage: node interop/offers.mjs BINARY");
    process.exit(2);
  }
  try {
    const offers = await serverOffers(binary);
    console.log(JSON.stringify(offers, null, 2));
    console.error(`capabilities: ${Object.keys(offers.capabilities).join(", ")}; tools: ${offers.tools.map((t) => t.name).join(", ")}`);
  } catch (err) {
    console.error(`offers.mjs: ${err.message}`);
    process.exit(1);
  }
}
