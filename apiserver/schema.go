package apiserver

import (
	"github.com/ada-chat/ada/core"
)

func (s *Server) handleSchema(r *request) error {
	set := core.Schemas()
	if t := string(r.QueryArgs().Peek("doc_type")); t != "" {
		dt := core.DocType(t)
		if !dt.Valid() {
			return core.Errorf(core.KindInvalid, "doc_type: must be one of persona, faq, memory, turn, summary; got %q", t)
		}
		writeJSON(r.RequestCtx, 200, map[string]any{
			"document_type": dt, "schema": set.Raw(dt), "fields": set.Fields(dt), "required_fields": set.Required(dt),
		})
		return nil
	}
	schemas, fields, required := map[core.DocType]any{}, map[core.DocType][]string{}, map[core.DocType][]string{}
	for _, dt := range core.DocTypes {
		schemas[dt], fields[dt], required[dt] = set.Raw(dt), set.Fields(dt), set.Required(dt)
	}
	writeJSON(r.RequestCtx, 200, map[string]any{
		"schemas": schemas, "document_types": core.DocTypes, "fields_by_type": fields, "required_fields_by_type": required,
	})
	return nil
}
