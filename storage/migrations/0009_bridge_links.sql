-- v9: the bridge's links from room events to what Ada stored because of them
-- get one name everywhere (table, storage type, bot): links. Rename only; the
-- rows and their meaning are those of v5.
ALTER TABLE bridge_derived RENAME TO bridge_links;
DROP INDEX bridge_derived_ts;
CREATE INDEX bridge_links_ts ON bridge_links (ts);
