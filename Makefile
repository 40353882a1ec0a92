# Two commands for a fresh machine: `make demo` and `make test`. Each sets itself up.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: demo test lint tesseract bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

# The tesseract binary, from the system's packages where this machine allows it.
tesseract:
	@command -v tesseract >/dev/null 2>&1 || { \
	  command -v apt-get >/dev/null 2>&1 && \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq tesseract-ocr >/dev/null; } || \
	  echo "stmtflow: install the tesseract binary (e.g. apt-get install tesseract-ocr) for scans"

demo: $(STAMP) tesseract
	rm -rf samples
	$(BIN)/stmtflow sample samples --statements 20 --bad
	$(BIN)/stmtflow import samples

test: $(STAMP) tesseract
	$(BIN)/ruff check .
	$(BIN)/python -m pytest

bench: $(STAMP) tesseract
	$(BIN)/python -m benchmarks

clean:
	rm -rf samples .stmtflow
