package ocr

import (
	"bytes"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"

	"github.com/ada-chat/ada/core"
)

// supported lists the accepted formats in error messages.
const supported = "png, jpeg, gif, webp, bmp, tiff"

// format is an image format tesseract (leptonica) reads and Go can size.
type format struct {
	name   string
	magic  func([]byte) bool
	config func(io.Reader) (image.Config, error)
}

// formats are matched by their leading bytes rather than through image's
// global decoder registry, so nothing depends on which packages were
// imported for their side effects.
var formats = []format{
	{"png", prefix("\x89PNG\r\n\x1a\n"), png.DecodeConfig},
	{"jpeg", prefix("\xff\xd8\xff"), jpeg.DecodeConfig},
	{"gif", func(b []byte) bool { return prefix("GIF87a")(b) || prefix("GIF89a")(b) }, gif.DecodeConfig},
	{"webp", func(b []byte) bool { return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP" }, webp.DecodeConfig},
	{"bmp", prefix("BM"), bmp.DecodeConfig},
	{"tiff", func(b []byte) bool { return prefix("II*\x00")(b) || prefix("MM\x00*")(b) }, tiff.DecodeConfig},
}

func prefix(p string) func([]byte) bool {
	return func(b []byte) bool { return bytes.HasPrefix(b, []byte(p)) }
}

// sniff returns the format name and size of data, read from its header only.
// The file's name and any Content-Type are not trusted.
func sniff(data []byte) (string, image.Config, error) {
	for _, f := range formats {
		if !f.magic(data) {
			continue
		}
		cfg, err := f.config(bytes.NewReader(data))
		if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
			return "", image.Config{}, core.Wrap(core.KindInvalid, err, "the file looks like a %s image but it is damaged or of an unsupported kind", f.name)
		}
		return f.name, cfg, nil
	}
	return "", image.Config{}, core.Errorf(core.KindInvalid, "file is not a supported image (%s)", supported)
}
