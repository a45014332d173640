#!/usr/bin/env bash
# Debian packages sv_scrapy uses: chromium (JavaScript-only pages), poppler-utils (pdftotext,
# the PDF baseline) and tesseract-ocr with its language packs (OCR of scanned PDFs).
# Idempotent: installs only what is missing, only as root.
# SV_OCR_LANGS overrides the language packs (Debian suffixes: "eng fra chi-sim ...").
set -euo pipefail

OCR_LANGS=${SV_OCR_LANGS:-"eng fra deu spa por ita nld ara kor chi-sim"}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

missing=()
command -v pdftotext >/dev/null 2>&1 || missing+=(poppler-utils)
[ -x /usr/lib/chromium/chromium ] || [ -x /usr/bin/chromium ] || missing+=(chromium)
command -v tesseract >/dev/null 2>&1 || missing+=(tesseract-ocr)
for lang in $OCR_LANGS; do
  installed "tesseract-ocr-$lang" || missing+=("tesseract-ocr-$lang")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "note: not root, so not installing ${missing[*]}; tests that need them will skip" >&2
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "note: no apt-get here; install ${missing[*]} by hand; tests that need them will skip" >&2
  exit 0
fi
echo "installing Debian packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# a mirror that is down must not fail the build: the tests that need these packages skip
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }; then
  echo "note: could not install ${missing[*]}; tests that need them will skip" >&2
fi
