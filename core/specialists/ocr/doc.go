// Package ocr extracts text from images with the tesseract command-line tool
// (Debian: tesseract-ocr, tesseract-ocr-eng; `make tesseract`). Extractor
// serves POST /v1/ocr/extract; Specialist is the "ocr" specialist, which reads
// the chat's ocr_context or downloads an image URL. It imports only core.
package ocr
