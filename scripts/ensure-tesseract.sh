#!/bin/sh
# Installs Debian's tesseract with its English data when it is missing (the OCR tests read scanned PDFs with it:
# test/documents/ocr.test.ts). Safe to call every time.
set -eu
exec sh "$(dirname "$0")/ensure-package.sh" "${TESSERACT_PATH:-/usr/bin/tesseract}" tesseract-ocr tesseract-ocr-eng
