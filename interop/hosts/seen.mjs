// seen.mjs reads what a host gave the model, from the requests the scripted
// model recorded (model.mjs): the tool definitions, as the host wrote them
// for its provider's API, and what the model was shown for each call, by
// the call's id (call_N, N its place in the script).

import { isDeepStrictEqual } from "node:util";

// definitions returns the tool definitions of the last request that had
// them, by the name the host gave each, each as the host sent it.
export function definitions(protocol, requests) {
  for (const { body } of requests.toReversed()) {
    const found = new Map(toolsOf(protocol, body));
    if (found.size > 0) return found;
  }
  return new Map();
}

// toolsOf lists the function definitions in one request body, each as
// [name, definition as sent]. Codex puts an MCP server's tools in a
// namespace: a function sent as "TOOL" is named "NAMESPACE TOOL" here, the
// way the model calls it. Chat Completions names a function inside it.
function toolsOf(protocol, body) {
  if (!body || typeof body !== "object") return [];
  switch (protocol) {
    case "anthropic":
      return (body.tools ?? []).filter((t) => t.name && (t.input_schema || t.description)).map((t) => [t.name, t]);
    case "chat":
      return (body.tools ?? []).filter((t) => t.function).map((t) => [t.function.name, t]);
    case "gemini":
      return (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []).map((t) => [t.name, t]);
    case "responses": {
      const input = Array.isArray(body.input) ? body.input : [];
      const groups = [
        ...(body.tools ?? []),
        ...input.filter((i) => i.type === "additional_tools" || i.type === "tool_search_output").flatMap((i) => i.tools ?? []),
      ];
      return groups.flatMap((t) =>
        t.type === "namespace" ? (t.tools ?? []).map((f) => [`${t.name} ${f.name}`, f]) : t.name ? [[t.name, t]] : [],
      );
    }
  }
  return [];
}

// inputSchemaOf returns the input schema in def, a definition as the host
// wrote it for its provider's API.
export function inputSchemaOf(def) {
  return def.input_schema ?? def.parameters ?? def.parametersJsonSchema ?? def.parameters_json_schema ?? def.function?.parameters;
}

// hostPart returns what the host made of a tool of the server's tools/list
// in def, its definition as the model got it, less what the tool gave it:
// the tool's name, as the host renamed it (name) or as the server has it
// (inside Codex's namespace), and its description become
// "{name}" and "{description}", wherever the host put them, and the
// members of its inputSchema (and of its properties) that the host passed
// unchanged are taken out of the schema, those it dropped listed in
// "(dropped)". What is left is the host's own: the same for every tool, if
// the host passes each as it passes the others.
export function hostPart(def, tool, name) {
  const schema = inputSchemaOf(def);
  const walk = (v) => {
    if (v === schema) return unlike(v, tool.inputSchema);
    if (v === name || v === tool.name) return "{name}";
    if (v === tool.description) return "{description}";
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(def);
}

// unlike returns the members of got, a schema, that are not as in want,
// its properties one by one, and lists those of want that got lacks.
function unlike(got = {}, want = {}, schema = true) {
  const out = {};
  for (const [k, v] of Object.entries(got)) {
    if (schema && k === "properties") out[k] = unlike(v, want.properties, false);
    else if (!isDeepStrictEqual(v, want[k])) out[k] = v;
  }
  const dropped = Object.keys(want).filter((k) => !(k in got));
  if (dropped.length > 0) out["(dropped)"] = dropped;
  return out;
}

// shown returns what the model was shown for each call, by call id, from
// the last request of the conversation: the tool result as the host wrote
// it, less the call's id.
export function shown(protocol, requests) {
  const out = new Map();
  const last = requests.toReversed().find(({ body }) => body && typeof body === "object" && conversation(protocol, body).length > 0);
  if (!last) return out;
  const { body } = last;
  switch (protocol) {
    case "anthropic":
      for (const m of body.messages) {
        for (const b of (m.role === "user" && Array.isArray(m.content) && m.content) || []) {
          if (b.type !== "tool_result") continue;
          const { tool_use_id: id, cache_control: _, ...rest } = b;
          out.set(id, rest);
        }
      }
      break;
    case "responses":
      for (const i of body.input) {
        if (i.type === "function_call_output") out.set(i.call_id, i.output);
      }
      break;
    case "chat":
      for (const m of body.messages) {
        if (m.role === "tool") out.set(m.tool_call_id, m.content);
      }
      break;
    case "gemini": {
      // Gemini's calls carry ids of the host's making: the Nth response
      // answers the model's Nth call.
      let n = 0;
      for (const c of body.contents) {
        for (const p of (c.role === "user" && c.parts) || []) {
          if (p.functionResponse) out.set(`call_${n++}`, p.functionResponse.response);
        }
      }
      break;
    }
  }
  return out;
}

// flagged tells whether the host marked value, a result as it showed it
// the model, as an error, where its provider's API has a way to: Anthropic's
// is_error, Gemini's "error" in place of "output". Responses and Chat
// Completions have none.
export function flagged(protocol, value) {
  if (protocol === "anthropic") return value?.is_error === true;
  if (protocol === "gemini") return Boolean(value && typeof value === "object" && "error" in value);
  return false;
}

// conversation lists the messages of a request, whatever the API calls them.
function conversation(protocol, body) {
  const list = { anthropic: body.messages, chat: body.messages, responses: body.input, gemini: body.contents }[protocol];
  return Array.isArray(list) ? list : [];
}

// texts returns every string within value, joined by newlines: what a check
// searches for the digits a call must show.
export function texts(value) {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(texts).join("\n");
  if (value && typeof value === "object") return Object.values(value).map(texts).join("\n");
  return "";
}
