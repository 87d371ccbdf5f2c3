# tesseract: the OCR command-line tool used by core/specialists/ocr and
# POST /v1/ocr/extract. Its tests skip without it, except with CI=true, where
# they fail, so CI runs `make tesseract` before `make test`.
# Needs root (or run the apt-get line with sudo) on Debian or Ubuntu.
.PHONY: tesseract
tesseract:
	command -v tesseract >/dev/null || (apt-get update && apt-get install -y tesseract-ocr tesseract-ocr-eng)
