package client_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ada-chat/ada/apiserver/client"
	"github.com/ada-chat/ada/core"
)

func TestExtractText(t *testing.T) {
	var gotAuth, gotName string
	var gotFile []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/ocr/extract" {
			http.NotFound(w, r)
			return
		}
		gotAuth = r.Header.Get("Authorization")
		f, fh, err := r.FormFile("file")
		if err != nil {
			t.Errorf("no multipart field file: %v", err)
			return
		}
		gotName = fh.Filename
		gotFile, _ = io.ReadAll(f)
		w.Header().Set("Content-Type", "application/json")
		if strings.HasPrefix(string(gotFile), "big") {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			_, _ = io.WriteString(w, `{"detail":"file: the image is 99 bytes; the limit is 10 (OCR_MAX_BYTES)"}`)
			return
		}
		_, _ = io.WriteString(w, `{"text":"Invoice 4711","char_count":12,"line_count":1,"confidence":91.5,"image_format":"png","image_size":[900,140]}`)
	}))
	t.Cleanup(srv.Close)
	c := client.New(srv.URL, "secret-key", nil)

	res, err := c.ExtractText(context.Background(), "scan.png", []byte("\x89PNG..."))
	if err != nil {
		t.Fatal(err)
	}
	want := core.OCRResult{Text: "Invoice 4711", CharCount: 12, LineCount: 1, Confidence: 91.5, ImageFormat: "png", ImageSize: [2]int{900, 140}}
	if res != want {
		t.Errorf("got %+v, want %+v", res, want)
	}
	if gotAuth != "Bearer secret-key" || gotName != "scan.png" || string(gotFile) != "\x89PNG..." {
		t.Errorf("request: auth %q, filename %q, file %q", gotAuth, gotName, gotFile)
	}

	_, err = c.ExtractText(context.Background(), "", []byte("big image"))
	if core.KindOf(err) != core.KindTooLarge || !strings.Contains(core.SafeMessage(err), "OCR_MAX_BYTES") {
		t.Errorf("a 413 should be KindTooLarge with the API's detail, got %v", err)
	}
}
