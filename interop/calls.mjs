// calls.mjs reads calls.json, the tools/call requests the client checks make
// and what each must return, and checks results against it. The clients
// checked in one mode make every call; those checked in several modes make
// the first call of each tool (firstOfEach). goclients/ reads the same file.
//
// What tools and capabilities there are is the server's own answer, which
// interop/run asks for once (offers.mjs) and names by INTEROP_OFFERS: a
// client must show each, as the server offers it.

import { readFileSync } from "node:fs";
import { expect } from "./check.mjs";
import { readOffers } from "./offers.mjs";

const calls = JSON.parse(readFileSync(new URL("./calls.json", import.meta.url), "utf8"));

let offers;
try {
  offers = readOffers();
} catch (err) {
  console.error(err.message);
  process.exit(2);
}

// toolNames lists the server's tools, in its order, for the checks' names.
export const toolNames = offers.tools.map((t) => t.name).join(", ");

// valid lists the calls that succeed: { tool, arguments, text?,
// structuredContent?, patterns? }.
export const valid = calls.valid;

// invalid lists the calls that are a tool result with isError set, never a
// JSON-RPC error: { tool, arguments, schemaRefuses? }.
export const invalid = calls.invalid;

// firstOfEach keeps the first call of each tool in list.
export function firstOfEach(list) {
  const seen = new Set();
  return list.filter(({ tool }) => !seen.has(tool) && seen.add(tool));
}

// show renders a call for a check's name, on one line.
export const show = ({ tool, arguments: args }) =>
  `${tool} ${JSON.stringify(args).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`)}`;

// expectCapabilities checks the names of the capabilities a client saw
// against those the server advertises.
export function expectCapabilities(names) {
  const got = [...names].sort().join();
  const want = Object.keys(offers.capabilities).sort().join();
  expect(got === want, `capabilities are ${got}, the server's are ${want}`);
}

// expectTools checks the tools of a tools/list result, as a client parsed
// them, against the server's own: the same names, each an object input
// schema with the same properties and required list, and (unless
// outputSchema is false, for a client that keeps none) an outputSchema
// where the server's tool has one.
export function expectTools(list, { outputSchema = true } = {}) {
  const offered = new Map(offers.tools.map((t) => [t.name, t]));
  const names = list.map((t) => t.name).sort();
  const want = [...offered.keys()].sort();
  expect(names.join() === want.join(), `tools are ${names}, the server's are ${want}`);
  const sorted = (list) => [...(list ?? [])].sort().join();
  for (const t of list) {
    const theirs = offered.get(t.name);
    const schema = t.inputSchema ?? {};
    expect(schema.type === "object", `${t.name}: inputSchema.type is ${schema.type}`);
    const props = sorted(Object.keys(schema.properties ?? {}));
    const wantProps = sorted(Object.keys(theirs.inputSchema.properties ?? {}));
    expect(props === wantProps, `${t.name}: inputSchema properties are ${props}, the server's ${wantProps}`);
    const required = sorted(schema.required);
    const wantRequired = sorted(theirs.inputSchema.required);
    expect(required === wantRequired, `${t.name}: inputSchema.required is ${required}, the server's ${wantRequired}`);
    if (outputSchema) {
      expect(Boolean(t.outputSchema) === Boolean(theirs.outputSchema), `${t.name}: outputSchema ${t.outputSchema ? "present" : "missing"}`);
    }
  }
}

// expectValid checks the result of a call from valid.
export function expectValid(res, call) {
  expect(!res.isError, `isError: ${res.content?.[0]?.text}`);
  const first = res.content?.[0];
  expect(first?.type === "text", `no text content block in ${JSON.stringify(res)}`);
  if (call.text !== undefined) {
    expect(first.text === call.text, `text is ${JSON.stringify(first.text)}, want ${JSON.stringify(call.text)}`);
  }
  const got = res.structuredContent;
  for (const [key, value] of Object.entries(call.structuredContent ?? {})) {
    expect(got?.[key] === value, `structuredContent.${key} is ${JSON.stringify(got?.[key])}, want ${JSON.stringify(value)}`);
  }
  for (const [key, pattern] of Object.entries(call.patterns ?? {})) {
    expect(new RegExp(pattern).test(got?.[key]), `structuredContent.${key} is ${JSON.stringify(got?.[key])}, want /${pattern}/`);
  }
}

// expectToolError checks the result of a call from invalid: isError set, and
// a text block that says what was wrong (its wording is not checked).
export function expectToolError(res) {
  expect(res.isError === true, `isError is ${res.isError}: ${JSON.stringify(res)}`);
  const first = res.content?.[0];
  expect(first?.type === "text" && first.text.length > 0, `no text saying why in ${JSON.stringify(res)}`);
}

// concurrently makes n calls at once with call (a function from a call of
// valid to its result), cycling through valid, and checks every result.
export async function concurrently(n, call) {
  const batch = Array.from({ length: n }, (_, i) => valid[i % valid.length]);
  const results = await Promise.allSettled(batch.map((c) => call(c)));
  const failures = [];
  results.forEach((r, i) => {
    try {
      if (r.status === "rejected") throw r.reason;
      expectValid(r.value, batch[i]);
    } catch (err) {
      failures.push(`${show(batch[i])}: ${err.message}`);
    }
  });
  expect(failures.length === 0, `${failures.length} of ${n} failed: ${failures.slice(0, 3).join("; ")}`);
}

// expectCompiled compiles every tool's inputSchema and outputSchema with
// compile, the validator a client checks them with (compile(schema) returns
// a function from a value to true or false, and throws if the schema does
// not compile), and checks what the input schemas say of the calls: the
// arguments of each valid call are accepted, and those marked schemaRefuses
// are refused. It returns how many schemas it compiled.
export function expectCompiled(list, compile) {
  let compiled = 0;
  const validators = {};
  for (const t of list) {
    for (const key of ["inputSchema", "outputSchema"]) {
      if (!t[key]) continue;
      try {
        validators[`${t.name}.${key}`] = compile(t[key]);
      } catch (err) {
        throw new Error(`${t.name}: ${key} does not compile: ${err.message}`);
      }
      compiled++;
    }
  }
  for (const call of valid) {
    expect(validators[`${call.tool}.inputSchema`](call.arguments), `${show(call)}: the inputSchema refuses valid arguments`);
  }
  for (const call of invalid) {
    const accepted = validators[`${call.tool}.inputSchema`](call.arguments);
    expect(accepted !== Boolean(call.schemaRefuses), `${show(call)}: the inputSchema ${accepted ? "accepts" : "refuses"} it`);
  }
  return compiled;
}
