package storage

import (
	"context"
	"encoding/json"
	"time"
)

// What the bridge keeps of documents and people that core forgot through
// any door (the API, MCP, the memory page, retention): core calls these
// after its deletion (core.ForgetListener), whether or not the bridge
// runs, since the bridge's tables are in the same database.

const (
	// deleteWhyQuotingSQL deletes the last answers whose used documents
	// (a JSON array) hold one of the ids given (a JSON array).
	deleteWhyQuotingSQL = `DELETE FROM bridge_why WHERE EXISTS (
		SELECT 1 FROM json_each(bridge_why.doc_ids) AS used, json_each(?) AS gone WHERE used.value = gone.value)`
	// deleteWhyAskedBySQL deletes the last answers to the member's
	// questions: those still in the rooms' windows or linked to a turn.
	deleteWhyAskedBySQL = `DELETE FROM bridge_why WHERE question_event IN (
		SELECT event_id FROM bridge_messages WHERE sender = ?1 UNION SELECT event_id FROM bridge_links WHERE sender = ?1)`
	deleteAllMessagesFromSQL = `DELETE FROM bridge_messages WHERE sender = ?`
	deleteAllRemindersOfSQL  = `DELETE FROM bridge_reminders WHERE member = ?`
	// deleteWhyAskedInRoomSQL is deleteWhyAskedBySQL in one room; like
	// the other per-room deletions, it takes the room, then the member.
	deleteWhyAskedInRoomSQL = `DELETE FROM bridge_why WHERE room_id = ?1 AND question_event IN (
		SELECT event_id FROM bridge_messages WHERE room_id = ?1 AND sender = ?2
		UNION SELECT event_id FROM bridge_links WHERE room_id = ?1 AND sender = ?2)`
)

// DocumentsForgotten deletes the rooms' last answers (`!ada why`) that
// quote one of the documents: they hold the documents' text.
func (b *Bridge) DocumentsForgotten(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	gone, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	_, err = b.w.ExecContext(ctx, deleteWhyQuotingSQL, string(gone))
	return err
}

// PersonForgotten deletes what the bridge holds from a member in the room,
// or in every room when roomID is "": the last answers to their questions,
// their stored room messages, their pending reminders (their words) — as
// `!ada forget me` does in one room — and their ways into the memory page
// (tokens and sessions), which are not a room's. It records the forgetting,
// asked at `at`, first (RecordForgotten), so that their earlier events stay
// out of prompts.
func (b *Bridge) PersonForgotten(ctx context.Context, userID, roomID string, at time.Time) error {
	if err := b.RecordForgotten(ctx, userID, roomID, at); err != nil {
		return err
	}
	queries, args := []string{deleteWhyAskedBySQL, deleteAllMessagesFromSQL, deleteAllRemindersOfSQL}, []any{userID}
	if roomID != "" {
		queries, args = []string{deleteWhyAskedInRoomSQL, deleteMessagesFromSQL, deleteMemberRemSQL}, []any{roomID, userID}
	}
	if err := b.execAll(ctx, queries, args...); err != nil {
		return err
	}
	return b.EndWebSessions(ctx, userID)
}

// RoomForgotten deletes what the bridge holds from the room (PurgeRoom:
// its stored messages, links and last answer) and its pending reminders
// (its members' words), in one transaction. Its settings and reminder
// numbering stay: the bridge may still be in the room.
func (b *Bridge) RoomForgotten(ctx context.Context, roomID string) error {
	return b.execAll(ctx, []string{clearMessagesSQL, deleteRoomLinksSQL, deleteWhySQL, dropRoomRemindersSQL}, roomID)
}
