-- v16: forgetting leaves no words behind (issue 36; DECISIONS.md,
-- "Identities, walls and forgetting").

-- The keyword index removes a deleted document's terms from its b-tree
-- instead of adding a delete marker beside them (FTS5's secure-delete,
-- SQLite 3.42+): otherwise the words of a forgotten memory stay in the
-- file until segments happen to be merged. The option is persistent (kept
-- in documents_fts_config); 'optimize' merges the index once, which drops
-- the terms that earlier deletions left behind.
INSERT INTO documents_fts (documents_fts, rank) VALUES ('secure-delete', 1);
INSERT INTO documents_fts (documents_fts) VALUES ('optimize');

-- A correction's reason named the newer memory and quoted its text
-- ("replaced by doc-…: <text>"): keep the id, drop the words.
UPDATE memory_history
SET reason = 'replaced by a newer memory ' || substr(reason, 13, instr(reason, ': ') - 13)
WHERE event = 'retire' AND reason LIKE 'replaced by doc-%: %';

-- A retire entry is found by the newer memory it names (storage/lifecycle.go,
-- forgetChainSQL).
CREATE INDEX memory_history_retired ON memory_history (reason) WHERE event = 'retire';

-- The older versions of memories already forgotten lose their words now,
-- as they do from this version on when the newer memory goes.
WITH RECURSIVE chain(id) AS (
    SELECT memory_id FROM memory_history WHERE event IN ('delete', 'expire')
    UNION
    SELECT h.memory_id FROM memory_history h JOIN chain c
        ON h.event = 'retire' AND h.reason = 'replaced by a newer memory ' || c.id
)
UPDATE memory_history SET text = '', metadata = json_remove(metadata, '$.tags')
WHERE memory_id IN (SELECT id FROM chain) AND (text != '' OR json_extract(metadata, '$.tags') IS NOT NULL);
