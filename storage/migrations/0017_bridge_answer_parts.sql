-- v17: a link may also tie a member's question to an edit (m.replace) or a
-- reaction Ada posted for its answer (kinds 'edit' and 'reaction', doc_id
-- holding Ada's event id), so that taking the answer back (a redaction of
-- the question, `!ada forget me`) redacts every event of it, not only the
-- first reply (issue 40). They are kinds of their own so that counts of
-- "replies" stay counts of messages. SQLite cannot change a CHECK
-- constraint in place: the table is rebuilt with its rows and indexes.
CREATE TABLE bridge_links_new (
    room_id         TEXT    NOT NULL,
    event_id        TEXT    NOT NULL, -- the member's message or the bot's reply
    doc_id          TEXT    NOT NULL, -- doc-<uuid> of a turn or a memory; Ada's event id otherwise
    kind            TEXT    NOT NULL CHECK (kind IN ('turn', 'memory', 'reply', 'edit', 'reaction')),
    conversation_id TEXT    NOT NULL DEFAULT '', -- the turn's conversation
    ts              INTEGER NOT NULL, -- Unix milliseconds
    sender          TEXT    NOT NULL DEFAULT '', -- whose message Ada answered (reply, edit, reaction)
    PRIMARY KEY (room_id, event_id, doc_id)
);
INSERT INTO bridge_links_new (room_id, event_id, doc_id, kind, conversation_id, ts, sender)
    SELECT room_id, event_id, doc_id, kind, conversation_id, ts, sender FROM bridge_links;
DROP TABLE bridge_links;
ALTER TABLE bridge_links_new RENAME TO bridge_links;
CREATE INDEX bridge_links_ts ON bridge_links (ts);
CREATE INDEX bridge_links_sender ON bridge_links (room_id, sender) WHERE sender != '';
