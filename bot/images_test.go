package bot

import (
	"strings"
	"testing"
	"time"

	"maunium.net/go/mautrix/event"
	"maunium.net/go/mautrix/id"
)

func TestCaption(t *testing.T) {
	cases := []struct {
		body, filename, want string
	}{
		{"ada.png", "", ""},                              // pre-1.10 clients: the body is the name
		{"ada.png", "ada.png", ""},                       // the body repeats the name
		{"Ada, read this", "scan.png", "Ada, read this"}, // a caption
	}
	for _, c := range cases {
		m := &event.MessageEventContent{MsgType: event.MsgImage, Body: c.body, FileName: c.filename}
		if got := caption(m); got != c.want {
			t.Errorf("caption(body %q, filename %q) = %q, want %q", c.body, c.filename, got, c.want)
		}
		if only := captionOnly(m); only.Body != c.want {
			t.Errorf("captionOnly body %q", only.Body)
		}
	}
}

func TestLatestImageWindow(t *testing.T) {
	var rt roomRuntime
	t0 := time.Unix(1_700_000_000, 0)
	alice, bob := id.UserID("@alice:x"), id.UserID("@bob:x")
	rt.noteImage(alice, recentImage{id: "$a1", at: t0})
	if img, ok := rt.latestImage(alice, t0.Add(imageWindow)); !ok || img.id != "$a1" {
		t.Errorf("the image should still count at the end of the window")
	}
	if _, ok := rt.latestImage(alice, t0.Add(imageWindow+time.Second)); ok {
		t.Errorf("the image should not count after the window")
	}
	if _, ok := rt.latestImage(bob, t0.Add(time.Second)); ok {
		t.Errorf("alice's image counted for bob")
	}
	if _, ok := rt.latestImage(alice, t0.Add(-time.Second)); ok {
		t.Errorf("an image sent after the question counted for it")
	}
	// A newer image replaces the older; a stale entry of another sender is pruned.
	rt.noteImage(bob, recentImage{id: "$b1", at: t0.Add(imageWindow + time.Minute)})
	if _, kept := rt.images[alice]; kept {
		t.Errorf("alice's stale image was not pruned")
	}
	rt.dropImage("$b1")
	if len(rt.images) != 0 {
		t.Errorf("dropImage left %v", rt.images)
	}
}

func TestImageFailureText(t *testing.T) {
	// An image failure talks about the image, never about the language
	// model, and never leaks an internal error's text.
	for _, err := range []error{
		coreErr(0, "tmpdir /secret failed"), coreErr(1, "file is not a supported image"),
		coreErr(3, "OCR is not available: tesseract is not installed"), coreErr(4, "tesseract crashed"),
		coreErr(5, "it is larger than the limit of 32 KiB"), coreErr(7, "cancelled"),
	} {
		got := failureText(&imageError{err})
		if got == "" || strings.Contains(got, "/secret") || strings.Contains(got, "language model") {
			t.Errorf("failureText(image: %v) = %q", err, got)
		}
	}
	if got := failureText(&imageError{coreErr(3, "OCR is not available: tesseract is not installed")}); !strings.Contains(got, "tesseract is not installed") {
		t.Errorf("a missing tesseract should be named: %q", got)
	}
}
