# The two commands: `make run` (serve on http://127.0.0.1:8000) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8000
STAMP := $(VENV)/.installed

.PHONY: run test install browsers build bench bench-relevance clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	PORT=$(PORT) $(BIN)/topichub serve

build: $(STAMP)
	$(BIN)/topichub build

test: $(STAMP) browsers
	$(BIN)/python -m pytest

# Browser tests drive Debian's Chromium; install it when it is missing (needs root, as in CI).
browsers:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the browser tests"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null; }

clean:
	rm -rf $(VENV) instance .pytest_cache
