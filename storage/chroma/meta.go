package chroma

import (
	"encoding/json"
	"slices"

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

// whereConds are the conditions of f its where clause (whereOf) holds,
// when it holds each exactly: a document meets them all (core.AdmitsAll)
// exactly when the clause admits it, so Go needs no reading of the
// clause of its own. ok is false when a condition is only approximated
// there; those Go alone checks (a tag) are not in the clause, nor here.
func whereConds(f core.Filter) (conds []core.Cond, ok bool) {
	for _, c := range f.Conds() {
		w, exact := condWhere(c)
		switch {
		case w == nil:
		case !exact:
			return nil, false
		default:
			conds = append(conds, c)
		}
	}
	return conds, true
}

// whereOf is f's conditions (core.Filter.Conds) that Chroma can say, as a
// where clause (nil for none), some widened (a page cursor's id
// tie-break). What it cannot say exactly (tags; the fields kept only in
// metaKey's JSON) is checked here with core.AdmitsAll.
func whereOf(f core.Filter) map[string]any {
	w, _ := translate(f)
	return w
}

// translate is whereOf and the conditions it does not say exactly.
func translate(f core.Filter) (map[string]any, []core.Cond) {
	var conds []any
	var inexact []core.Cond
	for _, c := range f.Conds() {
		w, exact := condWhere(c)
		if w != nil {
			conds = append(conds, w)
		}
		if !exact {
			inexact = append(inexact, c)
		}
	}
	switch len(conds) {
	case 0:
		return nil, inexact
	case 1:
		return conds[0].(map[string]any), inexact
	}
	return map[string]any{"$and": conds}, inexact
}

// chromaKeys are the metadata keys of the fields Chroma filters on, as
// chromaMeta writes them; has_room says whether room_id is set.
var chromaKeys = map[core.Field]string{core.FieldType: "type", core.FieldScope: "scope",
	core.FieldConversation: "conversation_id", core.FieldRoom: "room_id", core.FieldTime: "ts",
	core.FieldExpires: "expires_at", core.FieldTurn: "turn_index"}

var chromaOps = map[core.Op]string{core.OpIn: "$in", core.OpLt: "$lt", core.OpLte: "$lte", core.OpGt: "$gt", core.OpGte: "$gte"}

// condWhere is c as a where clause, or a wider one, or nil; exact says it
// is c itself.
func condWhere(c core.Cond) (map[string]any, bool) {
	switch c.Op {
	case core.OpAny, core.OpAll:
		var subs []any
		exact := true
		for _, s := range c.Sub {
			w, e := condWhere(s)
			exact = exact && e
			if w == nil && c.Op == core.OpAny {
				return nil, false // one side unknown: the whole is
			}
			if w != nil {
				subs = append(subs, w)
			}
		}
		switch {
		case len(subs) == 0:
			return nil, false
		case len(subs) == 1:
			return subs[0].(map[string]any), exact
		case c.Op == core.OpAny:
			return map[string]any{"$or": subs}, exact
		}
		return map[string]any{"$and": subs}, exact
	}
	key, ok := chromaKeys[c.Field]
	switch {
	case !ok:
		return nil, false
	case c.Op == core.OpSet && c.Field == core.FieldRoom:
		return map[string]any{"has_room": true}, true
	case c.Op == core.OpEq:
		return map[string]any{key: c.Value}, true
	}
	if op, ok := chromaOps[c.Op]; ok {
		return map[string]any{key: map[string]any{op: c.Value}}, true
	}
	return nil, false
}

// postFiltered reports whether the conditions whereOf does not say
// exactly (translate's inexact) go beyond the memory page's narrowing, for
// which a vector search scans exactly (as SQLite's does). The page's
// narrowing (source, importance, an entity's scope, a member's view: kept
// only in metaKey's JSON) a vector search leaves to core, as SQLite's
// approximate search does, and needs no exact scan for it.
func postFiltered(inexact []core.Cond) bool {
	return slices.ContainsFunc(inexact, func(c core.Cond) bool { return !c.Narrowing })
}
