package storage

import (
	"context"
	"database/sql"
	"strconv"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/storage/vecindex"
)

const (
	reindexTargetKey = "reindex_target"
	reindexCursorKey = "reindex_cursor"
)

// ReindexProgress is reported after each batch.
type ReindexProgress struct {
	Done, Total int
}

// Reindex re-embeds every document with emb, in batches, each committed
// with its progress. An interrupted run resumes where it stopped; the store
// switches to the new embedder only when every document is done.
func (db *DB) Reindex(ctx context.Context, emb core.Embedder, batch int, progress func(ReindexProgress)) error {
	target, err := db.meta(ctx, reindexTargetKey)
	if err != nil {
		return err
	}
	cursor := int64(0)
	if target == emb.Name() {
		c, err := db.meta(ctx, reindexCursorKey)
		if err != nil {
			return err
		}
		cursor, _ = strconv.ParseInt(c, 10, 64)
	} else if err := setMeta(ctx, db.write, reindexTargetKey, emb.Name()); err != nil {
		return err
	}
	var total, done int
	if err := db.read.QueryRowContext(ctx, "SELECT count(*), count(*) FILTER (WHERE rowid <= ?) FROM documents", cursor).Scan(&total, &done); err != nil {
		return storeErr(err)
	}
	for {
		rows, err := db.batchAfter(ctx, cursor, batch)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			break
		}
		texts := make([]string, len(rows))
		for i, r := range rows {
			texts[i] = core.SpokenText(r.speaker.String, r.text) // a turn keeps its speaker
		}
		vecs, err := core.EmbedEach(ctx, emb, texts)
		if err != nil {
			return err
		}
		if err := db.inTx(ctx, func(tx *writeTx) error { return rewriteVectors(ctx, tx, rows, vecs) }); err != nil {
			return err
		}
		cursor = rows[len(rows)-1].rowid
		done += len(rows)
		if progress != nil {
			progress(ReindexProgress{Done: done, Total: total})
		}
	}
	return db.inTx(ctx, func(tx *writeTx) error {
		if err := setMeta(ctx, tx, embedderKey, emb.Name()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "DELETE FROM store_meta WHERE key IN (?, ?)", reindexTargetKey, reindexCursorKey)
		return storeErr(err)
	})
}

type reindexRow struct {
	rowid                   int64
	text, docType, scope    string
	conversationID, speaker sql.NullString
}

func (db *DB) batchAfter(ctx context.Context, cursor int64, n int) ([]reindexRow, error) {
	rows, err := db.read.QueryContext(ctx,
		"SELECT rowid, text, type, scope, conversation_id, CASE type WHEN 'turn' THEN json_extract(metadata, '$.speaker') END "+
			"FROM documents WHERE rowid > ? ORDER BY rowid LIMIT ?", cursor, n)
	if err != nil {
		return nil, storeErr(err)
	}
	defer rows.Close()
	var out []reindexRow
	for rows.Next() {
		var r reindexRow
		if err := rows.Scan(&r.rowid, &r.text, &r.docType, &r.scope, &r.conversationID, &r.speaker); err != nil {
			return nil, storeErr(err)
		}
		out = append(out, r)
	}
	return out, storeErr(rows.Err())
}

func rewriteVectors(ctx context.Context, tx *writeTx, rows []reindexRow, vecs [][]float32) error {
	for i, r := range rows {
		if len(vecs[i]) != core.Dim {
			return core.Errorf(core.KindUpstream, "embedder returned %d dimensions, want %d", len(vecs[i]), core.Dim)
		}
		if _, err := tx.ExecContext(ctx, "UPDATE documents SET embedding = ? WHERE rowid = ?", encodeFloats(vecs[i]), r.rowid); err != nil {
			return storeErr(err)
		}
		c := vecindex.Quantize(vecs[i])
		if _, err := tx.ExecContext(ctx, "UPDATE documents_codes SET code = ? WHERE rowid = ?", c, r.rowid); err != nil {
			return storeErr(err)
		}
		tx.insertedCode(r.rowid, r.docType, r.scope, r.conversationID.String, c)
	}
	return setMeta(ctx, tx, reindexCursorKey, strconv.FormatInt(rows[len(rows)-1].rowid, 10))
}
