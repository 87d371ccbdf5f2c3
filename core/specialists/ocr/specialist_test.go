package ocr

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ada-chat/ada/core"
)

// imageServer serves /text.png (a rendered text image), /notes.txt, /big
// (declares a body over the limit) and 404 elsewhere.
func imageServer(t *testing.T) *httptest.Server {
	t.Helper()
	png := encode(t, render(t, "Invoice number 1234"), "png")
	mux := http.NewServeMux()
	mux.HandleFunc("GET /text.png", func(w http.ResponseWriter, r *http.Request) { w.Write(png) })
	mux.HandleFunc("GET /notes.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png") // lies: the bytes decide
		fmt.Fprint(w, "just some text")
	})
	mux.HandleFunc("GET /big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(DefaultMaxBytes+1))
		w.Write(png)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func runOCR(s *Specialist, args string, ocrContext *core.OCRResult) (string, error) {
	return s.Run(context.Background(), core.SpecialistCall{Args: json.RawMessage(args), OCRContext: ocrContext})
}

func TestSpecialistReadsImageURL(t *testing.T) {
	requireTesseract(t)
	srv := imageServer(t)
	s := NewSpecialist(New(Options{}), SpecialistOptions{HTTPClient: srv.Client()})
	got, err := runOCR(s, fmt.Sprintf(`{"image_url": %q}`, srv.URL+"/text.png"), &core.OCRResult{Text: "attached"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, "Text extracted from the image (png, 900×140 pixels, 1 line, ") ||
		!strings.Contains(got, "Invoice number 1234") {
		t.Errorf("got %q", got)
	}
}

func TestSpecialistUsesOCRContext(t *testing.T) {
	s := NewSpecialist(New(Options{}), SpecialistOptions{})
	ctx := &core.OCRResult{Text: "Total: 42 EUR\nThank you", CharCount: 23, LineCount: 2, Confidence: 91.26, ImageFormat: "jpeg", ImageSize: [2]int{640, 480}}
	for _, args := range []string{``, `{}`, `{"image_url": "  "}`} {
		got, err := runOCR(s, args, ctx)
		want := "Text extracted from the image (jpeg, 640×480 pixels, 2 lines, 23 characters, confidence 91/100):\n\nTotal: 42 EUR\nThank you"
		if err != nil || got != want {
			t.Errorf("args %q: got %q, %v\nwant %q", args, got, err, want)
		}
	}
	got, err := runOCR(s, `{}`, &core.OCRResult{ImageFormat: "png", ImageSize: [2]int{10, 10}})
	if err != nil || got != "No text was found in the image (png, 10×10 pixels)." {
		t.Errorf("empty context: got %q, %v", got, err)
	}
}

func TestSpecialistErrors(t *testing.T) {
	srv := imageServer(t)
	withClient := NewSpecialist(New(Options{}), SpecialistOptions{HTTPClient: srv.Client()})
	publicOnly := NewSpecialist(New(Options{}), SpecialistOptions{})
	for _, tc := range []struct {
		name string
		s    *Specialist
		args string
		kind core.ErrorKind
		want string
	}{
		{"no image", withClient, `{}`, core.KindInvalid,
			"ocr needs an image: none is attached to the message and no image_url was given"},
		{"bad arguments", withClient, `{"image_url": 3}`, core.KindInvalid,
			`ocr arguments must be a JSON object like {"image_url": "https://..."} or {}`},
		{"file scheme", withClient, `{"image_url": "file:///etc/passwd"}`, core.KindInvalid,
			"image_url must be an http or https URL"},
		{"not found", withClient, fmt.Sprintf(`{"image_url": %q}`, srv.URL+"/missing.png"), core.KindUpstream,
			"could not download the image: the server answered HTTP 404"},
		{"not an image", withClient, fmt.Sprintf(`{"image_url": %q}`, srv.URL+"/notes.txt"), core.KindInvalid,
			"file is not a supported image (png, jpeg, gif, webp, bmp, tiff)"},
		{"too large", withClient, fmt.Sprintf(`{"image_url": %q}`, srv.URL+"/big"), core.KindTooLarge,
			"the image at image_url is larger than 10 MiB"},
		{"loopback refused", publicOnly, fmt.Sprintf(`{"image_url": %q}`, srv.URL+"/text.png"), core.KindInvalid,
			"image_url points to a private or local network address, which is not allowed"},
		{"private refused", publicOnly, `{"image_url": "http://10.0.0.1:9/x.png"}`, core.KindInvalid,
			"image_url points to a private or local network address, which is not allowed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := runOCR(tc.s, tc.args, nil)
			if core.KindOf(err) != tc.kind || core.SafeMessage(err) != tc.want {
				t.Errorf("got kind %v %q, want kind %v %q", core.KindOf(err), core.SafeMessage(err), tc.kind, tc.want)
			}
		})
	}
}

func TestSpecialistInfo(t *testing.T) {
	info := NewSpecialist(New(Options{}), SpecialistOptions{}).Info()
	var schema map[string]any
	if info.Name != "ocr" || json.Unmarshal(info.InputSchema, &schema) != nil || !json.Valid(info.OutputSchema) ||
		!strings.HasPrefix(info.Capability, "Q: ") || !strings.Contains(info.Capability, "\nA: ") {
		t.Errorf("info = %+v", info)
	}
	if disabled := NewSpecialist(New(Options{Binary: "/nonexistent/tesseract"}), SpecialistOptions{}).Info(); disabled.Enabled {
		t.Error("enabled without tesseract")
	}
}
