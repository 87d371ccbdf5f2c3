package transcribe_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ada-chat/ada/core"
	"github.com/ada-chat/ada/core/specialists/transcribe"
)

// TestTranscribe speaks the OpenAI multipart protocol with a server that
// checks the request as whisper.cpp's and OpenAI's servers read it.
func TestTranscribe(t *testing.T) {
	audio := []byte("OggS fake opus bytes")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/audio/transcriptions" || r.Method != http.MethodPost || r.Header.Get("Authorization") != "Bearer k" {
			http.Error(w, `{"error":{"message":"bad request line"}}`, http.StatusNotFound)
			return
		}
		f, h, err := r.FormFile("file")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		got, _ := io.ReadAll(f)
		if string(got) != string(audio) || h.Filename != "audio.ogg" || h.Header.Get("Content-Type") != "audio/ogg" ||
			r.FormValue("model") != "whisper-1" || r.FormValue("response_format") != "json" {
			http.Error(w, "unexpected form", http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"text": " hello Ada \n"})
	}))
	defer srv.Close()
	c := transcribe.New(transcribe.Options{BaseURL: srv.URL + "/v1/", Model: "whisper-1", APIKey: "k", MaxBytes: 100})
	text, err := c.Transcribe(context.Background(), audio, "Voice message (secret name).ogg", "audio/ogg")
	if err != nil || text != "hello Ada" {
		t.Fatalf("Transcribe = %q, %v; want the trimmed transcript", text, err)
	}

	if _, err := c.Transcribe(context.Background(), make([]byte, 101), "a.ogg", "audio/ogg"); core.KindOf(err) != core.KindTooLarge {
		t.Errorf("oversized audio: %v, want too large", err)
	}
	if _, err := c.Transcribe(context.Background(), []byte("x"), "a.wav", "audio/wav"); core.KindOf(err) != core.KindInvalid {
		t.Errorf("audio the server refuses: %v, want invalid", err)
	}
	srv.Close()
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		<-release
	}))
	defer slow.Close()
	defer close(release)
	slowClient := transcribe.New(transcribe.Options{BaseURL: slow.URL, MaxBytes: 100})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := slowClient.Transcribe(ctx, audio, "a.ogg", "audio/ogg"); core.KindOf(err) != core.KindUpstream {
		t.Errorf("server slower than the deadline: %v, want upstream (the service failed, nobody cancelled)", err)
	}
	if _, err := c.Transcribe(context.Background(), audio, "a.ogg", "audio/ogg"); core.KindOf(err) != core.KindUpstream {
		t.Errorf("server gone: %v, want upstream", err)
	}
}
