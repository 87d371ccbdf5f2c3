package apiserver

import (
	"context"
	"io"
	"mime/multipart"

	"github.com/valyala/fasthttp"

	"github.com/ada-chat/ada/core"
)

// MusicProvider is the listening-context source of /v1/media/musicprovider.
type MusicProvider interface {
	Configured() bool
	NowPlaying(ctx context.Context) (core.Listening, error)
}

// TextExtractor reads text from images for /v1/ocr/extract.
type TextExtractor interface {
	Extract(ctx context.Context, data []byte) (core.OCRResult, error)
	MaxBytes() int64
}

func (s *Server) handleSpecialists(r *request) error {
	infos := s.core.Specialists()
	writeJSON(r.RequestCtx, 200, map[string]any{"specialists": infos, "count": len(infos)})
	return nil
}

func (s *Server) handleMusicProvider(r *request) error {
	if s.deps.Music == nil || !s.deps.Music.Configured() {
		writeJSON(r.RequestCtx, 200, map[string]any{})
		return nil
	}
	l, err := s.deps.Music.NowPlaying(r.ctx)
	if err != nil {
		return err
	}
	writeJSON(r.RequestCtx, 200, l)
	return nil
}

func (s *Server) handleOCR(r *request) error {
	if s.deps.OCR == nil {
		return core.Errorf(core.KindUnavailable, "OCR is not available on this server")
	}
	fh, err := r.FormFile("file")
	if err != nil {
		if err == fasthttp.ErrNoMultipartForm || err == fasthttp.ErrMissingFile {
			return core.Errorf(core.KindInvalid, "file: send the image as a multipart/form-data field named \"file\"")
		}
		return core.Errorf(core.KindInvalid, "file: could not read the upload: %s", err.Error())
	}
	if fh.Size > s.deps.OCR.MaxBytes() {
		return core.Errorf(core.KindTooLarge, "file: the image is %d bytes; the limit is %d (OCR_MAX_BYTES)", fh.Size, s.deps.OCR.MaxBytes())
	}
	data, err := readUpload(fh)
	if err != nil {
		return err
	}
	release, err := s.ocrSlots.acquire(r.ctx)
	if err != nil {
		r.Response.Header.Set("Retry-After", retryAfterBusy)
		return err
	}
	defer release()
	res, err := s.deps.OCR.Extract(r.ctx, data)
	if err != nil {
		return err
	}
	writeJSON(r.RequestCtx, 200, res)
	return nil
}

func readUpload(fh *multipart.FileHeader) ([]byte, error) {
	f, err := fh.Open()
	if err != nil {
		return nil, core.Wrap(core.KindInvalid, err, "file: could not read the upload")
	}
	defer f.Close()
	return io.ReadAll(f)
}
