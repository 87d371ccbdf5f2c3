package storage

import (
	"context"
	"time"

	"github.com/ada-chat/ada/core"
)

// recentConversationsSQL groups turns by conversation. The preview is the
// conversation's first user message, which says what it was about.
const recentConversationsSQL = `
SELECT c.conversation_id, c.last_ts, c.turns,
       COALESCE((SELECT text FROM documents f
                 WHERE f.conversation_id = c.conversation_id AND f.type = 'turn'
                   AND json_extract(f.metadata, '$.role') = 'user'
                 ORDER BY f.ts, f.rowid LIMIT 1), '')
FROM (SELECT conversation_id, max(ts) AS last_ts, count(*) AS turns
      FROM documents WHERE type = 'turn' AND conversation_id IS NOT NULL
      GROUP BY conversation_id) c
ORDER BY c.last_ts DESC
LIMIT ?`

const previewRunes = 120

// RecentConversations lists conversations by their newest turn, newest first.
func (db *DB) RecentConversations(ctx context.Context, limit int) ([]core.Conversation, error) {
	rows, err := db.read.QueryContext(ctx, recentConversationsSQL, limit)
	if err != nil {
		return nil, storeErr(err)
	}
	defer rows.Close()
	out := []core.Conversation{}
	for rows.Next() {
		var c core.Conversation
		var ts int64
		if err := rows.Scan(&c.ID, &ts, &c.TurnCount, &c.Preview); err != nil {
			return nil, storeErr(err)
		}
		c.Timestamp = time.Unix(0, ts).UTC()
		if r := []rune(c.Preview); len(r) > previewRunes {
			c.Preview = string(r[:previewRunes]) + "…"
		}
		out = append(out, c)
	}
	return out, storeErr(rows.Err())
}
