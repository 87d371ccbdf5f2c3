-- v21: a turn's speaker is one of its words (issue 37). "What does Sam
-- do?" finds Sam's own "I go climbing", which never says "Sam": the
-- keyword index holds each turn's speaker (metadata.speaker: a room
-- member's display name then, or the name a client or an import gave)
-- beside its text, as the turn's vector is made from "Sam: ..."
-- (core.SpokenText). The stored text stays what was said.

-- The speaker as a column the external-content index can read (rebuild,
-- integrity-check); computed, never stored twice.
ALTER TABLE documents ADD COLUMN speaker TEXT
    GENERATED ALWAYS AS (CASE type WHEN 'turn' THEN json_extract(metadata, '$.speaker') END) VIRTUAL;

DROP TRIGGER documents_fts_delete;
DROP TRIGGER documents_fts_update;
DROP TABLE documents_fts;

-- Both columns are matched by every query, and BM25 weighs them as one
-- text (a hit's frequency over the row's length in both): the name counts
-- as a word of the turn.
CREATE VIRTUAL TABLE documents_fts USING fts5 (
    text,
    speaker,
    content = 'documents',
    content_rowid = 'rowid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO documents_fts (documents_fts) VALUES ('rebuild');
INSERT INTO documents_fts (documents_fts, rank) VALUES ('secure-delete', 1);

-- As in v4 and v7: the insert is written by code (storage/documents.go),
-- deletions and changes by triggers, with the values that were indexed.
CREATE TRIGGER documents_fts_delete AFTER DELETE ON documents BEGIN
    INSERT INTO documents_fts (documents_fts, rowid, text, speaker) VALUES ('delete', old.rowid, old.text, old.speaker);
END;
CREATE TRIGGER documents_fts_update AFTER UPDATE OF text, metadata ON documents
WHEN old.text IS NOT new.text OR old.speaker IS NOT new.speaker BEGIN
    INSERT INTO documents_fts (documents_fts, rowid, text, speaker) VALUES ('delete', old.rowid, old.text, old.speaker);
    INSERT INTO documents_fts (rowid, text, speaker) VALUES (new.rowid, new.text, new.speaker);
END;
