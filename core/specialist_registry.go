package core

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Registry holds the specialists cmd registered. It is read concurrently by
// every chat; SetTagged replaces a group of them (an MCP server's tools when
// it reconnects or says they changed) copy-on-write, so a chat reads one
// consistent list without a lock.
type Registry struct {
	mu      sync.Mutex // serialises SetTagged
	entries atomic.Pointer[[]registryEntry]
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
	entries, err := compileEntries(sps)
	if err != nil {
		return nil, err
	}
	r := &Registry{}
	r.store(entries)
	return r, nil
}

// SetTagged replaces every specialist carrying tag by sps, each of which
// must carry it. On error the registry is unchanged.
func (r *Registry) SetTagged(tag string, sps ...Specialist) error {
	added, err := compileEntries(sps)
	if err != nil {
		return err
	}
	for _, e := range added {
		if !slices.Contains(e.info.Tags, tag) {
			return fmt.Errorf("specialist %s: lacks the tag %s it replaces", e.info.Name, tag)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var next []registryEntry
	for _, e := range r.list() {
		if !slices.Contains(e.info.Tags, tag) {
			next = append(next, e)
		}
	}
	r.store(append(next, added...))
	return nil
}

func compileEntries(sps []Specialist) ([]registryEntry, error) {
	var out []registryEntry
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
		out = append(out, registryEntry{sp: sp, info: info, input: schema})
	}
	return out, nil
}

// store sorts entries, which no one else holds, and publishes them.
func (r *Registry) store(entries []registryEntry) {
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i].info, entries[j].info
		if priorityRank[a.Priority] != priorityRank[b.Priority] {
			return priorityRank[a.Priority] < priorityRank[b.Priority]
		}
		return a.Name < b.Name
	})
	r.entries.Store(&entries)
}

// list is the current specialists; never modified once stored.
func (r *Registry) list() []registryEntry {
	if p := r.entries.Load(); p != nil {
		return *p
	}
	return nil
}

// Infos lists every registered specialist, enabled or not.
func (r *Registry) Infos() []SpecialistInfo {
	entries := r.list()
	out := make([]SpecialistInfo, len(entries))
	for i, e := range entries {
		out[i] = e.info
	}
	return out
}

func (r *Registry) enabled() []registryEntry {
	var out []registryEntry
	for _, e := range r.list() {
		if e.info.Enabled {
			out = append(out, e)
		}
	}
	return out
}

func (r *Registry) lookup(name string) (registryEntry, bool) {
	for _, e := range r.list() {
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
func (s *Service) runSpecialist(ctx context.Context, name string, call SpecialistCall) (string, bool) {
	e, ok := s.specialists.lookup(name)
	if !ok || !s.opts.SpecialistsEnabled {
		return fmt.Sprintf("error: there is no available specialist named %q", name), false
	}
	if len(bytes.TrimSpace(call.Args)) == 0 {
		call.Args = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(call.Args))
	if err != nil {
		return fmt.Sprintf("error: the arguments for %s are not valid JSON", name), false
	}
	if err := e.input.Validate(inst); err != nil {
		return fmt.Sprintf("error: invalid arguments for %s: %s", name, describeValidation(err)), false
	}
	ctx, cancel := context.WithTimeout(ctx, s.opts.SpecialistTimeout)
	defer cancel()
	start := time.Now()
	out, err := e.sp.Run(ctx, call)
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
