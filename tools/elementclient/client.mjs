// A Matrix member played by Element's own stack: matrix-js-sdk with its Rust
// crypto (the WebAssembly build Element Web ships). bot's tests run it to see
// Ada's encrypted answers as an Element user would.
//
//   node client.mjs <homeserver URL> <user id> <password>
//
// It logs in (a new device), starts syncing with end-to-end encryption and
// prints JSON lines on stdout:
//   {"kind":"ready","user_id":…,"device_id":…}   once it has synced
//   {"kind":"event",…}   each timeline event it receives, again each time it
//                        is decrypted (or fails to be), edited or redacted
//   {"kind":"done","cmd":n,…} / {"kind":"error","cmd":n,"error":…}
//                        the answer to command n
// Commands are JSON lines on stdin, each with a number "cmd":
//   {"op":"join","room":…}
//   {"op":"create","invite":[…],"direct":bool,"encrypted":bool,"name":…} → room_id
//   {"op":"send","room":…,"body":…} → event_id
//   {"op":"redact","room":…,"event":…}
//   {"op":"timeline","room":…} → events: the room's live timeline as the app
//                        would render it now (edits applied, redactions done)
// It exits when stdin closes.
import { createInterface } from "node:readline";

// matrix-js-sdk 43 wants Node 22; on Node 20 only this ES2024 function is
// missing (as the SDK uses it: a promise with its resolve and reject).
Promise.withResolvers ??= function withResolvers() {
  let resolve, reject;
  const promise = new this((res, rej) => { resolve = res; reject = rej; });
  return { promise, resolve, reject };
};
const sdk = await import("matrix-js-sdk");
const { logger } = await import("matrix-js-sdk/lib/logger.js");

const [baseUrl, userId, password] = process.argv.slice(2);
if (!password) {
  process.stderr.write("usage: node client.mjs <homeserver URL> <user id> <password>\n");
  process.exit(2);
}
// The SDK logs to the console; stdout carries only our lines.
logger.setLevel(process.env.ELEMENT_CLIENT_DEBUG ? "debug" : "warn");
for (const m of ["log", "info", "debug", "warn", "trace"]) console[m] = (...a) => console.error(...a);

const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");

// A timeline event as this client sees it. own_content is the event's own
// (decrypted) content; content is what the app shows, with edits applied.
function describe(ev) {
  return {
    kind: "event",
    room: ev.getRoomId(),
    id: ev.getId(),
    type: ev.getType(),
    sender: ev.getSender(),
    encrypted: ev.isEncrypted(),
    failure: ev.isDecryptionFailure() ? String(ev.decryptionFailureReason ?? "unknown") : null,
    redacted: ev.isRedacted(),
    redacts: ev.event.redacts ?? ev.getContent()?.redacts ?? null,
    own_content: ev.getOriginalContent(),
    content: ev.getContent(),
  };
}

const login = await sdk.createClient({ baseUrl }).loginRequest({
  type: "m.login.password",
  identifier: { type: "m.id.user", user: userId },
  password,
  initial_device_display_name: "Element test client",
});
const client = sdk.createClient({
  baseUrl,
  userId: login.user_id,
  accessToken: login.access_token,
  deviceId: login.device_id,
  // Our own events join the timeline when the server echoes them, so its
  // order is the server's (a local echo would sit where it was sent).
  pendingEventOrdering: sdk.PendingEventOrdering.Detached,
});
await client.initRustCrypto({ useIndexedDB: false });

client.on(sdk.RoomEvent.Timeline, (ev, _room, toStartOfTimeline) => {
  // Encrypted events are reported once their decryption settles (below).
  if (!toStartOfTimeline && !ev.isEncrypted()) out(describe(ev));
});
client.on(sdk.MatrixEventEvent.Decrypted, (ev) => out(describe(ev)));
client.on(sdk.MatrixEventEvent.Replaced, (ev) => out(describe(ev)));
client.on(sdk.RoomEvent.Redaction, (redaction, room) => {
  const target = room?.findEventById(redaction.event.redacts ?? redaction.getContent().redacts);
  if (target) out(describe(target));
});

const ops = {
  async join({ room }) {
    await client.joinRoom(room);
    return { room_id: room };
  },
  async create({ invite = [], direct = false, encrypted = true, name }) {
    const initial_state = encrypted
      ? [{ type: "m.room.encryption", state_key: "", content: { algorithm: "m.megolm.v1.aes-sha2" } }]
      : [];
    const { room_id } = await client.createRoom({
      invite,
      is_direct: direct,
      name,
      preset: direct ? "trusted_private_chat" : "private_chat",
      initial_state,
    });
    return { room_id };
  },
  async send({ room, body }) {
    const { event_id } = await client.sendMessage(room, { msgtype: "m.text", body });
    return { event_id };
  },
  async redact({ room, event }) {
    const { event_id } = await client.redactEvent(room, event);
    return { event_id };
  },
  async timeline({ room }) {
    const r = client.getRoom(room);
    if (!r) throw new Error(`not in room ${room}`);
    return { events: r.getLiveTimeline().getEvents().map(describe) };
  },
};

// Commands run one at a time, in order.
let queue = Promise.resolve();
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  queue = queue.then(async () => {
    let cmd;
    try {
      cmd = JSON.parse(line);
      const op = ops[cmd.op];
      if (!op) throw new Error(`unknown op ${cmd.op}`);
      out({ kind: "done", cmd: cmd.cmd, ...(await op(cmd)) });
    } catch (err) {
      out({ kind: "error", cmd: cmd?.cmd ?? null, error: String(err?.message ?? err) });
    }
  });
});
lines.on("close", async () => {
  await queue;
  client.stopClient();
  process.exit(0);
});

// Ready once synced and the device's keys are on the server: others can only
// encrypt for a device whose keys they can download. The keys go up in the
// background with no event to wait for, so ask the server (bounded).
async function published() {
  for (let i = 0; i < 200; i++) {
    const keys = await client.downloadKeysForUsers([login.user_id]);
    if (keys.device_keys?.[login.user_id]?.[login.device_id]) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
client.once(sdk.ClientEvent.Sync, async (state) => {
  if (state !== "PREPARED") out({ kind: "error", cmd: null, error: `first sync: ${state}` });
  else if (!(await published())) out({ kind: "error", cmd: null, error: "device keys not uploaded after 20 s" });
  else out({ kind: "ready", user_id: login.user_id, device_id: login.device_id });
});
// A sync with more new events than its timeline limit has a gap, which
// would hide events from the tests: the limit is far above what they send.
const filter = new sdk.Filter(login.user_id);
filter.setDefinition({ room: { timeline: { limit: 1000 } } });
await client.startClient({ initialSyncLimit: 20, filter });
