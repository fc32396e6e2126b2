# The two commands: `make run` (serve on http://127.0.0.1:8000) and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8000
LOCK := requirements.lock
# What serving needs (`make run`), and that plus the test extras (`make test`), pinned by $(LOCK).
SERVE_STAMP := $(VENV)/.installed-serve
STAMP := $(VENV)/.installed

.PHONY: run test check install lock browsers bench-tools build bench bench-relevance clean clean-index

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(SERVE_STAMP): pyproject.toml $(LOCK) | $(BIN)/python
	$(BIN)/pip install --quiet -c $(LOCK) -e .
	touch $@

$(STAMP): pyproject.toml $(LOCK) | $(BIN)/python
	$(BIN)/pip install --quiet -c $(LOCK) -e '.[test]'
	touch $@ $(SERVE_STAMP)

install: $(STAMP)

# Resolve the dependencies afresh in a scratch venv and pin every version in $(LOCK).
lock:
	rm -rf $(VENV)-lock
	$(PYTHON) -m venv $(VENV)-lock
	$(VENV)-lock/bin/pip install --quiet --upgrade pip
	$(VENV)-lock/bin/pip install --quiet -e '.[test]'
	{ echo "# Pinned versions of every dependency, serving and test (make lock; pip install -c $(LOCK))."; \
	  echo "# Resolved with $$($(VENV)-lock/bin/python --version) on $$(uname -m)."; \
	  $(VENV)-lock/bin/pip freeze --exclude-editable; } > $(LOCK)
	rm -rf $(VENV)-lock

# Every module compiled to bytecode once, before Python starts many processes that import them (the
# test suite's servers, workers and command lines; gunicorn's workers): where PYTHONDONTWRITEBYTECODE is
# set (a container's default), each process compiled every module from source again, about 0.4 s of it
# (tests/test_cli.py: 73 s -> 64 s).  Only the modules changed since are compiled again.
BYTECODE := $(BIN)/python -m compileall -q -j 0 corpus index search web >/dev/null

run: $(SERVE_STAMP)
	$(BYTECODE)
	PORT=$(PORT) $(BIN)/topichub serve

build: $(SERVE_STAMP)
	$(BIN)/topichub build

test: $(STAMP) browsers node_modules/axe-core/axe.min.js
	$(BYTECODE)
	$(BIN)/python -m pytest

# The quick pass (about five minutes on 2 cores): everything but the tests marked slow.
check: $(STAMP)
	$(BYTECODE)
	$(BIN)/python -m pytest -m "not slow" -q

# Debian packages the tests drive: chromium (browser tests), haproxy and rsync (scale-out and publish
# tests); and the one the benchmarks drive: wrk (the HTTP load).
SYSTEM_PACKAGES := chromium haproxy rsync
BENCH_PACKAGES := wrk

# $(call installed,PACKAGES,WHAT,COMMAND): each Debian package of PACKAGES that is missing is installed
# (needs root, as in CI); otherwise one line says what to install before COMMAND is run again.  Looked
# for in /usr/sbin too, where haproxy is and a user's PATH may not go (a review).
define installed
	@missing=""; for p in $(1); do PATH="$$PATH:/usr/sbin:/sbin" command -v $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then \
	    echo "$(2) need Debian's$$missing: install them (sudo apt-get install$$missing), then run $(3) again." >&2; \
	    exit 1; \
	  fi; \
	  echo "installing Debian's$$missing for $(3)"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >/dev/null; \
	fi
endef

browsers:
	$(call installed,$(SYSTEM_PACKAGES),The tests,make test)

bench-tools:
	$(call installed,$(BENCH_PACKAGES),The benchmarks,make bench)

# axe-core (accessibility checks injected into pages by the browser tests), from the npm registry.
node_modules/axe-core/axe.min.js: package.json
	npm install --no-audit --no-fund --silent
	touch $@

# Benchmarks: speed against SQLite FTS5 and a reference service (issue 7); relevance (issue 4).
bench: $(STAMP) bench-tools
	$(BIN)/python -m bench.run $(BENCH_ARGS)

bench-relevance: $(STAMP)
	$(BIN)/python -m bench.relevance --moved 3

# What `make install`, `make lock` and the tests make; never the index (`instance/index`, the default
# of --index-dir: what `make run` serves, perhaps built from an operator's own corpus).
clean:
	rm -rf $(VENV) $(VENV)-lock .pytest_cache .hypothesis node_modules test-results *.egg-info
	find . -path ./instance -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +

# The default index too, asked for by name: `make run` builds it again from the bundled corpus.
clean-index:
	rm -rf instance/index
