# The two commands: `make run` (serve on http://127.0.0.1:8000) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8000
STAMP := $(VENV)/.installed

.PHONY: run test check install browsers build bench bench-relevance clean

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

test: $(STAMP) browsers node_modules/axe-core/axe.min.js
	$(BIN)/python -m pytest

# The quick pass (under two minutes): everything but the tests marked slow.
check: $(STAMP)
	$(BIN)/python -m pytest -m "not slow" -q

# Browser tests drive Debian's Chromium; install it when it is missing (needs root, as in CI).
browsers:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "installing Debian's chromium for the browser tests"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null; }

# axe-core (accessibility checks injected into pages by the browser tests), from the npm registry.
node_modules/axe-core/axe.min.js: package.json
	npm install --no-audit --no-fund --silent
	touch $@

# Benchmarks: speed against SQLite FTS5 and a reference service (issue 7); relevance (issue 4).
bench: $(STAMP)
	$(BIN)/python -m bench.run $(BENCH_ARGS)

bench-relevance: $(STAMP)
	$(BIN)/python -m bench.relevance

clean:
	rm -rf $(VENV) instance .pytest_cache node_modules
