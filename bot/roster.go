package bot

import (
	"context"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"

	"github.com/ada-chat/ada/core"
)

// A display name never decides identity (DECISIONS.md, "Identities, walls
// and forgetting"): anyone can take another member's name. The room's
// members as they are now go with each request (core.ChatRequest.Members),
// so that a fact is about a member only when one member alone goes by the
// name; and where a name is shared, people and the model read it with the
// user id (core.Labels.Of), worked out once for all the names of an
// answer or a listing (core.Labels): in a big room that is costly.

// roster lists the room's joined members with their names; nil (logged)
// when the room's state cannot be read, which resolves no one.
func (mx *matrix) roster(ctx context.Context, room id.RoomID) core.Roster {
	joined, err := mx.joined(ctx, room)
	if err != nil {
		logFrom(ctx, mx.log).Warn("could not read the room's members", "error", err)
		return nil
	}
	out := make(core.Roster, 0, len(joined))
	for user, m := range joined {
		out = append(out, core.Speaker{UserID: user.String(), Name: mx.nameOf(user, m)})
	}
	return out
}

// nameOf is a member's own display name: the bot's is BOT_DISPLAY_NAME; a
// member without one goes by their localpart.
func (mx *matrix) nameOf(user id.UserID, m *event.MemberEventContent) string {
	switch {
	case user == mx.cli.UserID:
		return mx.name
	case m != nil && m.Displayname != "":
		return m.Displayname
	}
	return user.Localpart()
}

// labelIn is user's name in a room as people and the model read it, labels
// being its members': with the user id where another member goes by it.
func (mx *matrix) labelIn(ctx context.Context, labels core.Labels, room id.RoomID, user id.UserID) string {
	m, err := mx.cli.StateStore.TryGetMember(ctx, room, user)
	if err != nil {
		m = nil
	}
	return labels.Of(mx.nameOf(user, m), user.String())
}
