// probe.mjs learns what a host shows its model, from a conversation with
// the probe server (probe/main.go), whose tools answer differently on
// purpose: it sets what the probe sent (its tools/list, and each result as
// tap.mjs recorded it) beside what the model got, and says, in words, which
// parts reached the model and how. The words are the capture's "probe"
// facts, which docs/model.md's table states and docs_captures_test.go checks.

import { texts } from "./seen.mjs";

// The probe's tools, by name, and the case each shows.
export const cases = {
  differ: "a text block and structuredContent that differ",
  blocks: "two text blocks",
  fails: "an isError result with structuredContent",
  long: "a description past 4,096 characters",
  titled: "a title beside the name",
};

// results returns the probe's result for each tool called, by tool name,
// from tap.mjs's log (readTap's messages).
export function results(messages) {
  const asked = new Map();
  const out = {};
  for (const { dir, msg } of messages) {
    if (dir === "in" && msg?.method === "tools/call") asked.set(JSON.stringify(msg.id), msg.params?.name);
    if (dir === "out" && msg?.result && asked.has(JSON.stringify(msg.id))) out[asked.get(JSON.stringify(msg.id))] = msg.result;
  }
  return out;
}

// learn returns the facts: for each case, by tool name, in words, what the
// model was given or shown. tools is the probe's tools/list; definitions, the tools
// as the model got them, by tool name; shown, what the model was shown for
// each call, by tool name; sent, the probe's results by tool name;
// flagged(value) whether the host marked a shown result as an error.
export function learn({ tools, definitions, shown, sent, flagged }) {
  const tool = (name) => tools.find((t) => t.name === name);
  const [first, second] = (sent.blocks?.content ?? []).map((c) => c.text);
  return {
    differ: parts(shown.differ, sent.differ),
    blocks: blocks(shown.blocks, first, second),
    fails: `${parts(shown.fails, sent.fails)}, ${flagged(shown.fails) ? "marked as an error" : "not marked as an error"}`,
    long: description(definitions.long, tool("long")),
    titled: title(definitions.titled, tool("titled")),
  };
}

// parts says which of a result's text and structuredContent the model was
// shown, in the order it was shown them, and whether a line break in the
// text arrived escaped (\n, as inside a JSON string) rather than laid out.
function parts(value, result) {
  if (value === undefined || !result) return "no result";
  const seen = texts(value);
  const text = (result.content ?? []).map((c) => c.text).join("\n");
  const found = [];
  const textAt = find(seen, text);
  if (textAt) found.push({ name: textAt.escaped && text.includes("\n") ? "the text, its line breaks escaped" : "the text", at: textAt.at });
  if (result.structuredContent !== undefined) {
    const s = find(seen, JSON.stringify(result.structuredContent));
    if (s) found.push({ name: "structuredContent, as JSON", at: s.at });
  }
  if (found.length === 0) return "neither the text nor structuredContent";
  return found
    .sort((a, b) => a.at - b.at)
    .map((f) => f.name)
    .join(", then ");
}

// find returns where s is in seen, { at, escaped }: as it is, or escaped as
// inside a JSON string (once or twice over), or null.
function find(seen, s) {
  for (let form = s, escaped = false, i = 0; i < 3; i++, form = JSON.stringify(form).slice(1, -1), escaped = true) {
    const at = seen.indexOf(form);
    if (at >= 0) return { at, escaped };
  }
  return null;
}

// blocks says how the model was shown two text blocks: each where the host
// keeps blocks apart, or joined into one text, and by what.
function blocks(value, first, second) {
  if (value === undefined || first === undefined) return "no result";
  const strings = leaves(value);
  const joined = strings.find((s) => s.includes(first) && s.includes(second));
  if (joined) {
    const between = joined.slice(joined.indexOf(first) + first.length, joined.indexOf(second));
    return `both, in one text, joined by ${JSON.stringify(between)}`;
  }
  const has = (t) => strings.some((s) => s.includes(t));
  if (has(first) && has(second)) return "both, each a block of its own";
  return has(first) ? "the first only" : "neither";
}

// description says whether the model got a tool's description whole, or
// cut: to how many characters, and what the host put after them.
function description(def, tool) {
  if (!def || !tool) return "no definition";
  const got = def.description ?? def.function?.description ?? "";
  if (got === tool.description) return `whole (${tool.description.length.toLocaleString("en-US")} characters)`;
  let kept = 0;
  while (kept < got.length && got[kept] === tool.description[kept]) kept++;
  const added = got.slice(kept);
  return `cut to ${kept.toLocaleString("en-US")} characters of ${tool.description.length.toLocaleString("en-US")}${added ? `, then ${JSON.stringify(added)}` : ""}`;
}

// title says which of a tool's names the model got: its name (as the host
// renames it) always; its title and its annotations' title, if it got them.
function title(def, tool) {
  if (!def || !tool) return "no definition";
  const all = leaves(def);
  const got = [
    [tool.title, "its title"],
    [tool.annotations?.title, "its annotations' title"],
  ].filter(([t]) => t && all.some((s) => s.includes(t)));
  return got.length === 0 ? "the name only" : `the name, and ${got.map(([, w]) => w).join(" and ")}`;
}

// leaves lists the strings within value.
function leaves(value) {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (value && typeof value === "object") return Object.values(value).flatMap(leaves);
  return [];
}
