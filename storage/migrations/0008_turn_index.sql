-- v8: turns are found by their index within a conversation.
--
-- The chat recalls an earlier turn with its neighbours (turn_index ± 1)
-- and summaries read ranges of turns; both filter on the turn index, which
-- lives in the metadata JSON. Without an index every turn of the
-- conversation was read and its JSON parsed for each lookup (about 1 ms at
-- 700 turns, growing with the conversation). The expression is written
-- exactly as storage/documents.go's filter writes it, so that SQLite uses
-- the index; "conversation_id = ?" satisfies the partial index's WHERE.
CREATE INDEX documents_turn_index ON documents (conversation_id, type, json_extract(metadata, '$.turn_index'))
    WHERE conversation_id IS NOT NULL;
