package core

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Registry holds the specialists cmd registered. It is built once and read
// concurrently.
type Registry struct {
	entries []registryEntry
}

type registryEntry struct {
	sp    Specialist
	info  SpecialistInfo
	input *jsonschema.Schema
}

var priorityRank = map[Priority]int{PriorityHigh: 0, PriorityMedium: 1, PriorityLow: 2}

// NewRegistry registers specialists, compiling their input schemas. They are
// kept in priority order (HIGH first), then by name.
func NewRegistry(sps ...Specialist) (*Registry, error) {
	r := &Registry{}
	for _, sp := range sps {
		info := sp.Info()
		c := jsonschema.NewCompiler()
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(info.InputSchema))
		if err != nil {
			return nil, fmt.Errorf("specialist %s: input schema: %w", info.Name, err)
		}
		url := "specialist://" + info.Name + "/input.json"
		if err := c.AddResource(url, doc); err != nil {
			return nil, err
		}
		schema, err := c.Compile(url)
		if err != nil {
			return nil, fmt.Errorf("specialist %s: input schema: %w", info.Name, err)
		}
		r.entries = append(r.entries, registryEntry{sp: sp, info: info, input: schema})
	}
	sort.SliceStable(r.entries, func(i, j int) bool {
		a, b := r.entries[i].info, r.entries[j].info
		if priorityRank[a.Priority] != priorityRank[b.Priority] {
			return priorityRank[a.Priority] < priorityRank[b.Priority]
		}
		return a.Name < b.Name
	})
	return r, nil
}

// Infos lists every registered specialist, enabled or not.
func (r *Registry) Infos() []SpecialistInfo {
	out := make([]SpecialistInfo, len(r.entries))
	for i, e := range r.entries {
		out[i] = e.info
	}
	return out
}

func (r *Registry) enabled() []registryEntry {
	var out []registryEntry
	for _, e := range r.entries {
		if e.info.Enabled {
			out = append(out, e)
		}
	}
	return out
}

func (r *Registry) lookup(name string) (registryEntry, bool) {
	for _, e := range r.entries {
		if e.info.Name == name && e.info.Enabled {
			return e, true
		}
	}
	return registryEntry{}, false
}

// Specialists lists the registered specialists for /v1/specialists.
func (s *Service) Specialists() []SpecialistInfo { return s.specialists.Infos() }

// SpecialistsEnabled reports whether the model is offered any specialist.
func (s *Service) SpecialistsEnabled() bool {
	return s.opts.SpecialistsEnabled && len(s.specialists.enabled()) > 0
}

// runSpecialist validates the arguments, runs the specialist with its
// timeout, and returns the text given back to the model. Every failure
// becomes an error result the model may explain; it never fails the chat.
func (s *Service) runSpecialist(ctx context.Context, name string, args json.RawMessage, ocr *OCRResult) (string, bool) {
	e, ok := s.specialists.lookup(name)
	if !ok || !s.opts.SpecialistsEnabled {
		return fmt.Sprintf("error: there is no available specialist named %q", name), false
	}
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Sprintf("error: the arguments for %s are not valid JSON", name), false
	}
	if err := e.input.Validate(inst); err != nil {
		return fmt.Sprintf("error: invalid arguments for %s: %s", name, describeValidation(err)), false
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.SpecialistTimeout)
	defer cancel()
	start := time.Now()
	out, err := e.sp.Run(ctx, SpecialistCall{Args: args, OCRContext: ocr})
	s.logger(ctx).Debug("specialist ran", "specialist", name, "ok", err == nil, "chars", len(out),
		"ms", float64(time.Since(start).Microseconds())/1000)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return fmt.Sprintf("error: %s timed out after %s", name, s.opts.SpecialistTimeout), false
		}
		s.logger(ctx).Warn("specialist failed", "specialist", name, "error", err)
		return "error: " + SafeMessage(err), false
	}
	return out, true
}
