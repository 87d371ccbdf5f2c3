-- v5: what Ada stored because of a room message, so that a redaction of
-- that message (m.room.redaction) deletes it too (DECISIONS.md, Matrix
-- bridge): the turns of an answered question (linked to the question and to
-- the bot's reply) and the memory of `!ada remember`. Rows go with the
-- redaction, and with retention like the room's messages.
CREATE TABLE bridge_derived (
    room_id         TEXT    NOT NULL,
    event_id        TEXT    NOT NULL, -- the member's message or the bot's reply
    doc_id          TEXT    NOT NULL, -- doc-<uuid> of a turn or a memory
    kind            TEXT    NOT NULL CHECK (kind IN ('turn', 'memory')),
    conversation_id TEXT    NOT NULL DEFAULT '', -- the turn's conversation
    ts              INTEGER NOT NULL, -- Unix milliseconds
    PRIMARY KEY (room_id, event_id, doc_id)
);
CREATE INDEX bridge_derived_ts ON bridge_derived (ts);
