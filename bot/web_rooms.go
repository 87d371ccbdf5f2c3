package bot

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

// What the memory page asks the bridge to show rooms by the names their
// members know them by (apiserver/ui.Members; issue 40 item 14).

// LinkOpen reports whether a one-time login token from `!ada web` can
// still be redeemed, without spending it.
func (b *Bot) LinkOpen(ctx context.Context, token string) (bool, error) {
	return b.bridge.WebLoginOpen(ctx, token, b.now())
}

// roomNamesTime bounds the questions one page's room names ask of the
// homeserver: a slow or absent homeserver leaves rooms by their ids, and
// the page is not held up.
const roomNamesTime = 2 * time.Second

// RoomNames names rooms as their members see them: the room's name, else
// its address, else its members (as clients name a room without a name).
// Names are asked of the homeserver once per room and kept until the
// room's name, address or members change (forgetName, from the sync
// loop); a room it cannot ask about now is left out.
func (b *Bot) RoomNames(ctx context.Context, rooms []string) map[string]string {
	select {
	case <-b.ready:
	default:
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, roomNamesTime)
	defer cancel()
	out := make(map[string]string, len(rooms))
	for _, room := range rooms {
		name, ok := b.names.get(room)
		if !ok {
			if ctx.Err() != nil {
				continue // out of time: the rest go by their ids this time
			}
			var err error
			if name, err = b.mx.roomName(ctx, id.RoomID(room)); err != nil {
				b.log.Warn("could not name a room for the memory page", "room", room, "error", err)
				continue
			}
			b.names.put(room, name)
		}
		if name != "" {
			out[room] = name
		}
	}
	return out
}

// forgetName drops a room's kept name when what names it changes.
func (b *Bot) forgetName(_ context.Context, evt *event.Event) {
	b.names.drop(evt.RoomID.String())
}

// roomName asks the homeserver for what names the room: "" when nothing
// does (a room of Ada alone).
func (mx *matrix) roomName(ctx context.Context, room id.RoomID) (string, error) {
	var name event.RoomNameEventContent
	if err := mx.cli.StateEvent(ctx, room, event.StateRoomName, "", &name); err != nil && !notFound(err) {
		return "", err
	}
	if n := strings.TrimSpace(name.Name); n != "" {
		return n, nil
	}
	var alias event.CanonicalAliasEventContent
	if err := mx.cli.StateEvent(ctx, room, event.StateCanonicalAlias, "", &alias); err != nil && !notFound(err) {
		return "", err
	}
	if alias.Alias != "" {
		return alias.Alias.String(), nil
	}
	joined, err := mx.cli.JoinedMembers(ctx, room)
	if err != nil {
		return "", err
	}
	var names []string
	for user, m := range joined.Joined {
		if user == mx.cli.UserID {
			continue
		}
		names = append(names, mx.nameOf(user, &event.MemberEventContent{Displayname: m.DisplayName}))
	}
	slices.Sort(names)
	return withNames(names), nil
}

// withNames is a room without a name as clients call it: "alice", "alice
// and bob", "alice, bob and 3 others".
func withNames(names []string) string {
	switch n := len(names); {
	case n == 0:
		return ""
	case n == 1:
		return names[0]
	case n == 2:
		return names[0] + " and " + names[1]
	case n == 3:
		return names[0] + ", " + names[1] + " and " + names[2]
	default:
		return fmt.Sprintf("%s, %s and %d others", names[0], names[1], n-2)
	}
}

func notFound(err error) bool {
	return errors.Is(err, mautrix.MNotFound)
}

// roomNameCache keeps the rooms' names for the memory page, by room id.
type roomNameCache struct {
	mu sync.Mutex
	m  map[string]string
}

func (c *roomNameCache) get(room string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.m[room]
	return n, ok
}

func (c *roomNameCache) put(room, name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]string)
	}
	c.m[room] = name
}

func (c *roomNameCache) drop(room string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, room)
}
