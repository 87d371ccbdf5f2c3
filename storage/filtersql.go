package storage

import (
	"strings"

	"github.com/ada-chat/ada/core"
)

// filterSQL renders f as a WHERE clause over the documents table: its
// conditions (core.Filter.Conds), each translated by condSQL.
func filterSQL(f core.Filter) (string, []any) {
	var conds []string
	var args []any
	for _, c := range f.Conds() {
		var s string
		s, args = condSQL(c, args)
		conds = append(conds, s)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// sqlColumns are the expressions of the fields (core.Field) over the
// documents table. The indexed columns are read as such; turn_index as
// documents_turn_index (migration 8) spells it. A JSON field that is
// absent is NULL, on which no comparison holds, as core.Cond.Holds says.
var sqlColumns = map[core.Field]string{
	core.FieldType:         "type",
	core.FieldScope:        "scope",
	core.FieldConversation: "conversation_id",
	core.FieldRoom:         "room_id",
	core.FieldUser:         "json_extract(metadata, '$.user_id')",
	core.FieldSubject:      "json_extract(metadata, '$.subject_user_id')",
	core.FieldEntity:       "json_extract(metadata, '$.entity')",
	core.FieldSource:       "json_extract(metadata, '$.source')",
	core.FieldTime:         "ts",
	core.FieldExpires:      "unixepoch(json_extract(metadata, '$.expires_at'), 'subsec')",
	core.FieldTurn:         "json_extract(metadata, '$.turn_index')",
	core.FieldImportance:   "json_extract(metadata, '$.importance')",
	core.FieldID:           "id",
}

var sqlOps = map[core.Op]string{core.OpEq: " = ?", core.OpLt: " < ?", core.OpLte: " <= ?", core.OpGt: " > ?", core.OpGte: " >= ?"}

// condSQL renders c, appending its arguments to args.
func condSQL(c core.Cond, args []any) (string, []any) {
	switch c.Op {
	case core.OpAny, core.OpAll:
		if len(c.Sub) == 0 && c.Op == core.OpAny {
			return "0", args
		}
		parts := make([]string, len(c.Sub))
		for i, s := range c.Sub {
			parts[i], args = condSQL(s, args)
		}
		join := " OR "
		if c.Op == core.OpAll {
			join = " AND "
		}
		return "(" + strings.Join(parts, join) + ")", args
	case core.OpHas: // the only list field: tags
		return "EXISTS (SELECT 1 FROM json_each(documents.metadata, '$.tags') WHERE value = ?)", append(args, c.Value)
	}
	col := sqlColumns[c.Field]
	switch c.Op {
	case core.OpSet:
		return col + " IS NOT NULL", args
	case core.OpIn:
		switch vs := c.Value.(type) {
		case []string:
			for _, v := range vs {
				args = append(args, v)
			}
			return col + " IN (" + placeholders(len(vs)) + ")", args
		case []int64:
			for _, v := range vs {
				args = append(args, v)
			}
			return col + " IN (" + placeholders(len(vs)) + ")", args
		}
	case core.OpPrefix:
		// GLOB, not LIKE: case-sensitive, as strings.HasPrefix.
		return col + " GLOB ?", append(args, globEscape(c.Value.(string))+"*")
	}
	v := c.Value
	if c.Field == core.FieldExpires {
		v = float64(v.(int64)) / 1e9 // unixepoch's seconds
	}
	return col + sqlOps[c.Op], append(args, v)
}

// globEscape makes s match itself in a GLOB pattern.
func globEscape(s string) string {
	return strings.NewReplacer("*", "[*]", "?", "[?]", "[", "[[]").Replace(s)
}
