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
// it, and resolves once both listen, to { url, requests, close }: url is
// the proxy's, requests the host's, in order ({ at, method (HTTP's),
// session (its Mcp-Session-Id, if any), protocolVersion (its
// MCP-Protocol-Version header, if any), status, msg (the JSON-RPC body,
// parsed) }); close stops both and resolves to the server's exit status.
export async function serveHTTP(binary, { timeout = 30_000 } = {}) {
  const server = spawn(binary, ["-http", "127.0.0.1:0"], { stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise((resolve) => server.on("exit", (code, signal) => resolve(signal ?? code)));
  const target = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${binary} -http 127.0.0.1:0 logged no "serving" line in ${timeout} ms`)), timeout);
    createInterface({ input: server.stderr }).on("line", (line) => {
      const url = /msg=serving .*url=(\S+)/.exec(line)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve(new URL(url));
      }
    });
    exited.then((status) => reject(new Error(`${binary} -http 127.0.0.1:0 exited (${status}) before it served`)));
  });
  const requests = [];
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
      requests.push(entry);
      const up = request(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (answer) => {
          entry.status = answer.statusCode;
          res.writeHead(answer.statusCode, answer.headers);
          answer.pipe(res);
        },
      );
      up.on("error", () => res.destroy());
      res.on("close", () => up.destroy()); // the host left: an event stream ends
      up.end(body);
    });
  });
  await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${proxy.address().port}${target.pathname}`;
  const close = async () => {
    proxy.closeAllConnections();
    await new Promise((resolve) => proxy.close(resolve));
    server.kill("SIGTERM");
    return exited;
  };
  return { url, requests, close };
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
