// Package ocrtest renders text into images for OCR tests across the repo,
// and tells whether the real tesseract is there. It is imported only by tests.
package ocrtest

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"testing"

	"golang.org/x/image/bmp"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/tiff"
)

// RequireTesseract skips a test that needs the real tesseract when it is not
// installed, except in CI (CI=true), where a missing tool is a failure.
func RequireTesseract(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("tesseract"); err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("tesseract is not installed (run `make tesseract`); CI must run the OCR tests")
	}
	t.Skip("tesseract is not installed; run `make tesseract` to run the OCR tests")
}

// Render draws lines of black Go Regular text at 48 px on white, large and
// clean enough for tesseract to read reliably.
func Render(t testing.TB, lines ...string) *image.RGBA {
	t.Helper()
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: 48, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	defer face.Close()
	img := image.NewRGBA(image.Rect(0, 0, 900, 60+80*len(lines)))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	d := font.Drawer{Dst: img, Src: image.NewUniform(color.Black), Face: face}
	for i, line := range lines {
		d.Dot = fixed.P(30, 70+80*i)
		d.DrawString(line)
	}
	return img
}

// Encode writes img in the named format.
func Encode(t testing.TB, img image.Image, format string) []byte {
	t.Helper()
	var b bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&b, img)
	case "jpeg":
		err = jpeg.Encode(&b, img, &jpeg.Options{Quality: 90})
	case "gif":
		err = gif.Encode(&b, img, nil)
	case "bmp":
		err = bmp.Encode(&b, img)
	case "tiff":
		err = tiff.Encode(&b, img, nil)
	default:
		t.Fatalf("no encoder for %s", format)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
