// schemas.mjs shows what three agent frameworks would send a model provider
// for each of the server's tools, and which of the provider's documented
// rules for tool schemas each schema meets. Each framework lists the tools
// from the server (over stdio) with its own MCP client, as an application
// would, and makes one request through its provider package with a stub
// fetch that keeps the request and fails it: no request leaves the machine.
//
//   - the Vercel AI SDK (@ai-sdk/mcp tools(), generateText): OpenAI with
//     each tool's strict off (the default) and on, and Gemini;
//   - LangChain (@langchain/mcp-adapters getTools(), bindTools): OpenAI
//     with strict off (the default) and on, and Gemini;
//   - the OpenAI Agents SDK (an Agent with the MCP server, run): OpenAI
//     with convertSchemasToStrict off (the default) and on.
//
// and what docs/clients.md tells a host author to do where strict mode
// refuses a tool because an argument is optional: strict only for the
// tools whose schema qualifies (AI SDK, LangChain), or each optional
// argument made required and nullable, its null dropped again before the
// call, as the Agents SDK does (AI SDK).
//
// The rules, from the providers' documentation:
//
//   - OpenAI, function parameters: an object schema. A function sent with
//     strict true (Structured Outputs, "Supported schemas") also needs
//     every object closed, additionalProperties false; every property
//     listed in required ("to emulate an optional parameter, use a union
//     type with null"); and only the keywords of the supported subset. A
//     request with one function that breaks them is refused whole.
//   - Gemini, a function declaration's parameters: a Schema, "a select
//     subset of an OpenAPI 3.0 schema object", whose fields exclude
//     additionalProperties (the API answers "Unknown name"); or its
//     parametersJsonSchema: JSON Schema, which "must describe an object".
//
// Each check is one framework, setup, provider and tool: its name says
// what the framework changed from the tool's inputSchema and the rules the
// schema breaks, if any, and it fails when those are not the ones recorded
// in breaks below (docs/clients.md explains them to host authors: keep the
// two in step). It prints one line per check, "PASS what" or "FAIL what:
// why", and exits with status 1 if any check failed.
//
// Usage: node22 interop/schemas.mjs offline BINARY
//
// (offline is its one mode, for interop/run, which runs every entry of
// clients.json with a mode.)

import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createMCPClient } from "@ai-sdk/mcp";
import { StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { createOpenAI } from "@ai-sdk/openai";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { ChatGoogleGenerativeAI } from "@langchain/google-genai";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";
import { ChatOpenAI } from "@langchain/openai";
import { Agent, getAllMcpTools, MCPServerStdio, OpenAIResponsesModel, RunContext, run, setTracingDisabled } from "@openai/agents";
import { generateText, jsonSchema } from "ai";
import OpenAI from "openai";
import { checker, expect } from "./check.mjs";
import { stdioServer } from "./stdio-server.mjs";

// breaks records, by "framework setup tool", the rules a capture breaks;
// every other capture must meet all of its provider's rules.
const breaks = {
  "ai-sdk strict get_timestamp": ["every-property-required"],
  "langchain strict get_timestamp": ["every-property-required"],
};

const [mode, binary] = process.argv.slice(2);
if (mode !== "offline" || !binary || /^https?:\/\//.test(binary)) {
  console.error("usage: node22 interop/schemas.mjs offline BINARY");
  process.exit(2);
}
const { check, failed } = checker("schemas");
setTracingDisabled(true);

// The stub fetch keeps every request and fails it, for the provider
// packages given it and for any other code that would use fetch.
let requests = [];
const stub = async (url, init) => {
  requests.push({ url: String(url), body: JSON.parse(init?.body ?? "null") });
  throw new Error("interop/schemas.mjs: requests stay on this machine");
};
globalThis.fetch = stub;
const apiKey = "interop-no-key";

// capture runs send, which makes one provider request, and returns the
// tools that request carried: name, field (where the schema went), schema
// and strict.
async function capture(send) {
  requests = [];
  await send().catch(() => {});
  expect(requests.length > 0, "no request was made");
  const { body } = requests[0];
  const declarations = body.tools?.flatMap((t) => t.functionDeclarations ?? [t]) ?? [];
  return declarations.map((t) => {
    const fn = t.function ?? t; // Chat Completions nests the function
    const field = ["parameters", "parametersJsonSchema"].find((f) => f in fn);
    return { name: fn.name, field, schema: fn[field], strict: fn.strict };
  });
}

// Subschemas of a schema, with their paths, the schema itself first.
function* subschemas(schema, path = "") {
  if (typeof schema !== "object" || schema === null) return;
  yield [path, schema];
  for (const [name, s] of Object.entries(schema.properties ?? {})) yield* subschemas(s, `${path}.properties.${name}`);
  for (const [name, s] of Object.entries(schema.$defs ?? {})) yield* subschemas(s, `${path}.$defs.${name}`);
  for (const [i, s] of (schema.anyOf ?? []).entries()) yield* subschemas(s, `${path}.anyOf[${i}]`);
  if (schema.items) yield* subschemas(schema.items, `${path}.items`);
  if (typeof schema.additionalProperties === "object") yield* subschemas(schema.additionalProperties, `${path}.additionalProperties`);
}

const openAIStrictKeywords = new Set([
  "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref", "$defs",
  "definitions", "description", "title", "pattern", "format", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
  "exclusiveMinimum", "minItems", "maxItems",
]);
const geminiSchemaFields = new Set([
  "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required",
  "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering",
  "default", "items", "minimum", "maximum",
]);

// rules maps each rule to what it asks and a function that returns how a
// schema breaks it (an empty list when it meets it).
const rules = {
  "object-root": {
    says: "an object schema",
    problems: (s) => (s?.type === "object" ? [] : [`type is ${JSON.stringify(s?.type)}`]),
  },
  "closed-objects": {
    says: "every object has additionalProperties false",
    problems: (s) => [...subschemas(s)].filter(([, o]) => o.type === "object" && o.additionalProperties !== false).map(([p]) => p || "the root"),
  },
  "every-property-required": {
    says: "every property is in required",
    problems: (s) =>
      [...subschemas(s)].flatMap(([, o]) => Object.keys(o.properties ?? {}).filter((name) => !(o.required ?? []).includes(name))),
  },
  "openai-strict-keywords": {
    says: "only keywords of OpenAI's strict subset",
    problems: (s) => [...subschemas(s)].flatMap(([p, o]) => Object.keys(o).filter((k) => !openAIStrictKeywords.has(k)).map((k) => `${p}.${k}`)),
  },
  "gemini-schema-fields": {
    says: "only fields of Gemini's Schema",
    problems: (s) => [...subschemas(s)].flatMap(([p, o]) => Object.keys(o).filter((k) => !geminiSchemaFields.has(k)).map((k) => `${p}.${k}`)),
  },
};

// rulesFor returns the rules a provider applies to a tool as it was sent:
// OpenAI's strict ones to each function sent with strict true.
function rulesFor(provider, sent) {
  if (provider === "openai") {
    return sent.strict ? ["object-root", "closed-objects", "every-property-required", "openai-strict-keywords"] : ["object-root"];
  }
  return sent.field === "parameters" ? ["object-root", "gemini-schema-fields"] : ["object-root"];
}

// qualifies tells whether OpenAI's strict mode takes schema as it is.
const qualifies = (schema) =>
  ["closed-objects", "every-property-required", "openai-strict-keywords"].every((id) => rules[id].problems(schema).length === 0);

// nullable returns schema as strict mode takes it, the way the OpenAI
// Agents SDK writes it: each optional property required, and nullable.
// Its top level only: the server's tools have no nested objects.
function nullable(schema) {
  const required = schema.required ?? [];
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([name, p]) =>
      required.includes(name) ? [name, p] : [name, { description: p.description, anyOf: [p, { type: "null" }] }],
    ),
  );
  return { ...schema, properties, required: Object.keys(properties) };
}

// dropNulls returns args without the null values of the properties that
// nullable made nullable: the tool wants them left out.
const dropNulls = (schema, args) =>
  Object.fromEntries(Object.entries(args).filter(([name, v]) => !(v === null && !(schema.required ?? []).includes(name))));

// changes describes how sent differs from the tool's inputSchema: its
// required list, the root keywords dropped, added or changed, and the
// properties made nullable or otherwise changed (descriptions aside).
function changes(original, sent) {
  const said = [];
  const required = (s) => [...(s.required ?? [])].sort().join(", ");
  if (required(original) !== required(sent)) said.push(`required [${required(original)}] → [${required(sent)}]`);
  for (const key of new Set([...Object.keys(original), ...Object.keys(sent)])) {
    const [was, is] = [JSON.stringify(original[key]), JSON.stringify(sent[key])];
    if (["properties", "required", "description"].includes(key) || was === is) continue;
    if (is === undefined) said.push(`drops ${key}`);
    else if (was === undefined) said.push(`adds ${key}: ${is}`);
    else said.push(`${key} ${was} → ${is}`);
  }
  const nullable = [];
  for (const [name, p] of Object.entries(original.properties ?? {})) {
    const q = sent.properties?.[name];
    const strip = ({ description, ...rest }) => JSON.stringify(rest);
    if (!q) said.push(`drops property ${name}`);
    else if (q.anyOf?.some((b) => b.type === "null") && !p.anyOf) nullable.push(name);
    else if (strip(p) !== strip(q)) said.push(`changes property ${name}`);
  }
  if (nullable.length) said.push(`${nullable.join(", ")} made nullable (anyOf with null)`);
  return said.length ? said.join(", ") : "unchanged";
}

// judge prints one check a tool of a capture: framework, set up as setup
// says (default, strict, ...), sent to provider. Its name says what was
// sent and the rules it breaks, which must be the ones recorded in breaks;
// wantStrict tells, by tool name, whether it must have gone strict.
async function judge(framework, setup, provider, sent, wantStrict = () => setup !== "default") {
  for (const name of Object.keys(inputSchemas).sort()) {
    const tool = sent.find((t) => t.name === name);
    const broken = tool
      ? rulesFor(provider, tool).flatMap((id) => {
          const p = rules[id].problems(tool.schema);
          return p.length ? [[id, p]] : [];
        })
      : [];
    const outcome = broken.length
      ? `refused: not ${broken.map(([id, p]) => `${rules[id].says} (${p.join(", ")})`).join("; not ")}`
      : "meets every rule";
    const head = `${framework} (${setup}) → ${provider}: ${name}`;
    const what = tool ? `${head}: ${tool.field} ${changes(inputSchemas[name], tool.schema)}${tool.strict ? ", strict" : ""}; ${outcome}` : head;
    await check(what, () => {
      expect(tool, "the request carried no such tool");
      expect(Boolean(tool.strict) === wantStrict(name), `strict is ${tool.strict}, want ${wantStrict(name)}`);
      const want = breaks[`${framework} ${setup} ${name}`] ?? [];
      const got = broken.map(([id]) => id);
      expect(got.join() === want.join(), `breaks [${got}], recorded [${want}]: update breaks and docs/clients.md`);
    });
  }
}

const prompt = "What time is it in Paris?";
const inputSchemas = {};

// The Vercel AI SDK: strict is a property of each tool, off unless set.
// What docs/clients.md suggests is checked too: strict only where the schema
// qualifies, or each optional argument made nullable, and its null dropped
// again before the call.
{
  const client = await createMCPClient({ transport: new StdioMCPTransport({ command: binary, stderr: "ignore" }) });
  for (const t of (await client.listTools()).tools) inputSchemas[t.name] = t.inputSchema;
  const tools = await client.tools();
  const each = (fn) => Object.fromEntries(Object.entries(tools).map(([name, t]) => [name, fn(t, name)]));
  const strict = each((t) => ({ ...t, strict: true }));
  // As docs/clients.md has it: the AI SDK closes every schema itself.
  const whereItQualifies = each((t) => {
    const { properties = {}, required = [] } = t.inputSchema.jsonSchema;
    return { ...t, strict: Object.keys(properties).every((p) => required.includes(p)) };
  });
  const withNulls = each((t, name) => ({
    ...t,
    inputSchema: jsonSchema(nullable(inputSchemas[name])),
    strict: true,
    execute: (args, options) => t.execute(dropNulls(inputSchemas[name], args), options),
  }));
  const openai = createOpenAI({ apiKey, fetch: stub })("gpt-4.1");
  const gemini = createGoogleGenerativeAI({ apiKey, fetch: stub })("gemini-2.5-flash");
  const send = (model, tools) => capture(() => generateText({ model, tools, prompt, maxRetries: 0 }));
  await judge("ai-sdk", "default", "openai", await send(openai, tools));
  await judge("ai-sdk", "strict", "openai", await send(openai, strict));
  await judge("ai-sdk", "strict where it qualifies", "openai", await send(openai, whereItQualifies), (name) => qualifies(inputSchemas[name]));
  await judge("ai-sdk", "strict, optional made nullable", "openai", await send(openai, withNulls));
  await judge("ai-sdk", "default", "gemini", await send(gemini, tools));
  // Passed on, the null is a tool error: the tool's schema says a string.
  await check("ai-sdk: a null for an optional argument, passed on, is a tool error", async () => {
    const res = await tools.get_timestamp.execute({ format: null, timezone: "Europe/Paris" }, { toolCallId: "interop", messages: [] });
    expect(res.isError === true, `the result is ${JSON.stringify(res)}`);
  });
  await check("ai-sdk (strict, optional made nullable): the model's null for an optional argument is dropped before tools/call", async () => {
    const res = await withNulls.get_timestamp.execute({ format: null, timezone: "Europe/Paris" }, { toolCallId: "interop", messages: [] });
    expect(!res.isError && res.structuredContent?.format === "iso8601", `the result is ${JSON.stringify(res)}`);
  });
  await client.close();
}

// LangChain: strict is an option of bindTools, off unless given, for every
// tool bound; convertToOpenAITool sets it tool by tool.
{
  const client = new MultiServerMCPClient({ mcpServers: { hello: { transport: "stdio", command: binary, args: [], stderr: "ignore" } } });
  const tools = await client.getTools();
  // As docs/clients.md has it.
  const qualifiesAsIs = ({ properties = {}, required = [], additionalProperties }) =>
    additionalProperties === false && Object.keys(properties).every((p) => required.includes(p));
  const whereItQualifies = tools.map((t) => convertToOpenAITool(t, { strict: qualifiesAsIs(t.schema) }));
  const openai = new ChatOpenAI({ model: "gpt-4.1", apiKey, maxRetries: 0, configuration: { fetch: stub } });
  const gemini = new ChatGoogleGenerativeAI({ model: "gemini-2.5-flash", apiKey, maxRetries: 0 });
  const send = (bound) => capture(() => bound.invoke(prompt));
  await judge("langchain", "default", "openai", await send(openai.bindTools(tools)));
  await judge("langchain", "strict", "openai", await send(openai.bindTools(tools, { strict: true })));
  await judge("langchain", "strict where it qualifies", "openai", await send(openai.bindTools(whereItQualifies)), (name) =>
    qualifies(inputSchemas[name]),
  );
  await judge("langchain", "default", "gemini", await send(gemini.bindTools(tools)));
  await client.close();
}

// The OpenAI Agents SDK: convertSchemasToStrict is an option of the
// agent's mcpConfig, off unless given; off, the SDK sends each tool
// non-strict, with additionalProperties true.
{
  // The SDK leaves the server's stderr to ours: stdio-server.mjs keeps it.
  const logged = stdioServer(binary);
  const server = new MCPServerStdio({ name: "hello", command: logged.command, args: logged.args });
  await server.connect();
  const model = new OpenAIResponsesModel(new OpenAI({ apiKey, fetch: stub, maxRetries: 0 }), "gpt-4.1");
  for (const strict of [false, true]) {
    const agent = new Agent({ name: "interop", instructions: "Answer.", model, mcpServers: [server], mcpConfig: { convertSchemasToStrict: strict } });
    await judge("openai-agents", strict ? "convertSchemasToStrict" : "default", "openai", await capture(() => run(agent, prompt)));
  }

  // With strict on, a model that follows the schema sends null for an
  // argument it leaves out: the SDK must drop it, for the tool's own schema
  // says a string, and the server would answer with a tool error.
  await check("openai-agents (convertSchemasToStrict): the model's null for an optional argument is dropped before tools/call", async () => {
    const calls = [];
    const callToolResult = server.callToolResult.bind(server);
    server.callToolResult = async (...args) => {
      const result = await callToolResult(...args);
      calls.push({ args: args[1], result });
      return result;
    };
    const [tool] = (await getAllMcpTools({ mcpServers: [server], convertSchemasToStrict: true })).filter((t) => t.name === "get_timestamp");
    await tool.invoke(new RunContext(), JSON.stringify({ format: null, timezone: "Europe/Paris" }));
    expect(calls.length === 1 && !("format" in calls[0].args), `the server got ${JSON.stringify(calls.map((c) => c.args))}`);
    expect(calls[0].result.isError !== true, `the result is ${JSON.stringify(calls[0].result)}`);
  });
  await server.close();
  logged.remove();
}

process.exit(failed() ? 1 : 0);
