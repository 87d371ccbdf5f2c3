-- v2: the Matrix bridge's own tables: bot facts, per-room settings, recent room messages.
-- (mautrix's crypto and room-state tables live in the same file but are
-- versioned by mautrix itself, in crypto_version and mx_version.)

-- Facts about the bot account that must survive a restart: the device id
-- (so the bot stays one verified device), the pickle key of its crypto store,
-- and whether the recovery key was already printed.
CREATE TABLE bridge_state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- One row per room the bot has been in. storage_enabled = 0 is privacy mode
-- (!ada privacy off). intro_sent makes the join introduction once-only,
-- because an invite can be delivered twice and the bot can be restarted.
CREATE TABLE bridge_rooms (
    room_id         TEXT    PRIMARY KEY,
    conversation_id TEXT    NOT NULL, -- conv-<uuid>; !ada clear replaces it
    storage_enabled INTEGER NOT NULL DEFAULT 1,
    intro_sent      INTEGER NOT NULL DEFAULT 0,
    updated_at      INTEGER NOT NULL  -- Unix milliseconds
);

-- Recent room messages, given to the model as context. Only what SPEC.md
-- allows: text, the sender's user id and the time (event_id only makes a
-- redelivered event idempotent). Never receipts, typing or presence.
CREATE TABLE bridge_messages (
    room_id  TEXT    NOT NULL,
    event_id TEXT    NOT NULL,
    sender   TEXT    NOT NULL,
    text     TEXT    NOT NULL,
    ts       INTEGER NOT NULL, -- origin_server_ts, Unix milliseconds
    PRIMARY KEY (room_id, event_id)
);
CREATE INDEX bridge_messages_room_ts ON bridge_messages (room_id, ts);
CREATE INDEX bridge_messages_ts ON bridge_messages (ts);
