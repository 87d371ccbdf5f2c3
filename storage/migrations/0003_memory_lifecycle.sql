-- v3: the memory lifecycle: every change to a memory in its history, and the
-- provenance of automatic memories.

-- One row per change (create, refresh, patch, retire, delete, expire), with
-- the memory as it was. It outlives the memory: a retired memory is removed
-- from documents (so no search can return it) and kept here.
CREATE TABLE memory_history (
    seq       INTEGER PRIMARY KEY,
    memory_id TEXT    NOT NULL,
    ts        INTEGER NOT NULL, -- Unix nanoseconds
    event     TEXT    NOT NULL,
    text      TEXT    NOT NULL,
    metadata  TEXT    NOT NULL, -- JSON, the memory's metadata at that change
    reason    TEXT    NOT NULL DEFAULT '',
    room_id   TEXT              -- for retention, like documents.room_id
);
CREATE INDEX memory_history_memory ON memory_history (memory_id, seq);
CREATE INDEX memory_history_room ON memory_history (ts) WHERE room_id IS NOT NULL;

-- The turns each automatic memory came from (metadata.source_ids, indexed
-- both ways): deleting a turn finds the memories that lose a source, and a
-- memory with no source left is deleted in the same transaction.
CREATE TABLE memory_sources (
    source_id TEXT NOT NULL,
    memory_id TEXT NOT NULL,
    PRIMARY KEY (source_id, memory_id)
) WITHOUT ROWID;
CREATE INDEX memory_sources_memory ON memory_sources (memory_id);
