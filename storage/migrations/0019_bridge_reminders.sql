-- v19: reminders (issue 42): what a member asked Ada to post in a room at a
-- time (`!ada remind`, or in plain words). They are the bridge's own state:
-- kept over restarts, deleted when posted, cancelled, when the member asks
-- Ada to forget them, and when the bot leaves the room.

-- One row per pending reminder. number is the room's own (shown and used by
-- `!ada reminders cancel <n>`); it is never reused while the room is joined,
-- so a number seen in a listing never names another reminder later.
CREATE TABLE bridge_reminders (
    id         INTEGER PRIMARY KEY,
    room_id    TEXT    NOT NULL,
    number     INTEGER NOT NULL,
    member     TEXT    NOT NULL, -- who asked
    mention    INTEGER NOT NULL, -- 1: `me` (the post mentions the member)
    text       TEXT    NOT NULL,
    due_at     INTEGER NOT NULL, -- Unix milliseconds
    event_id   TEXT    NOT NULL, -- the request, which the post replies to
    created_at INTEGER NOT NULL, -- Unix milliseconds
    UNIQUE (room_id, number)
);
CREATE INDEX bridge_reminders_due ON bridge_reminders (due_at);
CREATE INDEX bridge_reminders_member ON bridge_reminders (member, room_id);

-- The last reminder number each room gave.
CREATE TABLE bridge_reminder_numbers (
    room_id TEXT    PRIMARY KEY,
    last    INTEGER NOT NULL
);
