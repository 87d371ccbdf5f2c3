package core

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

//go:embed schemas/*.json
var schemaFiles embed.FS

// SchemaSet holds the JSON Schema of each document type's metadata. The same
// schemas are served by /v1/schema and enforced on every write.
type SchemaSet struct {
	raw      map[DocType]map[string]any
	compiled map[DocType]*jsonschema.Schema
}

// Schemas returns the compiled schemas. They come from files embedded in the
// binary and never change, so they are compiled once and shared read-only.
var Schemas = sync.OnceValue(func() *SchemaSet {
	s, err := loadSchemas()
	if err != nil {
		panic(fmt.Sprintf("embedded metadata schemas are broken: %v", err))
	}
	return s
})

func loadSchemas() (*SchemaSet, error) {
	s := &SchemaSet{raw: map[DocType]map[string]any{}, compiled: map[DocType]*jsonschema.Schema{}}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	for _, t := range DocTypes {
		name := "schemas/" + string(t) + ".json"
		data, err := schemaFiles.ReadFile(name)
		if err != nil {
			return nil, err
		}
		var raw map[string]any
		if err := json.Unmarshal(data, &raw); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		if err := c.AddResource(name, doc); err != nil {
			return nil, err
		}
		compiled, err := c.Compile(name)
		if err != nil {
			return nil, err
		}
		s.raw[t], s.compiled[t] = raw, compiled
	}
	return s, nil
}

// Raw returns the JSON Schema object of t.
func (s *SchemaSet) Raw(t DocType) map[string]any { return s.raw[t] }

// Fields returns the property names of t's schema, sorted.
func (s *SchemaSet) Fields(t DocType) []string {
	props, _ := s.raw[t]["properties"].(map[string]any)
	out := make([]string, 0, len(props))
	for k := range props {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Required returns the required property names of t's schema, in schema order.
func (s *SchemaSet) Required(t DocType) []string {
	req, _ := s.raw[t]["required"].([]any)
	out := make([]string, 0, len(req))
	for _, r := range req {
		out = append(out, r.(string))
	}
	return out
}

// Validate checks a document before it is written: its id, text, embedding
// size and metadata against the schema of its type.
func (s *SchemaSet) Validate(d Document) error {
	data, err := json.Marshal(d.Meta)
	if err != nil {
		return Wrap(KindInternal, err, "encode metadata")
	}
	return s.ValidateEncoded(d, data)
}

// ValidateEncoded is Validate for a writer that has already encoded d's
// metadata as JSON (meta, as json.Marshal gives it), which it stores: an
// insert then encodes it once, not twice.
func (s *SchemaSet) ValidateEncoded(d Document, meta []byte) error {
	if err := s.validateFields(d); err != nil {
		return err
	}
	return s.validateMeta(d, meta)
}

// validateFields checks what a document holds beside its metadata, and
// that its metadata's type is known.
func (s *SchemaSet) validateFields(d Document) error {
	if !ValidDocID(d.ID) {
		return Errorf(KindInvalid, "document id %q must have the form doc-<uuid>", d.ID)
	}
	if strings.TrimSpace(d.Text) == "" {
		return Errorf(KindInvalid, "document %s: text must not be blank", d.ID)
	}
	if len(d.Embedding) != Dim {
		return Errorf(KindInvalid, "document %s: embedding has %d dimensions, want %d", d.ID, len(d.Embedding), Dim)
	}
	if _, ok := s.compiled[d.Meta.Type]; !ok {
		return Errorf(KindInvalid, "document %s: unknown metadata type %q", d.ID, d.Meta.Type)
	}
	return nil
}

// validateMeta checks meta, d's metadata encoded, against the schema of its
// type (known: validateFields).
func (s *SchemaSet) validateMeta(d Document, meta []byte) error {
	schema := s.compiled[d.Meta.Type]
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(meta))
	if err != nil {
		return Wrap(KindInternal, err, "decode metadata")
	}
	if err := schema.Validate(inst); err != nil {
		return Errorf(KindInvalid, "%s metadata is invalid: %s", d.Meta.Type, describeValidation(err))
	}
	return nil
}

var englishPrinter = message.NewPrinter(language.English)

// describeValidation flattens the library's error tree into one line that
// names each failing field.
func describeValidation(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var parts []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			field := strings.Join(e.InstanceLocation, ".")
			if field == "" {
				field = "metadata"
			}
			parts = append(parts, field+": "+e.ErrorKind.LocalizedString(englishPrinter))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(parts, "; ")
}
