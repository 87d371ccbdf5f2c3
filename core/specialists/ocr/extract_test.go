package ocr

import (
	"context"
	"image"
	"image/draw"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ada-chat/ada/core"
)

func TestExtractReadsText(t *testing.T) {
	requireTesseract(t)
	img := render(t, "Hello Ada reads text", "The quick brown fox 42")
	for _, format := range []string{"png", "jpeg", "gif", "bmp", "tiff"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			res, err := New(Options{}).Extract(context.Background(), encode(t, img, format))
			if err != nil {
				t.Fatal(err)
			}
			for _, word := range []string{"Hello", "Ada", "reads", "quick", "brown", "fox", "42"} {
				if !strings.Contains(res.Text, word) {
					t.Errorf("text %q lacks %q", res.Text, word)
				}
			}
			if res.LineCount != 2 || res.CharCount != utf8.RuneCountInString(res.Text) {
				t.Errorf("lines %d, chars %d for %q", res.LineCount, res.CharCount, res.Text)
			}
			if res.Confidence < 50 || res.Confidence > 100 {
				t.Errorf("confidence %v, want a high value on the 0-100 scale", res.Confidence)
			}
			if res.ImageFormat != format || res.ImageSize != [2]int{900, 220} {
				t.Errorf("format %q, size %v", res.ImageFormat, res.ImageSize)
			}
		})
	}
}

func TestExtractWebP(t *testing.T) {
	requireTesseract(t)
	data, err := os.ReadFile("testdata/text.webp") // made with cwebp: Go has no WebP encoder
	if err != nil {
		t.Fatal(err)
	}
	res, err := New(Options{}).Extract(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "Webp format works" || res.ImageFormat != "webp" || res.ImageSize != [2]int{600, 110} {
		t.Errorf("got %+v", res)
	}
}

func TestExtractBlankImage(t *testing.T) {
	requireTesseract(t)
	img := image.NewRGBA(image.Rect(0, 0, 200, 100))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	res, err := New(Options{}).Extract(context.Background(), encode(t, img, "png"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "" || res.LineCount != 0 || res.CharCount != 0 || res.Confidence != 0 {
		t.Errorf("got %+v, want no text", res)
	}
}

// TestExtractRejects covers the checks made before tesseract runs, so it
// needs no tesseract.
func TestExtractRejects(t *testing.T) {
	png := encode(t, render(t, "x"), "png")
	for _, tc := range []struct {
		name string
		opts Options
		data []byte
		kind core.ErrorKind
		want string
	}{
		{"not an image", Options{}, []byte("%PDF-1.7 this is a document"), core.KindInvalid,
			"file is not a supported image (png, jpeg, gif, webp, bmp, tiff)"},
		{"empty", Options{}, nil, core.KindInvalid, "the file is empty"},
		{"damaged", Options{}, png[:20], core.KindInvalid,
			"the file looks like a png image but it is damaged or of an unsupported kind"},
		{"too many bytes", Options{MaxBytes: 1 << 10}, png, core.KindTooLarge, "the image is larger than 1 KiB"},
		{"too many pixels", Options{MaxPixels: 100_000}, png, core.KindTooLarge,
			"the image is 900×140 pixels; the limit is 0.1 megapixels"},
		{"no tesseract", Options{Binary: "/nonexistent/tesseract"}, png, core.KindUnavailable,
			"OCR is not available: tesseract is not installed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.opts).Extract(context.Background(), tc.data)
			if core.KindOf(err) != tc.kind || core.SafeMessage(err) != tc.want {
				t.Errorf("got kind %v %q, want kind %v %q", core.KindOf(err), core.SafeMessage(err), tc.kind, tc.want)
			}
		})
	}
}

func TestExtractDefaultLimit(t *testing.T) {
	big := make([]byte, DefaultMaxBytes+1)
	copy(big, "\x89PNG\r\n\x1a\n")
	if _, err := New(Options{}).Extract(context.Background(), big); core.KindOf(err) != core.KindTooLarge {
		t.Errorf("got %v, want KindTooLarge", err)
	}
}

func TestExtractTimeoutAndCancel(t *testing.T) {
	requireTesseract(t)
	data := encode(t, render(t, "slow"), "png")
	_, err := New(Options{Timeout: time.Millisecond}).Extract(context.Background(), data)
	if core.KindOf(err) != core.KindUpstream || !strings.Contains(err.Error(), "did not finish within 1ms") {
		t.Errorf("timeout: got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(Options{}).Extract(ctx, data); core.KindOf(err) != core.KindCanceled {
		t.Errorf("canceled: got %v", err)
	}
}

func TestExtractMissingLanguage(t *testing.T) {
	requireTesseract(t)
	_, err := New(Options{Languages: "xx_nonexistent"}).Extract(context.Background(), encode(t, render(t, "x"), "png"))
	if core.KindOf(err) != core.KindUnavailable || !strings.Contains(err.Error(), "no data for language") {
		t.Errorf("got %v", err)
	}
}

func TestMeanConfidence(t *testing.T) {
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		"1\t1\t0\t0\t0\t0\t0\t0\t900\t200\t-1\t\n" +
		"4\t1\t1\t1\t1\t0\t34\t33\t436\t38\t-1\t\n" +
		"5\t1\t1\t1\t1\t1\t34\t33\t109\t38\t90.5\tHello\n" +
		"5\t1\t1\t1\t1\t2\t159\t33\t84\t38\t80\tAda\n" +
		"5\t1\t1\t1\t1\t3\t159\t33\t84\t38\t95\t \n"
	if got := meanConfidence(tsv); got != 85.3 {
		t.Errorf("got %v, want 85.3", got)
	}
	if got := meanConfidence(""); got != 0 {
		t.Errorf("empty: got %v", got)
	}
}
