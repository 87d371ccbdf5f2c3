-- v13: a reply link names the member whose message Ada answered, so that
-- `!ada forget me` redacts Ada's replies to them (issue 26) even when their
-- messages were never stored (privacy mode) or are out of the window.
-- Links written before have an empty sender.
ALTER TABLE bridge_links ADD COLUMN sender TEXT NOT NULL DEFAULT '';
CREATE INDEX bridge_links_sender ON bridge_links (room_id, sender) WHERE sender != '';
