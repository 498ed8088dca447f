// user-env.mjs is the environment that stands for the rest of a user's
// shell when a harness starts a host (run.mjs, and interop/vscode/run.mjs
// for VS Code): by the same names on every machine, USER, LOGNAME, EDITOR
// and the like, a secret (NPM_TOKEN); the Go settings of the harness's go
// command; and the certificate variables a company's certificate authority
// is given in. Whether a host passes each, or only a list of its own, is in
// its capture; none changes what the model is shown.

import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { rootCertificates } from "node:tls";
import { run } from "./proc.mjs";

// userEnv returns those variables. Each certificate variable names a file
// it writes in work, of the certificate authorities Node.js trusts, or its
// folder.
export async function userEnv(work, goCommand) {
  const caBundle = join(work, "certs", "ca.pem");
  mkdirSync(dirname(caBundle), { recursive: true });
  writeFileSync(caBundle, rootCertificates.join("\n") + "\n");
  const goEnv = JSON.parse((await run(goCommand, ["env", "-json", "GOPATH", "GOMODCACHE", "GOCACHE", "GOPROXY"], { env: process.env })).stdout);
  return {
    USER: "learner",
    LOGNAME: "learner",
    EDITOR: "vi",
    PAGER: "less",
    LC_ALL: "C.UTF-8",
    TZ: "UTC",
    TMPDIR: tmpdir(),
    NO_PROXY: "127.0.0.1,localhost",
    SSH_AUTH_SOCK: join(work, "ssh-agent.sock"), // none there
    NPM_TOKEN: "npm_scripted", // a secret a shell holds, of no use here
    ...goEnv,
    SSL_CERT_FILE: caBundle,
    SSL_CERT_DIR: dirname(caBundle),
    NODE_EXTRA_CA_CERTS: caBundle,
    REQUESTS_CA_BUNDLE: caBundle,
    CURL_CA_BUNDLE: caBundle,
    GIT_SSL_CAINFO: caBundle,
    AWS_CA_BUNDLE: caBundle,
    PIP_CERT: caBundle,
    DENO_CERT: caBundle,
    NIX_SSL_CERT_FILE: caBundle,
  };
}
