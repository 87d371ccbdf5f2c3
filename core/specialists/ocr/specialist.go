package ocr

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ada-chat/ada/core"
)

// Name is the name the model uses in SPECIALIST_REQUEST[ocr:{...}].
const Name = "ocr"

// defaultDownloadTimeout bounds fetching an image_url.
const defaultDownloadTimeout = 20 * time.Second

// maxTextRunes keeps a dense page from crowding the conversation out of the
// prompt.
const maxTextRunes = 8000

// capability is synchronised as this specialist's FAQ entry.
const capability = `Q: Can Ada read text in images?
A: Yes. Ada uses the ocr specialist (tesseract) to read the text in an image attached to the message, or in an image at an http or https address. Supported formats are PNG, JPEG, GIF, WebP, BMP and TIFF, up to 10 MiB. She gets the text with its line count and a confidence score from 0 to 100, and can then summarise, translate or answer questions about it. Handwriting and very small or blurred text are read poorly.`

// The schemas are strings so that every Info gets its own copy: a caller
// that changes the json.RawMessage it was given cannot change ours.
var (
	//go:embed input_schema.json
	inputSchema string
	//go:embed output_schema.json
	outputSchema string
)

// SpecialistOptions configures how the specialist downloads image URLs.
type SpecialistOptions struct {
	// HTTPClient defaults to a client that connects to public addresses
	// only. A client given here is used as it is.
	HTTPClient *http.Client
	// Timeout bounds one download; defaultDownloadTimeout when zero.
	Timeout time.Duration
}

// Specialist is the ocr specialist. It implements core.Specialist.
type Specialist struct {
	extractor *Extractor
	client    *http.Client
	timeout   time.Duration
}

var _ core.Specialist = (*Specialist)(nil)

// NewSpecialist returns the ocr specialist over e.
func NewSpecialist(e *Extractor, opts SpecialistOptions) *Specialist {
	s := &Specialist{extractor: e, client: opts.HTTPClient, timeout: opts.Timeout}
	if s.client == nil {
		s.client = publicClient()
	}
	if s.timeout <= 0 {
		s.timeout = defaultDownloadTimeout
	}
	return s
}

// Info describes ocr; it is enabled when tesseract is installed.
func (s *Specialist) Info() core.SpecialistInfo {
	return core.SpecialistInfo{
		Name:         Name,
		Description:  "Reads the text in an image: the one attached to the message, or one at an http(s) image_url.",
		Icon:         "📄",
		Version:      "1.0.0",
		Priority:     core.PriorityMedium,
		Enabled:      s.extractor.Available(),
		Tags:         []string{"ocr", "image", "text-extraction"},
		InputSchema:  json.RawMessage(inputSchema),
		OutputSchema: json.RawMessage(outputSchema),
		Capability:   capability,
	}
}

// Run reads the image at args.image_url when given, and otherwise returns the
// text of the chat's ocr_context: an explicit URL names another image than
// the attached one. Errors are core.Errors: give the model
// core.SafeMessage(err).
func (s *Specialist) Run(ctx context.Context, call core.SpecialistCall) (string, error) {
	var args struct {
		ImageURL string `json:"image_url"`
	}
	if len(call.Args) > 0 {
		if err := json.Unmarshal(call.Args, &args); err != nil {
			return "", core.Wrap(core.KindInvalid, err, `ocr arguments must be a JSON object like {"image_url": "https://..."} or {}`)
		}
	}
	imageURL := strings.TrimSpace(args.ImageURL)
	switch {
	case imageURL != "":
		data, err := s.download(ctx, imageURL)
		if err != nil {
			return "", err
		}
		res, err := s.extractor.Extract(ctx, data)
		if err != nil {
			return "", err
		}
		return describe(res), nil
	case call.OCRContext != nil:
		return describe(*call.OCRContext), nil
	default:
		return "", core.Errorf(core.KindInvalid, "ocr needs an image: none is attached to the message and no image_url was given")
	}
}

// describe writes a one-line summary, then the text.
func describe(r core.OCRResult) string {
	var facts []string
	if r.ImageFormat != "" {
		facts = append(facts, r.ImageFormat)
	}
	if r.ImageSize[0] > 0 {
		facts = append(facts, fmt.Sprintf("%d×%d pixels", r.ImageSize[0], r.ImageSize[1]))
	}
	if strings.TrimSpace(r.Text) == "" {
		if len(facts) == 0 {
			return "No text was found in the image."
		}
		return fmt.Sprintf("No text was found in the image (%s).", strings.Join(facts, ", "))
	}
	facts = append(facts,
		count(r.LineCount, "line"),
		count(r.CharCount, "character"),
		fmt.Sprintf("confidence %.0f/100", r.Confidence))
	text := r.Text
	if runes := []rune(text); len(runes) > maxTextRunes {
		text = string(runes[:maxTextRunes]) + "\n[… text cut off]"
	}
	return fmt.Sprintf("Text extracted from the image (%s):\n\n%s", strings.Join(facts, ", "), text)
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
