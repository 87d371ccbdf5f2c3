-- v18: members' memory page sessions, kept over restarts (issue 40 item 5).
-- Only the SHA-256 of a session id is kept: the file never holds a cookie
-- that would let anyone in. epoch is the member's sessions epoch the session
-- was opened under (bridge_state web_sessions:<user>), so `!ada web logout`
-- still ends it; seen_at is its last use (saved at most once a minute). A
-- row stays a day past its expiry, so that an expired session can say how
-- to get a new link; then it goes.
CREATE TABLE bridge_web_sessions (
    id_hash    BLOB    PRIMARY KEY,
    user_id    TEXT    NOT NULL,
    epoch      TEXT    NOT NULL,
    expires_at INTEGER NOT NULL, -- Unix milliseconds
    seen_at    INTEGER NOT NULL  -- Unix milliseconds
);
CREATE INDEX bridge_web_sessions_user ON bridge_web_sessions (user_id);
CREATE INDEX bridge_web_sessions_expiry ON bridge_web_sessions (expires_at);
