-- v10: a link may also tie a room event to a message Ada posted because of
-- it (kind 'reply': doc_id holds Ada's event id), so that a redaction or an
-- edit of the member's message redacts Ada's replies that quote or answer it
-- (issue 27). SQLite cannot change a CHECK constraint in place: the table is
-- rebuilt with its rows.
CREATE TABLE bridge_links_new (
    room_id         TEXT    NOT NULL,
    event_id        TEXT    NOT NULL, -- the member's message or the bot's reply
    doc_id          TEXT    NOT NULL, -- doc-<uuid> of a turn or a memory; Ada's event id for a reply
    kind            TEXT    NOT NULL CHECK (kind IN ('turn', 'memory', 'reply')),
    conversation_id TEXT    NOT NULL DEFAULT '', -- the turn's conversation
    ts              INTEGER NOT NULL, -- Unix milliseconds
    PRIMARY KEY (room_id, event_id, doc_id)
);
INSERT INTO bridge_links_new (room_id, event_id, doc_id, kind, conversation_id, ts)
    SELECT room_id, event_id, doc_id, kind, conversation_id, ts FROM bridge_links;
DROP TABLE bridge_links;
ALTER TABLE bridge_links_new RENAME TO bridge_links;
CREATE INDEX bridge_links_ts ON bridge_links (ts);
