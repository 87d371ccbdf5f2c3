package chroma

import (
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/ada-chat/ada/core"
)

// Chroma's metadata holds scalars only. A document's full metadata is kept
// as JSON in metaKey; the scalar fields beside it are those Chroma filters
// on (whereOf). Tags are a list, which Chroma 1.0 cannot filter: a filter
// on a tag is applied here, after the server's (matches).
const metaKey = "ada_meta"

// chromaMeta is the metadata Chroma stores for d.
func chromaMeta(d core.Document) (map[string]any, error) {
	raw, err := json.Marshal(d.Meta)
	if err != nil {
		return nil, core.Wrap(core.KindInternal, err, "encode metadata")
	}
	m := map[string]any{metaKey: string(raw), "type": string(d.Meta.Type), "scope": d.Meta.Scope,
		"ts": d.Meta.Timestamp.UnixNano(), "has_room": d.Meta.RoomID != "", "has_sources": len(d.Meta.SourceIDs) > 0}
	if d.Meta.ConversationID != "" {
		m["conversation_id"] = d.Meta.ConversationID
	}
	if d.Meta.RoomID != "" {
		m["room_id"] = d.Meta.RoomID
	}
	if d.Meta.TurnIndex != nil {
		m["turn_index"] = *d.Meta.TurnIndex
	}
	if d.Meta.ExpiresAt != nil {
		m["expires_at"] = d.Meta.ExpiresAt.UnixNano()
	}
	return m, nil
}

// document rebuilds a stored document from a record's columns.
func document(id, text string, meta map[string]any, emb []float32) (core.Document, error) {
	d := core.Document{ID: id, Text: text, Embedding: emb}
	raw, _ := meta[metaKey].(string)
	if err := json.Unmarshal([]byte(raw), &d.Meta); err != nil {
		return d, core.Wrap(core.KindInternal, err, "document %s: corrupt metadata", id)
	}
	return d, nil
}

// documents rebuilds the documents of r.
func documents(r records) ([]core.Document, error) {
	out := make([]core.Document, 0, len(r.IDs))
	for i, id := range r.IDs {
		var text string
		var emb []float32
		if i < len(r.Documents) {
			text = r.Documents[i]
		}
		if i < len(r.Embeddings) {
			emb = r.Embeddings[i]
		}
		d, err := document(id, text, r.Metadatas[i], emb)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

// whereOf is the part of f Chroma can filter on, as a where clause (nil
// for none). What it cannot (tags; a page cursor's id tie-break) is
// checked by matches.
func whereOf(f core.Filter) map[string]any {
	var conds []map[string]any
	eq := func(k string, v any) { conds = append(conds, map[string]any{k: v}) }
	op := func(k, o string, v any) { conds = append(conds, map[string]any{k: map[string]any{o: v}}) }
	if f.Type != "" {
		eq("type", string(f.Type))
	}
	if len(f.Scopes) > 0 {
		op("scope", "$in", f.Scopes)
	}
	if f.ConversationID != "" {
		eq("conversation_id", f.ConversationID)
	}
	if f.RoomID != "" {
		eq("room_id", f.RoomID)
	}
	if f.AnyRoom {
		eq("has_room", true)
	}
	if !f.OlderThan.IsZero() {
		op("ts", "$lt", f.OlderThan.UnixNano())
	}
	if !f.Expired.IsZero() {
		op("expires_at", "$lte", f.Expired.UnixNano())
	}
	if f.Before != nil {
		op("ts", "$lte", f.Before.Time.UnixNano())
	}
	if f.AfterTurn != nil {
		op("turn_index", "$gt", *f.AfterTurn)
	}
	if f.UpToTurn != nil {
		op("turn_index", "$lte", *f.UpToTurn)
	}
	if !f.Since.IsZero() {
		op("ts", "$gte", f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		op("ts", "$lt", f.Until.UnixNano())
	}
	if len(f.TurnIndexes) > 0 {
		op("turn_index", "$in", f.TurnIndexes)
	}
	switch len(conds) {
	case 0:
		return nil
	case 1:
		return conds[0]
	}
	all := make([]any, len(conds))
	for i, c := range conds {
		all[i] = c
	}
	return map[string]any{"$and": all}
}

// postFiltered reports whether f has conditions whereOf leaves to matches
// for which a vector search scans exactly (as SQLite's does).
func postFiltered(f core.Filter) bool { return f.Tag != "" || f.Before != nil }

// pageNarrowed reports whether f has the memory page's conditions on
// fields kept only in metaKey's JSON (source, importance, an entity's
// scope, a member's view), which matches checks here. A vector search
// leaves them to core, as SQLite's approximate search does, and needs no
// exact scan for them.
func pageNarrowed(f core.Filter) bool {
	return f.Source != "" || f.MinImportance > 0 || f.AnyEntity || f.Visible != nil
}

// matches checks every condition of f on d, those Chroma applied too (a
// keyword candidate is fetched without the filter).
func matches(f core.Filter, d core.Document) bool {
	m := d.Meta
	switch {
	case f.Type != "" && m.Type != f.Type,
		len(f.Scopes) > 0 && !slices.Contains(f.Scopes, m.Scope),
		f.ConversationID != "" && m.ConversationID != f.ConversationID,
		f.RoomID != "" && m.RoomID != f.RoomID,
		f.AnyRoom && m.RoomID == "",
		f.Tag != "" && !slices.Contains(m.Tags, f.Tag),
		!f.OlderThan.IsZero() && !m.Timestamp.Before(f.OlderThan),
		!f.Expired.IsZero() && (m.ExpiresAt == nil || m.ExpiresAt.After(f.Expired)),
		f.Before != nil && !before(m.Timestamp, d.ID, *f.Before),
		!f.Since.IsZero() && m.Timestamp.Before(f.Since),
		!f.Until.IsZero() && !m.Timestamp.Before(f.Until),
		f.Source != "" && m.Source != f.Source,
		f.MinImportance > 0 && m.Importance < f.MinImportance,
		f.AnyEntity && !strings.HasPrefix(m.Scope, "entity:"),
		f.Visible != nil && !f.Visible.Sees(m):
		return false
	}
	if f.AfterTurn != nil || f.UpToTurn != nil || len(f.TurnIndexes) > 0 {
		if m.TurnIndex == nil {
			return false
		}
		i := *m.TurnIndex
		if (f.AfterTurn != nil && i <= *f.AfterTurn) || (f.UpToTurn != nil && i > *f.UpToTurn) ||
			(len(f.TurnIndexes) > 0 && !slices.Contains(f.TurnIndexes, i)) {
			return false
		}
	}
	return true
}

// before reports whether (t, id) comes after p in List's order (newest
// first, ties by id descending).
func before(t time.Time, id string, p core.Position) bool {
	return t.Before(p.Time) || (t.Equal(p.Time) && id < p.ID)
}
