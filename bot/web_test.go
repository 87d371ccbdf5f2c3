package bot

import (
	"context"
	"strings"
	"testing"

	"github.com/ada-chat/ada/config"
)

// apiserver/ui.Members as that package declares it (bot may not
// import apiserver): *Bot must keep satisfying it.
var _ interface {
	Redeem(ctx context.Context, token string) (userID, epoch string, err error)
	SessionEpoch(ctx context.Context, userID string) (string, error)
	JoinedRooms(ctx context.Context, userID string) ([]string, error)
} = (*Bot)(nil)

// TestWebWithoutPage: a bridge that does not serve the memory page (`ada
// bot` alone) says where the page runs instead of sending a link; `!ada
// help` lists `!ada web`; PUBLIC_URL reaches the bridge's options.
func TestWebWithoutPage(t *testing.T) {
	w := &webLinks{publicURL: "https://ada.example.org", pageServed: false}
	got, err := w.cmdWeb(context.Background(), &commandEvent{})
	if err != nil || !strings.Contains(got, "`ada up`") || strings.Contains(got, "/ui/login/") {
		t.Errorf("without the page: %q, %v", got, err)
	}
	cs := &commands{}
	if c := cs.commandTable()["web"]; c == nil || c.run == nil || c.subs["logout"] == nil {
		t.Error("the command table has no `web` or `web logout`, so `!ada help` does not list them")
	}
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"PUBLIC_URL": "https://ada.example.org/"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := OptionsFrom(cfg, "").PublicURL; got != "https://ada.example.org" {
		t.Errorf("PUBLIC_URL maps to %q", got)
	}
}
