-- v11: redactions the bridge received (and the purges of rooms it left),
-- recorded before anything is deleted,
-- so that none is lost (issue 26): a full room queue, a failing store or a
-- process killed between receiving and applying it leaves the row pending,
-- and the bridge applies it again, with backoff, until it is done. An
-- applied row stays (until retention) so that what the redacted message
-- would still cause is undone too: the message is not stored when it is
-- handled after its redaction, and a link added to it later (an answer
-- that was being made) makes the row pending again.
CREATE TABLE bridge_redactions (
    room_id     TEXT    NOT NULL,
    event_id    TEXT    NOT NULL, -- the redacted event; for a purge, the bot's leave
    -- redaction: the event's cascade; purge: everything the room stored
    -- (the bot left the room with ROOM_DATA_ON_LEAVE=purge)
    kind        TEXT    NOT NULL DEFAULT 'redaction' CHECK (kind IN ('redaction', 'purge')),
    received_at INTEGER NOT NULL, -- Unix milliseconds
    applied_at  INTEGER NOT NULL DEFAULT 0, -- 0 while pending
    attempts    INTEGER NOT NULL DEFAULT 0, -- failed applications so far
    next_at     INTEGER NOT NULL DEFAULT 0, -- when a pending row is due
    PRIMARY KEY (room_id, event_id)
);
CREATE INDEX bridge_redactions_due ON bridge_redactions (applied_at, next_at);
CREATE INDEX bridge_redactions_received ON bridge_redactions (received_at);
