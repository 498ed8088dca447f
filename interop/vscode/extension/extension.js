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
// It starts nothing before VS Code holds a definition of each server the
// job names in defined: at onStartupFinished VS Code may not have read
// .vscode/mcp.json yet, and Start Server starts only the servers VS Code
// holds, asking nothing for those it has yet to read (the likeliest cause
// of a CI run on a busy machine where no trust dialog came). VS Code says so through
// vscode.lm.mcpServerDefinitions and its change event, a proposed API
// ("mcpServerDefinitions" in package.json; run.mjs starts code-server with
// --enable-proposed-api for this extension).
//
// The job is the JSON file that MCP_HELLO_TOOLS_VSCODE_JOB names (VS Code
// passes its environment to the extension host): {report, servers, calls,
// times, defined}. report is the harness's URL on 127.0.0.1; servers, the VS Code
// definition ids of the servers to start ("*": all); calls lists {label,
// server, tool, arguments}, server the key in mcp.json; times, {rounds,
// servers}: how often to stop and start each of those servers alone, timing
// each start until its tools are live; show, the id of a server whose
// mcp.json entry and output to show; defined, the keys of the workspace's
// mcp.json, each a definition's label. Without the variable the extension
// does nothing.

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
// server), as Start Server does, and resolves once their tools are live;
// it returns the milliseconds it took.
async function start(servers) {
  const t0 = performance.now();
  for (const id of servers) await vscode.commands.executeCommand("workbench.mcp.startServer", id, { waitForLiveTools: true });
  return performance.now() - t0;
}

// defined resolves once VS Code holds a server definition labelled with
// each of labels, and returns the labels it holds.
function defined(labels) {
  const held = () => vscode.lm.mcpServerDefinitions.map((d) => d.label);
  return new Promise((resolve) => {
    const check = () => {
      if (!labels.every((l) => held().includes(l))) return;
      changed.dispose();
      resolve(held());
    };
    const changed = vscode.lm.onDidChangeMcpServerDefinitions(check);
    check();
  });
}

async function run(job) {
  const definitions = await defined(job.defined ?? []);
  const report = { definitions, started: await start(job.servers ?? ["*"]), results: {}, times: {} };
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
      const name = id.slice(id.lastIndexOf(".") + 1);
      (report.times[name] ??= []).push(await start([id]));
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
