-- v15: the one-time links `!ada web` sends a member to the memory page
-- (issue 30). Only the SHA-256 of a token is kept, so the file never holds
-- a usable link; a row goes when it is redeemed, when it expires, or with
-- `!ada forget me`. issued_at paces a member's requests.
CREATE TABLE bridge_web_logins (
    token_hash BLOB    PRIMARY KEY,
    user_id    TEXT    NOT NULL,
    issued_at  INTEGER NOT NULL, -- Unix milliseconds
    expires_at INTEGER NOT NULL  -- Unix milliseconds
);
CREATE INDEX bridge_web_logins_user ON bridge_web_logins (user_id, issued_at);
