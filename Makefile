# Two commands for a fresh machine: `make demo` and `make test`. Each sets itself up.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
UV_VERSION ?= 0.13.9
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

.PHONY: demo test lock tesseract hledger chromium postgres bench clean

# Installed from the lock only: every dependency at the version and hashes it names, then
# the project itself without resolving anything again.
$(STAMP): requirements.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q --require-hashes -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps -e .
	touch $(STAMP)

# Resolve pyproject.toml's ranges again (with the test and beancount extras) for CPython 3.11
# on Linux x86_64, into requirements.lock with every file's hashes.
lock:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q 'uv==$(UV_VERSION)'
	$(BIN)/uv pip compile pyproject.toml --extra test --extra beancount --generate-hashes \
	  --python-version 3.11 --python-platform x86_64-unknown-linux-gnu \
	  --custom-compile-command 'make lock' $(LOCK_ARGS) -o requirements.lock

# The tesseract binary, from the system's packages where this machine allows it.
tesseract:
	@command -v tesseract >/dev/null 2>&1 || { \
	  command -v apt-get >/dev/null 2>&1 && \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq tesseract-ocr >/dev/null; } || \
	  echo "stmtflow: install the tesseract binary (e.g. apt-get install tesseract-ocr) for scans"

# hledger, which the tests read the journal export back with (they fail, not skip, without it).
hledger:
	@command -v hledger >/dev/null 2>&1 || { \
	  command -v apt-get >/dev/null 2>&1 && \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq hledger >/dev/null; } || \
	  echo "stmtflow: install hledger (e.g. apt-get install hledger) for the export tests"

# Chromium, which the review page's test drives headless (it fails, not skips, without it).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  command -v apt-get >/dev/null 2>&1 && \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq chromium >/dev/null; } || \
	  echo "stmtflow: install chromium (e.g. apt-get install chromium) for the review page test"

# PostgreSQL on 127.0.0.1:5432 (trust auth, database `test`) for the ledger tests: started
# here when it is installed but not running; the tests fail, not skip, without it.
postgres:
	@pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null || { \
	  command -v pg_ctlcluster >/dev/null 2>&1 && \
	  $(SUDO) pg_ctlcluster --skip-systemctl-redirect "$$(ls /etc/postgresql | head -1)" main start \
	  && for i in $$(seq 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done; } || \
	  echo "stmtflow: start PostgreSQL on 127.0.0.1:5432 for the PostgreSQL tests"
	@psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='test'" \
	  2>/dev/null | grep -q 1 || psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE test" \
	  2>/dev/null || true

demo: $(STAMP) tesseract
	rm -rf samples
	$(BIN)/stmtflow sample samples --statements 20 --bad
	$(BIN)/stmtflow import samples

test: $(STAMP) tesseract hledger chromium postgres
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -n auto --dist loadfile

bench: $(STAMP) tesseract
	$(BIN)/python -m benchmarks

clean:
	rm -rf samples .stmtflow
