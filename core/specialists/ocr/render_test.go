package ocr

import (
	"image"
	"testing"

	"github.com/ada-chat/ada/core/specialists/ocr/ocrtest"
)

func requireTesseract(t *testing.T) { ocrtest.RequireTesseract(t) }

func render(t *testing.T, lines ...string) *image.RGBA { return ocrtest.Render(t, lines...) }

func encode(t *testing.T, img image.Image, format string) []byte {
	return ocrtest.Encode(t, img, format)
}
