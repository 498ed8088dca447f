// http-tap.mjs serves the server over Streamable HTTP for a host's
// conversation, as a user runs it (-http 127.0.0.1:0), behind a proxy on
// 127.0.0.1 that passes every request and its answer unchanged and
// records what the host sent: tap.mjs's job for a stdio server. The host is
// given the proxy's URL, in the form "config HOST -url URL" prints.

import { spawn } from "node:child_process";
import { createServer, request } from "node:http";
import { createInterface } from "node:readline";

// now is the time in milliseconds since the Unix epoch, as tap.mjs has it.
const now = () => performance.timeOrigin + performance.now();

// serveHTTP starts binary with -http 127.0.0.1:0 and a proxy in front of
// it, and resolves once both listen, to { url, requests, restartedAt,
// close }: url is the proxy's, requests the host's, in order ({ at, method
// (HTTP's), session (its Mcp-Session-Id, if any), protocolVersion (its
// MCP-Protocol-Version header, if any), status, msg (the JSON-RPC body,
// parsed) }); close stops both and resolves to the server's exit status.
// With restartBefore N, the proxy holds the host's Nth tools/call, stops
// the server (SIGTERM, and its exit), starts another, and passes the call
// and all that follows to the new one, which knows no session of the old:
// restartedAt is then the index in requests of the call it held.
export async function serveHTTP(binary, { restartBefore } = {}) {
  let server = await start(binary);
  let ready = Promise.resolve(server);
  let calls = 0;
  const served = { url: null, requests: [], restartedAt: null };
  const proxy = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      const entry = {
        at: now(),
        method: req.method,
        session: req.headers["mcp-session-id"] ?? null,
        protocolVersion: req.headers["mcp-protocol-version"] ?? null,
        status: null,
        msg: parse(body),
      };
      served.requests.push(entry);
      if (entry.msg?.method === "tools/call" && ++calls === restartBefore) {
        served.restartedAt = served.requests.length - 1;
        ready = ready.then(async (old) => {
          old.process.kill("SIGTERM");
          await old.exited;
          server = await start(binary);
          return server;
        });
      }
      ready.then(
        (target) => {
          const up = request(
            { host: target.url.hostname, port: target.url.port, path: req.url, method: req.method, headers: req.headers },
            (answer) => {
              entry.status = answer.statusCode;
              res.writeHead(answer.statusCode, answer.headers);
              answer.pipe(res);
            },
          );
          up.on("error", () => res.destroy());
          res.on("close", () => up.destroy()); // the host left: an event stream ends
          up.end(body);
        },
        () => res.destroy(),
      );
    });
  });
  await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  served.url = `http://127.0.0.1:${proxy.address().port}${server.url.pathname}`;
  served.close = async () => {
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
    const last = await ready.catch(() => server);
    last.process.kill("SIGTERM");
    return last.exited;
  };
  return served;
}

// start starts binary with -http 127.0.0.1:0 and resolves, once it logs
// that it serves, to { process, url (its URL), exited (a promise of its
// exit status, or the signal that ended it) }.
async function start(binary, timeout = 30_000) {
  const child = spawn(binary, ["-http", "127.0.0.1:0"], { stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve(signal ?? code)));
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${binary} -http 127.0.0.1:0 logged no "serving" line in ${timeout} ms`)), timeout);
    createInterface({ input: child.stderr }).on("line", (line) => {
      const served = /msg=serving .*url=(\S+)/.exec(line)?.[1];
      if (served) {
        clearTimeout(timer);
        resolve(new URL(served));
      }
    });
    exited.then((status) => reject(new Error(`${binary} -http 127.0.0.1:0 exited (${status}) before it served`)));
  });
  return { process: child, url, exited };
}

// parse returns body as JSON, or null if it is none.
function parse(body) {
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return null;
  }
}

// sessionOf says what requests, a host's (serveHTTP), show of its
// session: the first JSON-RPC message's method and the revision it asks
// for, whether the host held a session (sent Mcp-Session-Id), whether
// every POST after the first said its revision in the MCP-Protocol-Version
// header, as the specification has clients do from 2025-06-18, and the
// JSON-RPC methods it sent, each once, in order of first use.
export function sessionOf(requests) {
  const sent = requests.filter((r) => r.msg?.method);
  const first = sent[0]?.msg;
  return {
    first: first ? { method: first.method, revision: first.params?.protocolVersion ?? first.params?._meta?.["io.modelcontextprotocol/protocolVersion"] ?? null } : null,
    session: requests.some((r) => r.session !== null),
    versionHeader: sent.slice(1).every((r) => r.protocolVersion !== null),
    methods: [...new Set(sent.map((r) => r.msg.method))],
  };
}
