// The MCP acceptance script: the official TypeScript SDK client against the
// real Ada, run by cmd/ada/mcp_e2e_test.go. It walks the memory tools over
// streamable HTTP (ADA_MCP_URL, ADA_MCP_KEY), checks that a wrong key is
// refused, and walks them again over stdio by starting ADA_BIN mcp (with
// this process's environment: DATA_DIR and the rest). It prints one line per
// step and exits non-zero at the first failure.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const TOOLS = ["add_memory", "delete_memory", "list_memories", "recall_conversation", "search_memory", "update_memory"];

function check(ok, what) {
  if (!ok) throw new Error(what);
}

function newClient() {
  return new Client({ name: "ada-acceptance", version: "1.0.0" });
}

// call runs a tool and returns its structured result; a tool error fails.
async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  check(!res.isError, `${name}: tool error ${JSON.stringify(res.content)}`);
  check(res.structuredContent, `${name}: no structured content`);
  return res.structuredContent;
}

async function walk(client, form) {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  check(JSON.stringify(names) === JSON.stringify(TOOLS), `${form}: tools ${names}`);
  for (const t of tools) {
    check(t.inputSchema && t.inputSchema.type === "object" && t.description, `${form}: ${t.name} has no schema or description`);
  }
  console.log(`${form}: listed ${names.length} tools`);

  const text = `The ${form} tester keeps a lemon tree called Clementine on the balcony.`;
  const added = await call(client, "add_memory", { text, entity: "tester", importance: 4, tags: ["plants"] });
  check(/^doc-/.test(added.id) && added.text === text, `${form}: add_memory returned ${JSON.stringify(added)}`);
  console.log(`${form}: added ${added.id}`);

  const found = await call(client, "search_memory", { query: "what tree is on the balcony", entity: "tester", limit: 5 });
  const hit = found.items.find((m) => m.id === added.id);
  check(hit, `${form}: search_memory did not find ${added.id}: ${JSON.stringify(found)}`);
  check(hit.explain && typeof hit.explain.relevance === "number", `${form}: the hit has no explain: ${JSON.stringify(hit)}`);
  console.log(`${form}: found it, relevance ${hit.explain.relevance}`);

  const updated = await call(client, "update_memory", { id: added.id, text: `The ${form} tester's lemon tree is called Clementine.`, importance: 5 });
  check(updated.id === added.id && updated.meta.importance === 5 && /Clementine/.test(updated.text), `${form}: update_memory returned ${JSON.stringify(updated)}`);
  console.log(`${form}: updated it`);

  const deleted = await call(client, "delete_memory", { id: added.id });
  check(deleted.deleted === true && deleted.id === added.id, `${form}: delete_memory returned ${JSON.stringify(deleted)}`);
  const again = await client.callTool({ name: "delete_memory", arguments: { id: added.id } });
  check(again.isError && /not found/.test(JSON.stringify(again.content)), `${form}: a second delete was not a tool error: ${JSON.stringify(again)}`);
  const listed = await call(client, "list_memories", { entity: "tester" });
  check(!listed.items.some((m) => m.id === added.id), `${form}: the deleted memory is still listed`);
  console.log(`${form}: deleted it`);
}

async function overHTTP() {
  const url = new URL(process.env.ADA_MCP_URL);
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { Authorization: `Bearer ${process.env.ADA_MCP_KEY}` } },
  }));
  await walk(client, "http");
  await client.close();

  const intruder = newClient();
  let refused = null;
  try {
    await intruder.connect(new StreamableHTTPClientTransport(url, {
      requestInit: { headers: { Authorization: "Bearer wrong-key" } },
    }));
  } catch (err) {
    refused = err;
  }
  check(refused && /401/.test(String(refused.code ?? "") + refused.message), `http: a wrong key was not refused with 401: ${refused}`);
  console.log("http: a wrong key is refused (401)");
}

async function overStdio() {
  const client = newClient();
  const transport = new StdioClientTransport({ command: process.env.ADA_BIN, args: ["mcp"], env: { ...process.env }, stderr: "inherit" });
  await client.connect(transport);
  await walk(client, "stdio");
  await client.close();
}

try {
  if (process.env.ADA_MCP_URL) await overHTTP();
  if (process.env.ADA_BIN) await overStdio();
  console.log("ok");
} catch (err) {
  console.error(`FAIL: ${err.stack ?? err}`);
  process.exit(1);
}
