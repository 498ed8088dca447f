// model.mjs is the scripted model: an HTTP server on 127.0.0.1 that speaks
// the provider APIs the hosts call, streamed as they call them, and answers
// every turn of the conversation with the next tool call of a script. It
// records every request it gets, so that a check can read what the host gave
// the model (the tools) and what it showed it (each call's result).
//
//	POST /v1/messages                         Anthropic Messages (Claude Code)
//	POST /v1/responses                        OpenAI Responses (Codex)
//	POST /v1/chat/completions                 OpenAI Chat Completions (Copilot CLI)
//	POST /v1beta/models/M:generateContent     Gemini, JSON mode (Gemini CLI's routing)
//	POST /v1beta/models/M:streamGenerateContent  Gemini, streamed
//
// The model holds no state: each request carries the conversation so far,
// and the number of script calls in it says which comes next. A call's id
// is "call_N", N its place in the script, so that a result is matched to its
// call without guessing.

import { createServer } from "node:http";

// startModel starts the model on a free port of 127.0.0.1 and resolves to
// { url, requests, close }: requests is every request so far, in order, each
// { method, path, body, at } (body parsed if JSON; at, Date.now() on
// arrival). plan says what to answer:
//
//	steps        the script: [{ label, tool, arguments }]
//	name(tool)   the tool's name as the host renames it
//	namespace    Codex: the namespace its tools go in (mcp__hello_tools)
//	search       how the model loads deferred tools, or null:
//	             { deferred(body), tool, arguments(body) }: when
//	             deferred(body) says a request defers them, the model's first
//	             call is tool (Claude Code's ToolSearch, Codex's tool_search)
//	prompt       the prompt of the run: a request that has tools and says it
//	             is the conversation; any other (a title, a routing question)
//	             gets a short answer
export function startModel(plan) {
  const requests = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        // kept as text
      }
      const path = req.url;
      requests.push({ method: req.method, path, body, at: Date.now() });
      try {
        route(plan, req.method, path, body, res);
      } catch (err) {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `scripted model: ${err.message}` } }));
      }
    });
  });
  return new Promise((resolve, reject) => {
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

function route(plan, method, path, body, res) {
  const p = path.split("?")[0];
  if (method === "POST" && p.endsWith("/v1/messages")) return anthropic(plan, body, res);
  if (method === "POST" && p.endsWith("/v1/responses")) return responses(plan, body, res);
  if (method === "POST" && p.endsWith("/chat/completions")) return chat(plan, body, res);
  if (method === "POST" && p.endsWith(":streamGenerateContent")) return geminiStream(plan, body, res);
  if (method === "POST" && p.endsWith(":generateContent")) return geminiJSON(body, res);
  if (method === "GET" && p.endsWith("/models")) {
    return json(res, { object: "list", data: [{ id: "scripted", object: "model", created: 0, owned_by: "interop" }] });
  }
  res.writeHead(404, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { message: `scripted model: no ${method} ${p}` } }));
}

// next says what the model does next in a conversation that holds the
// calls made: { search } for the deferred tools' search, { step, id } for
// a call of the script, or { done } when every call is made.
function next(plan, calls, searched) {
  if (plan.search && !searched) return { search: plan.search, id: "call_search" };
  const made = calls.filter((id) => /^call_\d+$/.test(id)).length;
  if (made >= plan.steps.length) return { done: true };
  return { step: plan.steps[made], id: `call_${made}` };
}

const finalText = "Every scripted call is made.";

function json(res, value) {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

function sse(res) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  return {
    event(name, data) {
      res.write(`${name ? `event: ${name}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
    },
    end: () => res.end(),
  };
}

// isConversation tells a request of the conversation (it has tools and the
// prompt) from the host's side requests.
function isConversation(plan, body, tools) {
  return Array.isArray(tools) && tools.length > 0 && JSON.stringify(body).includes(plan.prompt);
}

// anthropic answers an Anthropic Messages request, streamed when asked.
function anthropic(plan, body, res) {
  const calls = [];
  let searched = false;
  for (const m of body.messages ?? []) {
    if (m.role !== "assistant" || !Array.isArray(m.content)) continue;
    for (const b of m.content) {
      if (b.type !== "tool_use") continue;
      calls.push(b.id);
      if (b.id === "call_search") searched = true;
    }
  }
  // Without deferred tools (ENABLE_TOOL_SEARCH=false) there is no search.
  const deferring = plan.search?.deferred(body);
  const act = isConversation(plan, body, body.tools)
    ? next({ ...plan, search: deferring ? plan.search : null }, calls, searched)
    : { done: true, text: "Scripted." };
  const content = act.done
    ? [{ type: "text", text: act.text ?? finalText }]
    : [
        {
          type: "tool_use",
          id: act.id,
          name: act.search ? act.search.tool : plan.name(act.step.tool),
          input: act.search ? act.search.arguments(body) : act.step.arguments,
        },
      ];
  const stop = act.done ? "end_turn" : "tool_use";
  const message = { id: `msg_${calls.length}`, type: "message", role: "assistant", model: body.model };
  const usage = { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  if (!body.stream) return json(res, { ...message, content, stop_reason: stop, stop_sequence: null, usage });
  const s = sse(res);
  s.event("message_start", { type: "message_start", message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage } });
  content.forEach((block, index) => {
    if (block.type === "text") {
      s.event("content_block_start", { type: "content_block_start", index, content_block: { type: "text", text: "" } });
      s.event("content_block_delta", { type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } });
    } else {
      s.event("content_block_start", { type: "content_block_start", index, content_block: { ...block, input: {} } });
      s.event("content_block_delta", {
        type: "content_block_delta",
        index,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) },
      });
    }
    s.event("content_block_stop", { type: "content_block_stop", index });
  });
  s.event("message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } });
  s.event("message_stop", { type: "message_stop" });
  s.end();
}

// responses answers an OpenAI Responses request, streamed.
function responses(plan, body, res) {
  const input = Array.isArray(body.input) ? body.input : [];
  const calls = input.filter((i) => i.type === "function_call" || i.type === "tool_search_call").map((i) => i.call_id);
  const searched = input.some((i) => i.type === "tool_search_call");
  // Codex gives some tools in the input, as an additional_tools item.
  const tools = [...(body.tools ?? []), ...input.filter((i) => i.type === "additional_tools").flatMap((i) => i.tools ?? [])];
  const deferring = plan.search?.deferred(body);
  const act = isConversation(plan, body, tools)
    ? next({ ...plan, search: deferring ? plan.search : null }, calls, searched)
    : { done: true, text: "Scripted." };
  let item;
  if (act.done) {
    item = { type: "message", id: "msg_done", role: "assistant", status: "completed", content: [{ type: "output_text", text: act.text ?? finalText, annotations: [] }] };
  } else if (act.search) {
    item = { type: "tool_search_call", id: "ts_search", call_id: act.id, execution: "client", status: "completed", arguments: act.search.arguments(body) };
  } else {
    item = {
      type: "function_call",
      id: `fc_${act.id}`,
      call_id: act.id,
      ...(plan.namespace ? { namespace: plan.namespace } : {}),
      name: plan.name(act.step.tool),
      arguments: JSON.stringify(act.step.arguments),
      status: "completed",
    };
  }
  const id = `resp_${calls.length}`;
  const s = sse(res);
  s.event("response.created", { type: "response.created", response: { id, object: "response", status: "in_progress", output: [] } });
  s.event("response.output_item.added", { type: "response.output_item.added", output_index: 0, item });
  s.event("response.output_item.done", { type: "response.output_item.done", output_index: 0, item });
  const usage = { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 };
  s.event("response.completed", { type: "response.completed", response: { id, object: "response", status: "completed", output: [item], usage } });
  s.end();
}

// chat answers an OpenAI Chat Completions request, streamed when asked.
function chat(plan, body, res) {
  const calls = [];
  for (const m of body.messages ?? []) {
    for (const c of (m.role === "assistant" && m.tool_calls) || []) calls.push(c.id);
  }
  const act = isConversation(plan, body, body.tools) ? next({ ...plan, search: null }, calls, false) : { done: true, text: "Scripted." };
  const base = { id: `chatcmpl_${calls.length}`, created: 0, model: body.model };
  const call = act.done
    ? null
    : { id: act.id, type: "function", function: { name: plan.name(act.step.tool), arguments: JSON.stringify(act.step.arguments) } };
  const finish = act.done ? "stop" : "tool_calls";
  const message = act.done ? { role: "assistant", content: act.text ?? finalText } : { role: "assistant", content: null, tool_calls: [call] };
  const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
  if (!body.stream) {
    return json(res, { ...base, object: "chat.completion", choices: [{ index: 0, message, finish_reason: finish }], usage });
  }
  const s = sse(res);
  const chunk = (delta, finish_reason) => s.event(null, { ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason }] });
  chunk({ role: "assistant", content: act.done ? "" : null }, null);
  if (act.done) chunk({ content: message.content }, null);
  else chunk({ tool_calls: [{ index: 0, ...call }] }, null);
  chunk({}, finish);
  s.event(null, { ...base, object: "chat.completion.chunk", choices: [], usage });
  s.event(null, "[DONE]");
  s.end();
}

// geminiStream answers Gemini's streamGenerateContent, as server-sent events.
function geminiStream(plan, body, res) {
  const calls = [];
  for (const c of body.contents ?? []) {
    for (const p of (c.role === "model" && c.parts) || []) if (p.functionCall) calls.push(`call_${calls.length}`);
  }
  const tools = (body.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
  const act = isConversation(plan, body, tools) ? next({ ...plan, search: null }, calls, false) : { done: true, text: "Scripted." };
  const part = act.done ? { text: act.text ?? finalText } : { functionCall: { name: plan.name(act.step.tool), args: act.step.arguments } };
  const s = sse(res);
  s.event(null, {
    candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    modelVersion: "scripted",
  });
  s.end();
}

// geminiJSON answers Gemini's generateContent in JSON mode, which Gemini CLI
// asks to route a prompt (complexity_score) or to judge a turn: with the
// smallest object its schema allows.
function geminiJSON(body, res) {
  const schema = body.generationConfig?.responseJsonSchema ?? body.generationConfig?.responseSchema;
  const value = schema ? fill(schema) : "Scripted.";
  json(res, {
    candidates: [{ content: { role: "model", parts: [{ text: typeof value === "string" ? value : JSON.stringify(value) }] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 },
    modelVersion: "scripted",
  });
}

// fill returns a value of schema: the first of an enum, 1 for a number (a
// complexity_score must be at least 1), "" for a string, every required
// property of an object.
function fill(schema) {
  if (schema.enum) return schema.enum[0];
  switch (String(schema.type).toLowerCase()) {
    case "object": {
      const out = {};
      for (const k of schema.required ?? Object.keys(schema.properties ?? {})) out[k] = fill(schema.properties?.[k] ?? {});
      return out;
    }
    case "array":
      return [];
    case "integer":
    case "number":
      return 1;
    case "boolean":
      return false;
    default:
      return "";
  }
}
