-- v12: what each room's last answer used, for `!ada why` after a restart
-- (issue 26): one row a room, replaced by the next answer, deleted with
-- what it quotes (a redacted question or reply, a forgotten memory, turn or
-- summary), with the room's data (retention) and never written in privacy
-- mode. body is the JSON the bridge shows; doc_ids the ids of the documents
-- it quotes, a JSON array.
CREATE TABLE bridge_why (
    room_id        TEXT    PRIMARY KEY,
    question_event TEXT    NOT NULL,
    reply_event    TEXT    NOT NULL,
    doc_ids        TEXT    NOT NULL,
    body           TEXT    NOT NULL,
    ts             INTEGER NOT NULL -- Unix milliseconds
);
