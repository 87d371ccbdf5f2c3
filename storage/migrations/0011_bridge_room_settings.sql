-- v11: each room its own Ada (issue 24): the settings a room's moderators
-- chose (!ada set), and the answers and model tokens each member used, for
-- the quotas. Both are the bridge's own state and are deleted when the bot
-- leaves the room.

-- One row per setting a room chose; a setting without a row is the
-- operator's default. The bridge checks value against the operator's bounds
-- when it is set and again when it is used.
CREATE TABLE bridge_room_settings (
    room_id    TEXT    NOT NULL,
    name       TEXT    NOT NULL,
    value      TEXT    NOT NULL,
    updated_at INTEGER NOT NULL, -- Unix milliseconds
    PRIMARY KEY (room_id, name)
);

-- One row per answer: who asked, when, and the model's tokens (prompt and
-- answer, as the backend reported them; 0 until the answer is made). Rows
-- older than the longest quota window (a day) are deleted as new ones come.
CREATE TABLE bridge_usage (
    id      INTEGER PRIMARY KEY,
    room_id TEXT    NOT NULL,
    member  TEXT    NOT NULL, -- the asker's user id
    ts      INTEGER NOT NULL, -- Unix milliseconds
    tokens  INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX bridge_usage_room_ts ON bridge_usage (room_id, ts);
