// clients.mjs reads clients.json, the list of third-party clients that
// interop/run checks the server with, for interop/run and table.mjs.
//
// Usage:
//
//	node interop/clients.mjs runs    # one line a run: PROGRAM SCRIPT MODE TRANSPORT, tab-separated
//	node interop/clients.mjs verify  # a check a package: its version is the one installed
//
// verify prints "PASS what" or "FAIL what: why" for each package of the
// list: an npm package must be at its version in package-lock.json (and in
// package.json, if it is a dependency of its own), a Go module in the
// require block of goclients/go.mod.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const read = (file) => readFileSync(new URL(file, import.meta.url), "utf8");

// clients returns the list, checked for the fields every entry must have.
export function clients() {
  const list = JSON.parse(read("./clients.json")).clients;
  for (const c of list) {
    for (const field of ["name", "packages", "run", "transports", "modes", "checked"]) {
      if (!(field in c)) throw new Error(`clients.json: ${c.name ?? JSON.stringify(c)} has no ${field}`);
    }
  }
  return list;
}

// installed returns the version of pkg that the lock file (npm) or
// goclients/go.mod (go) says, and for npm the one package.json asks for.
function installed({ package: pkg, source = "npm" }) {
  if (source === "go") {
    const require = read("./goclients/go.mod").match(/^require \(\n([^)]*)\)/m)?.[1] ?? "";
    const line = require.split("\n").find((l) => l.trim().startsWith(`${pkg} `));
    return { where: "goclients/go.mod", version: line?.trim().split(/\s+/)[1] };
  }
  const lock = JSON.parse(read("./package-lock.json")).packages;
  const asked = JSON.parse(read("./package.json")).dependencies[pkg];
  return { where: "package-lock.json", version: lock[`node_modules/${pkg}`]?.version, asked };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const command = process.argv[2];
  if (command === "runs") {
    for (const c of clients()) {
      for (const transport of c.transports) {
        for (const mode of c.modes) console.log([...c.run, mode, transport].join("\t"));
      }
    }
  } else if (command === "verify") {
    let failed = false;
    for (const c of clients()) {
      for (const p of c.packages) {
        const { where, version, asked } = installed(p);
        const what = `clients.json: ${c.name}: ${p.package} ${p.version} is the version ${where} installs`;
        if (version === p.version && (asked === undefined || asked === p.version)) {
          console.log(`PASS ${what}`);
        } else {
          failed = true;
          console.log(`FAIL ${what}: it has ${version ?? "none"}${asked && asked !== p.version ? `, package.json asks for ${asked}` : ""}`);
        }
      }
    }
    process.exit(failed ? 1 : 0);
  } else {
    console.error("usage: node interop/clients.mjs runs|verify");
    process.exit(2);
  }
}
