package client_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/ada-chat/ada/apiserver/client"
	"github.com/ada-chat/ada/core"
)

// TestForgetAndDeleteWithReason: the bridge's `!ada forget me` and
// `!ada forget N` through ADA_API_URL send the person, room and reason in
// the query the API reads, and Forget decodes the counts.
func TestForgetAndDeleteWithReason(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Method+" "+r.URL.RequestURI())
		_, _ = io.WriteString(w, `{"turns":2,"memories":3}`)
	}))
	defer srv.Close()
	c := client.New(srv.URL, "", nil)
	res, err := c.Forget(context.Background(), core.ForgetRequest{Entity: "@bob:hs", RoomID: "!r:hs", Reason: "asked"})
	if err != nil || res.Turns != 2 || res.Memories != 3 {
		t.Errorf("Forget: %+v, %v", res, err)
	}
	if err := c.DeleteMemory(context.Background(), "m 1", "moved away"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteMemory(context.Background(), "m2", ""); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"DELETE /v1/memory?entity=%40bob%3Ahs&reason=asked&room_id=%21r%3Ahs",
		"DELETE /v1/memory/m%201?reason=moved+away",
		"DELETE /v1/memory/m2",
	}
	if len(got) != len(want) {
		t.Fatalf("requests %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("request %d: %q, want %q", i, got[i], want[i])
		}
	}
}
