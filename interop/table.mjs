// table.mjs prints the README's compatibility table in Markdown, from
// clients.json: the list interop/run checks the server with, so the two
// cannot drift. Paste its output into README.md; a test there can compare
// the two.
//
// Usage: node interop/table.mjs

import { clients } from "./clients.mjs";

const code = (s) => `\`${s}\``;
const cell = (s) => s.replaceAll("|", "\\|").replaceAll("\n", " ");

console.log("| client | package | version | transports | modes | checked | notes |");
console.log("|---|---|---|---|---|---|---|");
for (const c of clients()) {
  const packages = c.packages.map((p) => code(p.package)).join(", ");
  const versions = c.packages.map((p) => p.version).join(", ");
  const transports = c.transports.map((t) => (t === "http" ? "Streamable HTTP" : t)).join(", ");
  const modes = c.modes.map(code).join(", ");
  console.log(`| ${[c.name, packages, versions, transports, modes, c.checked, c.notes || ""].map(cell).join(" | ")} |`);
}
