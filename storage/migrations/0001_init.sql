-- v1: the "conversations" collection: documents, their binary-quantised vectors, store facts.

-- Facts about the store itself, such as which embedder wrote the vectors.
CREATE TABLE store_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- One row per document. The rowid is shared with documents_vec. The float32
-- embedding is kept here for exact rescoring and for reindexing; type, scope,
-- conversation and room are columns so that filters use indexes.
CREATE TABLE documents (
    rowid           INTEGER PRIMARY KEY,
    id              TEXT    NOT NULL UNIQUE,
    type            TEXT    NOT NULL,
    scope           TEXT    NOT NULL,
    conversation_id TEXT,
    room_id         TEXT,
    ts              INTEGER NOT NULL, -- metadata timestamp, Unix nanoseconds, for ordering
    text            TEXT    NOT NULL,
    metadata        TEXT    NOT NULL, -- JSON, validated against the type's schema
    embedding       BLOB    NOT NULL  -- 768 little-endian float32
);
CREATE INDEX documents_type_ts ON documents (type, ts);
CREATE INDEX documents_conversation ON documents (conversation_id, type, ts) WHERE conversation_id IS NOT NULL;
CREATE INDEX documents_room ON documents (room_id, ts) WHERE room_id IS NOT NULL;

-- Binary codes of the vectors (2048 sign bits of two random rotations, see
-- quantize in storage/search.go: 256 bytes instead of 3 KiB) for a fast
-- Hamming pre-selection; the candidates are rescored exactly from
-- documents.embedding. The doc_type partition key keeps a query for one type
-- from scanning the others; scope and conversation are metadata columns
-- filtered inside the scan. The shard partition key (0 to 3, at random)
-- splits each type in four: sqlite-vec's top-k selection costs k passes over
-- every chunk, so four KNNs of k/4 cost a quarter of one of k (see Search).
CREATE VIRTUAL TABLE documents_vec USING vec0 (
    doc_type        TEXT PARTITION KEY,
    shard           INTEGER PARTITION KEY,
    scope           TEXT,
    conversation_id TEXT,
    embedding       BIT[2048]
);
