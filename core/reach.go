package core

import (
	"context"
	"slices"
)

// A door that takes ids from someone who is not the operator (an MCP
// client scoped to an end user) reaches a memory or a conversation by id
// only as the access rule (access.go) allows. What it may not reach fails
// exactly as an id that names nothing does: the words of a refusal must
// not tell that the thing exists, nor when or why it went.

// MemoryFor returns memory id if may (Actor.MayEdit, Actor.MayForget,
// Actor.MaySee) lets the actor at it.
func (s *Service) MemoryFor(ctx context.Context, a Actor, id string, may func(Actor, Metadata) bool) (Memory, error) {
	m, err := s.GetMemory(ctx, id)
	switch {
	case a.Operator:
		return m, err
	case err != nil && KindOf(err) != KindNotFound:
		return Memory{}, err
	case err != nil || !may(a, m.Access()):
		return Memory{}, Errorf(KindNotFound, "memory %s not found", id)
	}
	return m, nil
}

// ConversationFor checks that the actor may see conversation id: every
// turn of it (Actor.MaySee). Its summaries are of those turns. The
// operator is not checked: an unknown id is then no error here.
func (s *Service) ConversationFor(ctx context.Context, a Actor, id string) error {
	if a.Operator {
		return nil
	}
	notFound := Errorf(KindNotFound, "conversation %s not found", id)
	if !ValidConversationID(id) {
		return notFound
	}
	docs, err := s.store.List(ctx, Filter{Type: DocTurn, ConversationID: id}, maxConversationTurns)
	if err != nil {
		return err
	}
	if len(docs) == 0 || slices.ContainsFunc(docs, func(d Document) bool { return !a.MaySee(d.Meta) }) {
		return notFound
	}
	return nil
}
