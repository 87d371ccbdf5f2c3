package ocr

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ada-chat/ada/core"
)

// Defaults used when the Options field is zero.
const (
	DefaultBinary    = "tesseract"
	DefaultLanguages = "eng"
	DefaultMaxBytes  = 10 << 20
	// DefaultMaxPixels stops decompression bombs: a few KiB of PNG can
	// declare an image that would take gigabytes to decode. 50 megapixels is
	// more than a 300 dpi A3 scan.
	DefaultMaxPixels = 50_000_000
	DefaultTimeout   = 60 * time.Second
)

// Options configures an Extractor.
type Options struct {
	Binary    string        // path or name of tesseract; DefaultBinary when empty
	Languages string        // tesseract -l value such as "eng+deu"; DefaultLanguages when empty
	MaxBytes  int64         // larger files are KindTooLarge
	MaxPixels int           // larger images (width × height) are KindTooLarge
	Timeout   time.Duration // bounds one tesseract run
}

// Extractor runs tesseract on images. It keeps no state between calls and is
// safe for concurrent use.
type Extractor struct {
	opts Options
}

// New returns an Extractor, filling in defaults.
func New(opts Options) *Extractor {
	if opts.Binary == "" {
		opts.Binary = DefaultBinary
	}
	if opts.Languages == "" {
		opts.Languages = DefaultLanguages
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxPixels <= 0 {
		opts.MaxPixels = DefaultMaxPixels
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	return &Extractor{opts: opts}
}

// MaxBytes is the largest file Extract accepts.
func (e *Extractor) MaxBytes() int64 { return e.opts.MaxBytes }

// Available reports whether the tesseract binary can be found.
func (e *Extractor) Available() bool {
	_, err := exec.LookPath(e.opts.Binary)
	return err == nil
}

// Extract checks that data is a supported image within the limits and reads
// its text with tesseract. Confidence is tesseract's mean word confidence on
// its own 0 to 100 scale (0 when no word was found). CharCount counts the
// characters (runes) of Text, newlines included; LineCount counts its
// non-blank lines. Errors are core.Errors: KindTooLarge, KindInvalid (not an
// image), KindUnavailable (tesseract or its language data missing),
// KindUpstream (tesseract failed or timed out), KindCanceled.
func (e *Extractor) Extract(ctx context.Context, data []byte) (core.OCRResult, error) {
	if len(data) == 0 {
		return core.OCRResult{}, core.Errorf(core.KindInvalid, "the file is empty")
	}
	if int64(len(data)) > e.opts.MaxBytes {
		return core.OCRResult{}, core.Errorf(core.KindTooLarge, "the image is larger than %s", sizeText(e.opts.MaxBytes))
	}
	name, cfg, err := sniff(data)
	if err != nil {
		return core.OCRResult{}, err
	}
	if int64(cfg.Width)*int64(cfg.Height) > int64(e.opts.MaxPixels) {
		return core.OCRResult{}, core.Errorf(core.KindTooLarge, "the image is %d×%d pixels; the limit is %g megapixels",
			cfg.Width, cfg.Height, float64(e.opts.MaxPixels)/1e6)
	}
	out, err := e.run(ctx, data, name)
	if err != nil {
		return core.OCRResult{}, err
	}
	text := cleanText(out.text)
	return core.OCRResult{
		Text:        text,
		CharCount:   utf8.RuneCountInString(text),
		LineCount:   countLines(text),
		Confidence:  out.confidence,
		ImageFormat: name,
		ImageSize:   [2]int{cfg.Width, cfg.Height},
	}, nil
}

// cleanText drops tesseract's page separators (form feeds) and trailing
// spaces, and trims blank lines at either end.
func cleanText(s string) string {
	s = strings.ReplaceAll(s, "\f", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.Trim(strings.Join(lines, "\n"), "\n")
}

func countLines(s string) int {
	n := 0
	for l := range strings.SplitSeq(s, "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

// sizeText writes a byte limit the way operators set it.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	default:
		return fmt.Sprintf("%d bytes", n)
	}
}
