-- v6: the binary codes of the vectors move from the documents_vec vec0
-- table to a plain table.
--
-- Searches scan the codes in memory (storage/codeindex.go) and never ran
-- sqlite-vec's KNN on documents_vec since: the table only kept the codes
-- durable, and it did so at a high price. A vec0 insert writes a rowid
-- row, a chunk's validity bitmap, rowid and vector blobs and a metadata
-- chunk per column: a fifth of a document's insert (BenchmarkPut), and
-- reading it back row by row made opening a store of 100,000 documents
-- take seconds. Here a code is one row, read back in one pass.
--
-- The rowid is the document's; type, scope and conversation are copied
-- from it (they never change: a document is replaced whole), so that the
-- index loads without reading the documents (3 KiB each).
CREATE TABLE documents_codes (
    rowid           INTEGER PRIMARY KEY,
    doc_type        TEXT    NOT NULL,
    scope           TEXT    NOT NULL,
    conversation_id TEXT    NOT NULL DEFAULT '',
    code            BLOB    NOT NULL -- 2048 bits (see quantize in storage/quantize.go)
);
-- Type, scope and conversation are taken from the documents themselves, and
-- a code without its document is left behind (its rowid could otherwise
-- collide with a later document's).
INSERT INTO documents_codes (rowid, doc_type, scope, conversation_id, code)
    SELECT v.rowid, d.type, d.scope, coalesce(d.conversation_id, ''), v.embedding
    FROM documents_vec v JOIN documents d ON d.rowid = v.rowid;
DROP TABLE documents_vec;
