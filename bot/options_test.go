package bot

import (
	"strings"
	"testing"

	"github.com/ada-chat/ada/config"
)

// Options built without config are refused where their zero values would
// break the bridge; config's defaults pass.
func TestOptionsValidate(t *testing.T) {
	o := Options{Homeserver: "http://hs", UserID: "@ada:hs", Password: "pw"}
	err := o.validate()
	if err == nil || !strings.Contains(err.Error(), "BOT_WORKERS") || !strings.Contains(err.Error(), "REQUEST_TIMEOUT_SECONDS") ||
		!strings.Contains(err.Error(), "SHUTDOWN_GRACE_SECONDS") {
		t.Errorf("zero workers, timeout and grace: %v", err)
	}
	cfg, err := config.Load(func(k string) string {
		return map[string]string{"MATRIX_HOMESERVER": "http://hs", "MATRIX_USER_ID": "@ada:hs", "MATRIX_PASSWORD": "pw"}[k]
	})
	if err != nil {
		t.Fatal(err)
	}
	from := OptionsFrom(cfg, "test")
	if err := from.validate(); err != nil {
		t.Errorf("config's defaults: %v", err)
	}
}
