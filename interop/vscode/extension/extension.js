// extension.js is the test extension interop/vscode/run.mjs installs in a
// scratch VS Code: it does what Copilot Chat does with an MCP server, with
// no Copilot and no model. It starts the servers of the workspace's
// .vscode/mcp.json with VS Code's own command (what "MCP: List Servers →
// Start Server" runs), reads the tools VS Code made of them
// (vscode.lm.tools, tag "mcp"), calls each as the job says through
// vscode.lm.invokeTool, and posts what came back to the harness: the
// LanguageModelToolResult a call returns is what Copilot Chat hands its
// model.
//
// Start Server starts the servers VS Code has made when it runs, and asks
// nothing for the others. VS Code makes them from .vscode/mcp.json on
// timers of its own (it reads the file, then makes its servers 500 ms
// after any change) and tells an extension nothing when it has: at
// onStartupFinished on a busy machine it may not have yet (CI, twice: no
// trust dialog came; an HTTP server was never asked for anything). So the
// extension runs Start Server again, VS Code's 500 ms apart, until each
// server it starts has tools, and reports how many tries it took.
//
// The job is the JSON file that MCP_HELLO_TOOLS_VSCODE_JOB names (VS Code
// passes its environment to the extension host): {report, servers, calls,
// times, show, keys}. report is the harness's URL on 127.0.0.1; servers, the VS Code
// definition ids of the servers to start ("*": all); calls lists {label,
// server, tool, arguments}, server the key in mcp.json; times, {rounds,
// servers}: how often to stop and start each of those servers alone, timing
// each start until its tools are live; show, the id of a server whose
// mcp.json entry and output to show; keys, the keys of the workspace's
// mcp.json, whose tools a start of every server ("*") waits for. Without
// the variable the extension does nothing.

const vscode = require("vscode");
const { readFileSync } = require("node:fs");

exports.activate = function activate() {
  const file = process.env.MCP_HELLO_TOOLS_VSCODE_JOB;
  if (!file) return;
  const job = JSON.parse(readFileSync(file, "utf8"));
  run(job).then(
    (report) => post(job.report, report),
    (err) => post(job.report, { error: String(err?.stack ?? err) }),
  );
};

exports.deactivate = function deactivate() {};

// post sends value to the harness as JSON.
async function post(url, value) {
  await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(value) });
}

// start starts the servers VS Code's definition ids name ("*": every
// server, keys those of mcp.json), as Start Server does, and resolves once
// their tools are live, trying again while VS Code has yet to make a
// server (above); it returns the milliseconds it took and the tries.
async function start(servers, keys) {
  const t0 = performance.now();
  const wanted = servers.flatMap((id) => (id === "*" ? keys : [keyOf(id)]));
  const live = (k) => vscode.lm.tools.some((t) => t.tags.includes("mcp") && t.fullReferenceName?.startsWith(`${k}/`));
  for (let tries = 1; ; tries++) {
    for (const id of servers) await vscode.commands.executeCommand("workbench.mcp.startServer", id, { waitForLiveTools: true });
    if (wanted.every(live) || tries === maxTries) return { ms: performance.now() - t0, tries };
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

// maxTries bounds the tries: 30 s of VS Code's 500 ms.
const maxTries = 60;

// keyOf returns the mcp.json key of a VS Code definition id
// (mcp.config.ws0.KEY).
const keyOf = (id) => id.slice(id.lastIndexOf(".") + 1);

async function run(job) {
  const report = { started: await start(job.servers ?? ["*"], job.keys ?? []), results: {}, times: {} };
  report.tools = vscode.lm.tools.filter((t) => t.tags.includes("mcp")).map((t) => JSON.parse(JSON.stringify(t)));
  for (const call of job.calls ?? []) {
    report.results[call.label] = await invoke(call);
  }
  // What a user sees: the server's entry in mcp.json, with the state and
  // tool count VS Code writes above it, and the server's output.
  if (job.show) {
    await vscode.commands.executeCommand("notifications.clearAll");
    await vscode.commands.executeCommand("workbench.action.closeAuxiliaryBar");
    const folder = vscode.workspace.workspaceFolders[0].uri;
    await vscode.window.showTextDocument(vscode.Uri.joinPath(folder, ".vscode", "mcp.json"));
    await vscode.commands.executeCommand("workbench.mcp.showOutput", job.show);
  }
  // The times: each server started alone, in turn, rounds times.
  for (let i = 0; i < (job.times?.rounds ?? 0); i++) {
    for (const id of job.times.servers) {
      await vscode.commands.executeCommand("workbench.mcp.stopServer", id);
      (report.times[keyOf(id)] ??= []).push((await start([id], [])).ms);
    }
  }
  return report;
}

// invoke calls the tool that VS Code made of call.tool, and returns the
// result's parts as plain JSON, or the error VS Code threw.
async function invoke(call) {
  const ref = `${call.server ?? "hello-tools"}/${call.tool}`;
  const tool = vscode.lm.tools.find((t) => t.tags.includes("mcp") && t.fullReferenceName === ref);
  if (!tool) return { error: `no tool ${ref} among ${vscode.lm.tools.map((t) => t.fullReferenceName).join(", ")}` };
  try {
    const result = await vscode.lm.invokeTool(tool.name, { input: call.arguments, toolInvocationToken: undefined });
    return { tool: tool.name, content: result.content.map(part) };
  } catch (err) {
    return { tool: tool.name, error: String(err?.message ?? err), name: err?.name };
  }
}

// part returns one part of a LanguageModelToolResult as plain JSON.
function part(p) {
  if (p instanceof vscode.LanguageModelTextPart) return { type: "text", value: p.value };
  if (p instanceof vscode.LanguageModelDataPart) {
    return { type: "data", mimeType: p.mimeType, data: Buffer.from(p.data).toString(p.mimeType.startsWith("text/") || p.mimeType.includes("json") ? "utf8" : "base64") };
  }
  if (p instanceof vscode.LanguageModelPromptTsxPart) return { type: "prompt-tsx", value: p.value };
  return { type: p?.constructor?.name ?? typeof p, value: JSON.parse(JSON.stringify(p)) };
}
