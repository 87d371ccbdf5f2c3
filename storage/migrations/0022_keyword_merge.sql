-- v22: the keyword index keeps few segments (issue 39, the small store).

-- Each write that adds or deletes documents ends with a merge step
-- (storage/keyword.go, mergeKeywordSQL). With usermerge at 2 the step
-- merges any two segments of one level, not only four: at 1,000 memories
-- written 100 at a time the index holds 2 segments, not 4 (or 10 with no
-- step). The option is persistent (kept in documents_fts_config).
INSERT INTO documents_fts (documents_fts, rank) VALUES ('usermerge', 2);
