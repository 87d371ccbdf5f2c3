package bot

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"maunium.net/go/mautrix"
	"maunium.net/go/mautrix/crypto/attachment"
	"maunium.net/go/mautrix/event"

	"github.com/ada-chat/ada/core"
)

// mediaBot is a media reader whose homeserver is a stub serving one media file
// without a Content-Length (chunked), so that only the read cap can stop
// an oversized download.
func mediaBot(t *testing.T, status int, body []byte) *media {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/_matrix/client/v1/media/download/example.org/abc" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
		for chunk := range slices.Chunk(body, 1024) {
			_, _ = w.Write(chunk)
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	cli, err := mautrix.NewClient(srv.URL, "@ada:example.org", "token")
	if err != nil {
		t.Fatal(err)
	}
	return &media{mx: &matrix{cli: cli}}
}

func TestDownloadMedia(t *testing.T) {
	ctx := context.Background()
	plain := bytes.Repeat([]byte("pixels"), 500) // 3000 bytes
	plainMsg := &event.MessageEventContent{MsgType: event.MsgImage, URL: "mxc://example.org/abc"}

	t.Run("WithinLimit", func(t *testing.T) {
		got, err := mediaBot(t, 200, plain).downloadMedia(ctx, plainMsg, 3000)
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("got %d bytes, %v", len(got), err)
		}
	})
	t.Run("CappedWithoutContentLength", func(t *testing.T) {
		_, err := mediaBot(t, 200, plain).downloadMedia(ctx, plainMsg, 2999)
		if core.KindOf(err) != core.KindTooLarge {
			t.Fatalf("want KindTooLarge, got %v", err)
		}
	})
	t.Run("DeclaredTooLargeNotFetched", func(t *testing.T) {
		// The stub fails any fetch: only the declared size can say too large.
		msg := &event.MessageEventContent{MsgType: event.MsgAudio, URL: "mxc://example.org/abc", Info: &event.FileInfo{Size: 3001}}
		_, err := mediaBot(t, 500, nil).downloadMedia(ctx, msg, 3000)
		if core.KindOf(err) != core.KindTooLarge {
			t.Fatalf("want KindTooLarge, got %v", err)
		}
	})
	t.Run("Missing", func(t *testing.T) {
		_, err := mediaBot(t, 404, []byte(`{"errcode":"M_NOT_FOUND"}`)).downloadMedia(ctx, plainMsg, 3000)
		if core.KindOf(err) != core.KindNotFound {
			t.Fatalf("want KindNotFound, got %v", err)
		}
	})

	file := attachment.NewEncryptedFile()
	cipher := slices.Clone(plain)
	file.EncryptInPlace(cipher)
	// The file info goes through JSON, as it does in a real event.
	info, err := json.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	encMsg := func() *event.MessageEventContent {
		c := &event.MessageEventContent{MsgType: event.MsgImage, File: &event.EncryptedFileInfo{URL: "mxc://example.org/abc"}}
		if err := json.Unmarshal(info, &c.File.EncryptedFile); err != nil {
			t.Fatal(err)
		}
		return c
	}
	t.Run("Encrypted", func(t *testing.T) {
		got, err := mediaBot(t, 200, cipher).downloadMedia(ctx, encMsg(), 3000)
		if err != nil || !bytes.Equal(got, plain) {
			t.Fatalf("decrypted %d bytes, %v", len(got), err)
		}
	})
	t.Run("Tampered", func(t *testing.T) {
		bad := slices.Clone(cipher)
		bad[10] ^= 1
		_, err := mediaBot(t, 200, bad).downloadMedia(ctx, encMsg(), 3000)
		if core.KindOf(err) != core.KindInvalid {
			t.Fatalf("want KindInvalid for a hash mismatch, got %v", err)
		}
	})
	t.Run("NoURL", func(t *testing.T) {
		_, err := mediaBot(t, 200, plain).downloadMedia(ctx, &event.MessageEventContent{MsgType: event.MsgImage}, 3000)
		if core.KindOf(err) != core.KindInvalid {
			t.Fatalf("want KindInvalid, got %v", err)
		}
	})
}
