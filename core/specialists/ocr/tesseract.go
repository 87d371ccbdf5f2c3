package ocr

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ada-chat/ada/core"
)

// tesseractOutput is what one tesseract run produced.
type tesseractOutput struct {
	text       string
	confidence float64 // mean word confidence, 0 to 100
}

// run writes data to a private temporary directory and runs
//
//	tesseract image.<ext> out -l <langs> txt tsv
//
// once, which writes the plain text (out.txt) and the per-word confidences
// (out.tsv) from the same recognition pass.
func (e *Extractor) run(ctx context.Context, data []byte, format string) (tesseractOutput, error) {
	bin, err := exec.LookPath(e.opts.Binary)
	if err != nil {
		return tesseractOutput{}, core.Wrap(core.KindUnavailable, err, "OCR is not available: tesseract is not installed")
	}
	dir, err := os.MkdirTemp("", "ada-ocr-")
	if err != nil {
		return tesseractOutput{}, core.Wrap(core.KindInternal, err, "OCR failed: no temporary directory")
	}
	defer os.RemoveAll(dir)
	// The name is ours, never the client's: tesseract reads a *.txt input as
	// a list of image paths and can fetch URLs itself, and neither may be
	// reachable from a request.
	in := filepath.Join(dir, "image."+format)
	if err := os.WriteFile(in, data, 0o600); err != nil {
		return tesseractOutput{}, core.Wrap(core.KindInternal, err, "OCR failed: could not write the image")
	}

	ctx, cancel := context.WithTimeout(ctx, e.opts.Timeout)
	defer cancel()
	base := filepath.Join(dir, "out")
	cmd := exec.CommandContext(ctx, bin, in, base, "-l", e.opts.Languages, "txt", "tsv")
	// Tesseract's OpenMP threads each take a core; with several requests at
	// once that oversubscribes the machine and is slower than one thread each.
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return tesseractOutput{}, e.runError(ctx, err, stderr.String())
	}

	text, err := os.ReadFile(base + ".txt")
	if err != nil {
		return tesseractOutput{}, core.Wrap(core.KindUpstream, err, "OCR failed: tesseract wrote no text output")
	}
	tsv, err := os.ReadFile(base + ".tsv")
	if err != nil {
		return tesseractOutput{}, core.Wrap(core.KindUpstream, err, "OCR failed: tesseract wrote no TSV output")
	}
	return tesseractOutput{text: string(text), confidence: meanConfidence(string(tsv))}, nil
}

func (e *Extractor) runError(ctx context.Context, err error, stderr string) error {
	cause := errors.New(strings.TrimSpace(stderr))
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return core.Wrap(core.KindUpstream, err, "OCR failed: tesseract did not finish within %v", e.opts.Timeout)
	case ctx.Err() != nil:
		return core.Wrap(core.KindCanceled, err, "OCR was canceled")
	case strings.Contains(stderr, "Failed loading language"):
		return core.Wrap(core.KindUnavailable, cause, "OCR is not available: tesseract has no data for language %q (install tesseract-ocr-<lang>)", e.opts.Languages)
	default:
		return core.Wrap(core.KindUpstream, errors.Join(err, cause), "OCR failed: tesseract could not read the image")
	}
}

// meanConfidence averages the confidences of the words (level 5 rows with
// text) in tesseract's TSV output, rounded to one decimal. Rows of layout
// levels carry -1 and are skipped.
func meanConfidence(tsv string) float64 {
	var sum float64
	var n int
	for i, line := range strings.Split(tsv, "\n") {
		f := strings.Split(line, "\t")
		if i == 0 || len(f) < 12 || f[0] != "5" || strings.TrimSpace(f[11]) == "" {
			continue
		}
		c, err := strconv.ParseFloat(f[10], 64)
		if err != nil || c < 0 {
			continue
		}
		sum += c
		n++
	}
	if n == 0 {
		return 0
	}
	return math.Round(sum/float64(n)*10) / 10
}
