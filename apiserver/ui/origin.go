package ui

import (
	"context"
	"net/url"

	"github.com/ada-chat/ada/core"
)

// maxOriginLookups bounds the links read for one memory: its own (a
// `!ada remember`), then its first source turns (an automatic memory).
const maxOriginLookups = 4

// permalink is where a room memory came from on matrix.to: the message
// when the bridge linked one, else the room; "" for a memory of no room.
func (p *page) permalink(ctx context.Context, m core.Memory) string {
	if m.RoomID == "" {
		return ""
	}
	room := "https://matrix.to/#/" + url.PathEscape(m.RoomID)
	if p.opt.Origins == nil {
		return room
	}
	for i, id := range append([]string{m.ID}, m.Meta.SourceIDs...) {
		if i == maxOriginLookups {
			break
		}
		event, err := p.opt.Origins.EventOf(ctx, m.RoomID, id)
		if err != nil {
			p.opt.Log.Warn("memory page: link to the message", "err", err)
			break
		}
		if event != "" {
			return room + "/" + url.PathEscape(event)
		}
	}
	return room
}
