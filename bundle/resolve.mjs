// resolve.mjs prints, as JSON, the command that Claude Desktop starts for
// the bundle unpacked in DIR, on this platform: the manifest's mcp_config,
// with this platform's platform_overrides entry, ${__dirname} and each
// ${user_config.KEY} resolved by getMcpConfigForManifest of
// @anthropic-ai/mcpb, the code Claude Desktop loads bundles with (that
// package's README says so). Standard input gives what the user entered
// in the extension's settings, as a JSON object of user_config keys (a
// sensitive one Claude Desktop keeps in the system's keychain), or nothing.
// It fails, as Claude Desktop declines to start the server, when a
// required one is missing. The tests in ../bundle_test.go start the
// command it prints. With --config, it prints the command as an
// "mcpServers" file under the manifest's name, the form that the MCP
// Inspector's --config reads (and claude_desktop_config.json has), for a
// client to start the server as Claude Desktop would.
//
// Usage:
//
//	node bundle/resolve.mjs [--config] DIR [< user-config.json]

import { readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { getMcpConfigForManifest } from "@anthropic-ai/mcpb";

const usage = "usage: node bundle/resolve.mjs [--config] DIR [< user-config.json]";
const args = process.argv.slice(2);
const asConfig = args[0] === "--config";
const [dir, ...rest] = asConfig ? args.slice(1) : args;
if (!dir || rest.length > 0) {
  console.error(usage);
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const input = readFileSync(0, "utf8").trim();
const userConfig = input === "" ? {} : JSON.parse(input);
const config = await getMcpConfigForManifest({ manifest, extensionPath: dir, systemDirs: {}, userConfig, pathSeparator: sep });
if (!config) {
  console.error(`${dir}/manifest.json has no mcp_config Claude Desktop would start, with user_config ${JSON.stringify(Object.keys(userConfig))}: a required value is missing`);
  process.exit(1);
}
if (asConfig) {
  const { command, args = [], env = {} } = config;
  console.log(JSON.stringify({ mcpServers: { [manifest.name]: { command, args, env } } }, null, 2));
} else {
  console.log(JSON.stringify(config));
}
