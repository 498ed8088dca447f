// hosts.mjs is what the harness knows of each host: its npm package, how
// it runs headless against the scripted model with every non-essential
// network call off, how it takes the configuration that "config HOST"
// prints, and what in its transcript says that the server connected.
// docs/hosts.md says why each setting is there.
//
// Each host's env is the environment beside the harness's own (PATH,
// HOME, LANG, TERM, SHELL, CI, and those that stand for the rest of a
// user's shell: run.mjs, userEnv): nothing else is inherited, so that the
// variables a host passes the server are the same on every machine. url is the scripted model's. patience is what the host needs,
// beside env, to wait for a server that starts slowly on a loaded machine:
// every conversation gets it but the one that measures the host's own wait.
//
// revisions, for a host that speaks both, lists what it asks for by
// default, then the other revision and the settings that choose it: env
// (the host's), features (Codex's config.toml), serverEnv (the server's
// env in the host's configuration). Each is run, and its first message
// checked.

import { mkdirSync, readFileSync, symlinkSync, writeFileSync, appendFileSync } from "node:fs";
import { join } from "node:path";

export const serverKey = "hello-tools"; // as config prints it

// readJSON returns the JSON in file, or {} if there is none yet.
function readJSON(file) {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return {};
  }
}

// events parses a transcript of one JSON object a line, skipping others.
function events(stdout) {
  return stdout.split("\n").flatMap((line) => {
    try {
      return [JSON.parse(line)];
    } catch {
      return [];
    }
  });
}

export const hosts = [
  {
    name: "claude-code",
    title: "Claude Code",
    package: "@anthropic-ai/claude-code",
    command: "claude",
    protocol: "anthropic",
    toolName: (tool) => `mcp__${serverKey}__${tool}`,
    // MCP tools are deferred behind ToolSearch, unless ENABLE_TOOL_SEARCH=false.
    // The model selects every tool the request names as deferred.
    search: {
      deferred: (body) => (body.tools ?? []).some((t) => t.name === "ToolSearch"),
      tool: "ToolSearch",
      arguments: (body) => ({
        query: "select:" + [...new Set(JSON.stringify(body.messages).match(new RegExp(`mcp__${serverKey}__\\w+`, "g")))].join(","),
      }),
    },
    env: (url) => ({
      ANTHROPIC_BASE_URL: url,
      ANTHROPIC_API_KEY: "sk-scripted",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
    }),
    // With -p it asks the model after about 2 s whether the server has
    // answered or not; this makes it wait for it (up to 60 s).
    patience: { CLAUDE_CODE_MCP_STARTUP_WAIT_MS: "60000" },
    revisions: [{ revision: "2026-07-28" }, { revision: "2025-11-25", env: { MCP_PROTOCOL_NEGOTIATION: "legacy" } }],
    // Each variant is run as the first conversation is, and with the probe;
    // a probeOnly one only with the probe.
    variants: {
      "tool-search-off": { env: { ENABLE_TOOL_SEARCH: "false" } },
      "description-length": { env: { CLAUDE_CODE_MAX_MCP_DESCRIPTION_LENGTH: "1000" }, probeOnly: true },
    },
    setup() {},
    // config prints a claude mcp add command: run it, in a shell, as printed.
    install: (home, printed) => ({ shell: printed.trim() }),
    list: { args: ["mcp", "list"], connected: new RegExp(`^${serverKey}: .*✔ Connected`, "m") },
    args: (prompt) => ["-p", prompt, "--allowedTools", `mcp__${serverKey}`, "--output-format", "stream-json", "--verbose"],
    connected: (stdout) =>
      events(stdout).some((e) => e.type === "system" && e.subtype === "init" && e.mcp_servers?.some((s) => s.name === serverKey && s.status === "connected")),
  },
  {
    name: "codex",
    title: "Codex",
    package: "@openai/codex",
    command: "codex",
    protocol: "responses",
    toolName: (tool) => `mcp__${serverKey.replaceAll("-", "_")} ${tool}`,
    naming: `TOOL in namespace mcp__${serverKey.replaceAll("-", "_")}`,
    namespace: `mcp__${serverKey.replaceAll("-", "_")}`,
    // Its default model gets MCP tools deferred: a namespace named in the
    // developer message, loaded by a tool_search_call.
    search: {
      deferred: (body) => JSON.stringify(body.input ?? []).includes("Deferred tool namespaces"),
      tool: "tool_search",
      arguments: () => ({ query: serverKey, limit: 8 }),
    },
    env: () => ({ SCRIPTED_API_KEY: "sk-scripted", RUST_BACKTRACE: "0" }),
    // Both settings are needed: either alone still sends initialize.
    revisions: [
      { revision: "2025-06-18" },
      { revision: "2026-07-28", features: { mcp_2026_07_28: true }, serverEnv: { CODEX_MCP_PROTOCOL_VERSION: "2026-07-28" } },
    ],
    // ~/.codex/config.toml: the scripted model as the provider, no update
    // check, no plugins (a git ls-remote otherwise), no approvals asked;
    // and the features a revision asks for.
    setup(home, url, cache, { features = {} } = {}) {
      mkdirSync(join(home, ".codex"));
      writeFileSync(
        join(home, ".codex", "config.toml"),
        [
          'model_provider = "scripted"',
          'approval_policy = "never"',
          'sandbox_mode = "read-only"',
          "check_for_update_on_startup = false",
          "",
          "[model_providers.scripted]",
          'name = "scripted"',
          `base_url = "${url}/v1"`,
          'wire_api = "responses"',
          'env_key = "SCRIPTED_API_KEY"',
          "",
          "[features]",
          "plugins = false",
          ...Object.entries(features).map(([k, v]) => `${k} = ${JSON.stringify(v)}`),
          "",
          "",
        ].join("\n"),
      );
    },
    // A tool without annotations (readOnlyHint…) needs approval, which
    // approval_policy "never" refuses: "MCP tool call requires approval, but
    // approval policy is never". examples/hello's greet has none, so its
    // conversation approves the server's tools in its table.
    unannotated: { serverTable: { default_tools_approval_mode: "approve" } },
    // config prints a TOML table: add it to config.toml, with the keys a
    // conversation adds to it, and the server's env a revision asks for in
    // its env table.
    install(home, printed, { serverEnv, serverTable = {} } = {}) {
      const keys = Object.entries(serverTable).map(([k, v]) => `${k} = ${JSON.stringify(v)}\n`);
      let table = printed.replace(`[mcp_servers.${serverKey}]\n`, (header) => header + keys.join(""));
      if (serverEnv) {
        const header = `[mcp_servers.${serverKey}.env]`;
        const lines = Object.entries(serverEnv).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join("\n");
        table = table.includes(header) ? table.replace(header, `${header}\n${lines}`) : `${table}\n${header}\n${lines}\n`;
      }
      appendFileSync(join(home, ".codex", "config.toml"), table);
    },
    // codex mcp list only reads the configuration: it must find the server.
    list: { args: ["mcp", "list"], connected: new RegExp(`^${serverKey}\\s`, "m") },
    args: (prompt) => ["exec", "--json", "--skip-git-repo-check", prompt],
    connected: (stdout) =>
      events(stdout).some((e) => e.item?.type === "mcp_tool_call" && e.item.server === serverKey && e.item.status === "completed"),
  },
  {
    name: "gemini",
    title: "Gemini CLI",
    package: "@google/gemini-cli",
    command: "gemini",
    protocol: "gemini",
    toolName: (tool) => `mcp_${serverKey}_${tool}`,
    search: null,
    env: (url) => ({ GOOGLE_GEMINI_BASE_URL: url, GEMINI_API_KEY: "scripted", GEMINI_CLI_TRUST_WORKSPACE: "true" }),
    // Longer than a run waits to measure it.
    wait: { seconds: 600, how: "MCP_DEFAULT_TIMEOUT_MSEC in its source (a server's \"timeout\", in ms, sets it)" },
    // An API key, not the gateway its base URL selects (refused with -p);
    // no usage statistics, telemetry or update.
    setup(home) {
      mkdirSync(join(home, ".gemini"));
      writeFileSync(
        join(home, ".gemini", "settings.json"),
        JSON.stringify({
          security: { auth: { selectedType: "gemini-api-key" } },
          privacy: { usageStatisticsEnabled: false },
          general: { enableAutoUpdate: false },
          telemetry: { enabled: false },
        }),
      );
    },
    // config prints {"mcpServers": …}: merge it into settings.json.
    install(home, printed) {
      const file = join(home, ".gemini", "settings.json");
      const settings = readJSON(file);
      settings.mcpServers = { ...settings.mcpServers, ...JSON.parse(printed).mcpServers };
      writeFileSync(file, JSON.stringify(settings, null, 2));
    },
    list: { args: ["mcp", "list"], connected: new RegExp(`${serverKey}: .*- Connected`, "m") },
    args: (prompt) => ["-p", prompt, "--yolo", "--output-format", "stream-json"],
    connected: (stdout) =>
      events(stdout).some((e) => e.type === "tool_result" && e.status === "success" && e.tool_id?.startsWith(`mcp_${serverKey}_`)),
  },
  {
    name: "copilot",
    title: "Copilot CLI",
    package: "@github/copilot",
    command: "copilot",
    protocol: "chat",
    toolName: (tool) => `${serverKey}-${tool}`,
    search: null,
    env: (url) => ({
      COPILOT_OFFLINE: "true",
      COPILOT_PROVIDER_BASE_URL: `${url}/v1`,
      COPILOT_PROVIDER_TYPE: "openai",
      COPILOT_PROVIDER_API_KEY: "sk-scripted",
      COPILOT_MODEL: "scripted",
    }),
    // Its first run unpacks 245 MB into ~/.cache/copilot: one folder for
    // every run.
    setup(home, url, cache) {
      mkdirSync(join(cache, "copilot"), { recursive: true });
      mkdirSync(join(home, ".cache"));
      symlinkSync(join(cache, "copilot"), join(home, ".cache", "copilot"));
    },
    // config prints {"mcpServers": …} for ~/.copilot/mcp-config.json.
    install(home, printed) {
      mkdirSync(join(home, ".copilot"), { recursive: true });
      const file = join(home, ".copilot", "mcp-config.json");
      const config = readJSON(file);
      config.mcpServers = { ...config.mcpServers, ...JSON.parse(printed).mcpServers };
      writeFileSync(file, JSON.stringify(config, null, 2));
    },
    args: (prompt) => ["-p", prompt, "--allow-all-tools", "--output-format", "json", "--disable-builtin-mcps"],
    connected: (stdout) =>
      events(stdout).some((e) => e.type === "session.mcp_server_status_changed" && e.data?.serverName === serverKey && e.data.status === "connected"),
  },
];
