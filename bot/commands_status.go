package bot

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// statusTimeout bounds the health probe behind !ada status.
const statusTimeout = 5 * time.Second

// cmdStatus reports real health: the API, the LLM and the store as the
// backend sees them now, the rooms the bot is in, this room's storage, and
// the version.
func (cs *commands) cmdStatus(ctx context.Context, c *commandEvent) (string, error) {
	hctx, cancel := context.WithTimeout(ctx, statusTimeout)
	defer cancel()
	st := cs.backend.Health(hctx)
	var lines []string
	add := func(format string, args ...any) { lines = append(lines, "- "+fmt.Sprintf(format, args...)) }

	switch {
	case !st.APIOK:
		add("Ada API: ❌ not reachable (%s): %s", st.Via, st.APIError)
	case st.Via == "in-process":
		add("Ada API: ✅ in-process")
	default:
		add("Ada API: ✅ %s", st.Via)
	}
	if st.APIOK {
		model := strings.Trim(st.LLMBackend+" · "+st.LLMModel, " ·")
		// The probe only asks whether the model is there; how the latest
		// chats went says whether it answers.
		failing, note := cs.health.summary(cs.now())
		switch {
		case !st.LLMOK:
			add("Language model: ❌ %s: %s", model, st.LLMError)
		case failing:
			add("Language model: ❌ %s: %s", model, note)
		case note != "":
			add("Language model: ✅ %s (%s)", model, note)
		default:
			add("Language model: ✅ %s", model)
		}
		// A room may answer with another model than the bridge's default.
		if m := cs.settings.forAnswer(hctx, c.evt.RoomID).model; m != "" && m != st.LLMModel {
			add("Model in this room: %s (`!ada settings`)", m)
		}
		if st.StoreOK {
			add("Memory store: ✅")
		} else {
			add("Memory store: ❌ %s", st.StoreError)
		}
	}
	if joined, err := cs.mx.cli.JoinedRooms(hctx); err == nil {
		add("Joined rooms: %d", len(joined.JoinedRooms))
	} else {
		add("Joined rooms: unknown (%v)", err)
	}
	if n := cs.waiting(c.evt.RoomID); n > 0 {
		add("Questions here being answered or waiting: %d", n)
	}
	add("Storage here: %s", cs.opts.storageSentence(c.room))
	add("Use here: %s", cs.quota.roomUse(hctx, c.evt.RoomID))
	if page, err := cs.roomMemories(hctx, c.evt.RoomID, ""); err == nil {
		n := strconv.Itoa(len(page.Items))
		if page.Next != "" {
			n += " or more"
		}
		add("Memories of this room: %s (`!ada memories` lists them)", n)
	}
	if enc, err := cs.mx.cli.StateStore.IsEncrypted(ctx, c.evt.RoomID); err == nil && enc {
		add("Encryption: on (end-to-end)")
	} else {
		add("Encryption: off")
	}
	add("Version: %s", cs.opts.Version)
	return fmt.Sprintf("**%s status**\n\n%s", cs.opts.DisplayName, strings.Join(lines, "\n")), nil
}
