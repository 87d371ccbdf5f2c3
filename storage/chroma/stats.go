package chroma

import (
	"context"

	"github.com/ada-chat/ada/core"
)

// Backend names the backend for health.
func (s *Store) Backend() string { return "chroma" }

// Stats reports the backend, the server's version and heartbeat, document
// counts and the embedder that wrote the vectors. Chroma counts a
// collection but cannot count by metadata: the total is its count, the
// types other than turns are counted by reading their ids, and the turns,
// most of a store, are the difference. Other replicas writing meanwhile
// may make the counts differ by what they wrote.
func (s *Store) Stats(ctx context.Context) (core.StoreStats, error) {
	st := core.StoreStats{Backend: s.Backend(), Path: s.url, Dimensions: core.Dim, ByType: map[core.DocType]int{}}
	status, err := s.Status(ctx)
	st.Heartbeat, st.Version = status.Heartbeat, status.Version
	if err != nil {
		return st, err
	}
	total, err := s.c.count(ctx, s.docs)
	if err != nil {
		return st, err
	}
	for _, t := range core.DocTypes {
		if t == core.DocTurn {
			continue
		}
		got, err := s.c.get(ctx, s.docs, getRequest{Where: map[string]any{"type": string(t)}, Include: []string{}})
		if err != nil {
			return st, err
		}
		if n := len(got.IDs); n > 0 {
			st.ByType[t] = n
			st.Total += n
		}
	}
	if turns := total - st.Total; turns > 0 {
		st.ByType[core.DocTurn] = turns
		st.Total += turns
	}
	st.Embedder, err = s.embedder(ctx)
	return st, err
}

// Status asks the server its heartbeat and version, two small requests,
// and counts nothing: health probes often, and Chroma's counts by type
// read ids (Stats).
func (s *Store) Status(ctx context.Context) (core.StoreStatus, error) {
	st := core.StoreStatus{Backend: s.Backend()}
	var err error
	if st.Heartbeat, err = s.c.heartbeat(ctx); err != nil {
		return st, err
	}
	st.Version, err = s.c.version(ctx)
	return st, err
}

const embedderID = "embedder"

func (s *Store) embedder(ctx context.Context) (string, error) {
	got, err := s.c.get(ctx, s.stmeta, getRequest{IDs: []string{embedderID}, Include: []string{"documents"}})
	if err != nil || len(got.IDs) == 0 {
		return "", err
	}
	return got.Documents[0], nil
}

// CheckEmbedder records name as the store's embedder on first use, and
// refuses a different embedder than the one that wrote the stored vectors
// (as storage.DB.CheckEmbedder).
func (s *Store) CheckEmbedder(ctx context.Context, name string) error {
	current, err := s.embedder(ctx)
	if err != nil {
		return err
	}
	switch current {
	case name:
		return nil
	case "":
		return s.c.upsert(ctx, s.stmeta, records{IDs: []string{embedderID}, Embeddings: [][]float32{unitVector},
			Documents: []string{name}, Metadatas: []map[string]any{{"kind": "embedder"}}})
	default:
		return core.EmbedderMismatch(current, name)
	}
}
