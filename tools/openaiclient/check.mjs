// Runs the official OpenAI JavaScript client against Ada's OpenAI-compatible
// endpoint. cmd/ada's TestOpenAIClient starts Ada and runs this with
// ADA_URL and ADA_KEY; each check prints one JSON line, and any failure
// exits non-zero. The Go test checks what the client cannot see (the
// prompts the model got, the stored conversation).
import OpenAI from "openai";

const client = new OpenAI({ baseURL: process.env.ADA_URL + "/v1", apiKey: process.env.ADA_KEY, maxRetries: 0 });
const out = (o) => console.log(JSON.stringify(o));
const fail = (msg) => { console.error(msg); process.exit(1); };

// A plain completion.
const plain = await client.chat.completions.create({
  model: "ada",
  messages: [{ role: "user", content: "Say hello to the plain client." }],
});
if (plain.object !== "chat.completion" || plain.choices.length !== 1) fail("plain: " + JSON.stringify(plain));
out({ check: "plain", content: plain.choices[0].message.content, role: plain.choices[0].message.role,
  finish: plain.choices[0].finish_reason, usage: plain.usage });

// A stream, with the usage chunk asked for.
const stream = await client.chat.completions.create({
  model: "ada", stream: true, stream_options: { include_usage: true },
  messages: [{ role: "user", content: "Stream a hello to the client." }],
});
let content = "", chunks = 0, finish = null, usage = null, role = null;
for await (const chunk of stream) {
  chunks++;
  if (chunk.object !== "chat.completion.chunk") fail("stream chunk: " + JSON.stringify(chunk));
  if (chunk.usage) usage = chunk.usage;
  for (const c of chunk.choices) {
    role = role ?? c.delta.role ?? null;
    content += c.delta.content ?? "";
    finish = c.finish_reason ?? finish;
  }
}
out({ check: "stream", content, chunks, finish, usage, role });

// Per user: alice and bob each have a memory; each asks.
for (const user of ["alice", "bob"]) {
  const r = await client.chat.completions.create({
    model: "ada", user,
    messages: [{ role: "user", content: `What is my locker code? (asked by ${user})` }],
  });
  out({ check: "user", user, content: r.choices[0].message.content });
}

// A front-end resends the history: one Ada conversation.
const first = [
  { role: "system", content: "Answer like a gardener." },
  { role: "user", content: "I grow cherry tomatoes on the balcony." },
];
const a = await client.chat.completions.create({ model: "ada", user: "carol", messages: first }).withResponse();
const second = [...first, { role: "assistant", content: a.data.choices[0].message.content },
  { role: "user", content: [{ type: "text", text: "What should I plant beside them?" }] }];
const b = await client.chat.completions.create({ model: "ada", user: "carol", messages: second }).withResponse();
out({ check: "history", first: a.response.headers.get("x-ada-conversation-id"),
  second: b.response.headers.get("x-ada-conversation-id"), ada: b.data.ada });

// A bad request raises the client's APIError with status 400.
for (const [name, body] of [
  ["no messages", { model: "ada", messages: [] }],
  ["unknown model", { model: "gpt-imaginary", messages: [{ role: "user", content: "hi" }] }],
]) {
  try {
    await client.chat.completions.create(body);
    fail(name + ": no error");
  } catch (err) {
    if (!(err instanceof OpenAI.APIError)) fail(name + ": not an APIError: " + err);
    out({ check: "error", name, status: err.status, message: err.error?.message, type: err.error?.type, param: err.error?.param });
  }
}

// The client's own tools: the model calls one, the client runs it and asks
// again with the result; the same streamed.
const tools = [{ type: "function", function: { name: "get_weather", description: "The weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } }];
const ask = [{ role: "user", content: "What is the weather in Lyon? (tools)" }];
const r1 = await client.chat.completions.create({ model: "ada", user: "dave", messages: ask, tools });
const call = r1.choices[0].message.tool_calls?.[0];
if (!call) fail("no tool call: " + JSON.stringify(r1));
const r2 = await client.chat.completions.create({ model: "ada", user: "dave", tools, messages: [...ask, r1.choices[0].message,
  { role: "tool", tool_call_id: call.id, content: "sunny, 21°C" }] }).withResponse();
const streamed = await client.chat.completions.create({ model: "ada", user: "erin", tools, stream: true,
  messages: [{ role: "user", content: "And the weather in Lyon, streamed? (tools)" }] });
const calls = [];
let streamFinish = null;
for await (const chunk of streamed) {
  for (const c of chunk.choices) {
    streamFinish = c.finish_reason ?? streamFinish;
    for (const d of c.delta.tool_calls ?? []) {
      calls[d.index] ??= { id: "", name: "", arguments: "" };
      calls[d.index].id += d.id ?? "";
      calls[d.index].name += d.function?.name ?? "";
      calls[d.index].arguments += d.function?.arguments ?? "";
    }
  }
}
out({ check: "tools", finish: r1.choices[0].finish_reason, content: r1.choices[0].message.content, id: call.id,
  name: call.function.name, args: call.function.arguments, final: r2.data.choices[0].message.content,
  conversation: r2.response.headers.get("x-ada-conversation-id"), streamed: calls, streamFinish });

// The model list.
const models = [];
for await (const m of client.models.list()) models.push(m.id);
out({ check: "models", models });
