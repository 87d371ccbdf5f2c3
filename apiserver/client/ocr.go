package client

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"

	"github.com/ada-chat/ada/core"
)

// maxOCRAnswer bounds the JSON of an OCR answer: the text of one image,
// which tesseract keeps far below this.
const maxOCRAnswer = 4 << 20

// ExtractText posts an image to POST /v1/ocr/extract as the multipart field
// "file" and returns the text read from it. The API's 400, 413 and 503
// answers come back as KindInvalid, KindTooLarge and KindUnavailable with
// the API's own detail message.
func (c *Client) ExtractText(ctx context.Context, filename string, image []byte) (core.OCRResult, error) {
	if filename == "" {
		filename = "image"
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	part, err := mw.CreateFormFile("file", filename)
	if err == nil {
		_, err = part.Write(image)
	}
	if err == nil {
		err = mw.Close()
	}
	if err != nil {
		return core.OCRResult{}, core.Wrap(core.KindInternal, err, "encode OCR upload")
	}
	req, err := c.newRequest(ctx, http.MethodPost, "/v1/ocr/extract", &body)
	if err != nil {
		return core.OCRResult{}, err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := c.do(req)
	if err != nil {
		return core.OCRResult{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return core.OCRResult{}, c.statusError(resp)
	}
	var res core.OCRResult
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxOCRAnswer)).Decode(&res); err != nil {
		return core.OCRResult{}, core.Wrap(core.KindUpstream, err, "the Ada API at %s sent an OCR answer that is not valid", c.base)
	}
	return res, nil
}
