-- v4: keyword search (BM25) beside the vectors, for every document type.

-- An external-content FTS5 index over documents.text: the text is stored
-- once, in documents. The porter stemmer over unicode61 ("light stemming":
-- "moved" finds "move") measured better than plain tokens on conversation
-- data (make bench; ada eval retrieval).
CREATE VIRTUAL TABLE documents_fts USING fts5 (
    text,
    content = 'documents',
    content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO documents_fts (documents_fts) VALUES ('rebuild');

-- Triggers keep the index in the same transaction as the document, on
-- every path that writes documents (put, replace, delete, retention, the
-- cascade of provenance), so no row is ever missing or orphaned.
CREATE TRIGGER documents_fts_insert AFTER INSERT ON documents BEGIN
    INSERT INTO documents_fts (rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER documents_fts_delete AFTER DELETE ON documents BEGIN
    INSERT INTO documents_fts (documents_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;
CREATE TRIGGER documents_fts_update AFTER UPDATE OF text ON documents BEGIN
    INSERT INTO documents_fts (documents_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
    INSERT INTO documents_fts (rowid, text) VALUES (new.rowid, new.text);
END;
