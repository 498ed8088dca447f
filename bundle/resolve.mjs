// resolve.mjs prints, as JSON, the command that Claude Desktop starts for
// the bundle unpacked in DIR, on this platform: the manifest's mcp_config,
// with this platform's platform_overrides entry and ${__dirname} resolved
// by getMcpConfigForManifest of @anthropic-ai/mcpb, the code Claude
// Desktop loads bundles with (that package's README says so).
// TestBundleStartsAsClaudeDesktop, in ../bundle_test.go, starts it.
//
// Usage:
//
//	node bundle/resolve.mjs DIR

import { readFileSync } from "node:fs";
import { join, sep } from "node:path";
import { getMcpConfigForManifest } from "@anthropic-ai/mcpb";

const [dir] = process.argv.slice(2);
if (!dir) {
  console.error("usage: node bundle/resolve.mjs DIR");
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const config = await getMcpConfigForManifest({ manifest, extensionPath: dir, systemDirs: {}, pathSeparator: sep });
if (!config) {
  console.error(`${dir}/manifest.json has no mcp_config Claude Desktop can start`);
  process.exit(1);
}
console.log(JSON.stringify(config));
