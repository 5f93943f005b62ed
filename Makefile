# Truco Arena. `make run` starts the platform, `make test` runs every check.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

# Python keeps each module's compiled bytecode in __pycache__ (git-ignored) even where the
# environment says not to (PYTHONDONTWRITEBYTECODE, set in many container images): a test run
# starts hundreds of Python processes (servers, workers, bots, benches), and without the cache
# each one compiles every module it imports again. On this project's subprocess-heavy tests that
# was 7.2 s of CPU against 4.9 s with the cache (the same tests, one after the other).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: install run test lint typecheck pytest bench spec messages clean worker-matches worker-results beat luck-model

install: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,local]'
	@touch $(STAMP)

run: install
	$(BIN)/python -m services.launch.local

# one more worker or beat by hand (set REDIS_URL; the results worker also needs DATABASE_URL;
# beat only sends messages)
worker-matches: install
	env -u DATABASE_URL -u TRUCO_SECRET_KEY $(BIN)/celery -A services.worker.matches.celery_app worker -Q matches,ladder -n matches@%h --pool=threads --concurrency=1000 --loglevel=INFO

worker-results: install
	$(BIN)/celery -A services.worker.celery_app worker -Q results -n results@%h --pool=threads --concurrency=4 --loglevel=INFO

beat: install
	$(BIN)/celery -A services.worker.celery_app beat --loglevel=INFO

test: install browser node-tools lint typecheck pytest

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

# xdist workers, two a core (tests/xdist_workers.py: half a worker's time is waiting), each with
# its own databases and Redis key prefix, a test file kept on one worker (its module-scoped servers are started once), the files marked
# slow handed out first (tests/slow_first.py; xdist's reorder would send them last)
pytest: install
	$(BIN)/pytest -n auto --dist loadfile --no-loadscope-reorder

bench: install
	$(BIN)/python -m bench

# the long crash and load runs (tests marked soak; under 15 minutes)
.PHONY: soak
soak: install
	$(BIN)/pytest -m soak

# every page type at 1280 and 390 px into screenshots/ (git-ignored; not part of make test)
.PHONY: screenshots
screenshots: install browser
	$(BIN)/pytest -m screenshots tests/services/web/browser/test_screenshots.py
	@echo "screenshots: $$(ls screenshots/*.png | wc -l) PNG files in screenshots/"

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info

spec: install
	$(BIN)/python -m services.api.spec > api-spec/openapi.json

# the luck model (docs/luck.md): self-play of the built-in bots, then the fit, written to
# arena/luck/model-v1.json; deterministic from LUCK_SEED; CPU-heavy (about an hour of one core
# at the default size, run under nice), never part of make test
LUCK_GAMES ?= 10000
LUCK_SEED ?= 1
luck-model: install
	nice -n 19 $(BIN)/python -m tools.luck_fit --games $(LUCK_GAMES) --seed $(LUCK_SEED)

# the pages' message catalogues after a template or view string changed (docs/translating.md):
# extract the template, then merge it into every language's .po (new strings come in empty)
LOCALES := services/web/locale
messages: install
	$(BIN)/pybabel extract -F babel.cfg -o $(LOCALES)/messages.pot --project="Truco Arena" \
	  --copyright-holder="Truco Arena" --no-location --sort-output .
	$(BIN)/pybabel update -i $(LOCALES)/messages.pot -d $(LOCALES) -N --ignore-obsolete

# Debian's headless Chromium for the browser tests (tests/services/web) and the page benches, and
# nginx for the reverse-proxy tests (tests/services/api/test_reverse_proxy.py), installed with
# apt-get where they are missing and we are root; never fails the build (without them those tests
# skip, saying why). The old headless shell (chromium-headless-shell) renders the same pages with
# much less of the processor than the full browser (bench/browser.py); where Debian has no such
# package, the full chromium is installed instead, and the tests drive that.
.PHONY: browser
browser:
	@missing=""; test -x /usr/bin/chromium-headless-shell || missing=" chromium-headless-shell"; \
	test -x /usr/sbin/nginx || missing="$$missing nginx"; \
	if [ -z "$$missing" ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "browser: installing$$missing with apt-get"; \
	  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >/dev/null 2>&1 \
	    || (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	          $$(echo $$missing | sed 's/chromium-headless-shell/chromium/')) >/dev/null 2>&1 \
	    || echo "browser: could not install$$missing; their tests will be skipped"; \
	else echo "browser: no$$missing and no root apt-get; the page tests drive /usr/bin/chromium if it is there, else those tests are skipped"; fi

# the npm tools the OpenAPI tests run (tools/node-tools/package.json) into .venv/node-tools,
# installed here, before the tests, so no test reaches the npm registry; never fails the build
# (without npm, or offline, those tests skip, saying why)
NODE_TOOLS := $(VENV)/node-tools
.PHONY: node-tools
node-tools: $(NODE_TOOLS)/.installed
$(NODE_TOOLS)/.installed: tools/node-tools/package.json
	@mkdir -p $(NODE_TOOLS)
	@if command -v npm >/dev/null 2>&1; then \
	  cp tools/node-tools/package.json $(NODE_TOOLS)/package.json && \
	  (cd $(NODE_TOOLS) && npm install --no-audit --no-fund --silent >/dev/null 2>&1) && touch $@ \
	    || echo "node-tools: npm could not install the tools; their tests will be skipped"; \
	else echo "node-tools: no npm; the OpenAPI tests that need Node tools will be skipped"; fi

# Swagger UI for the API reference (/schema/reference), vendored into
# services/web/static/swagger_ui/ from the npm package (needs npm; the files are committed)
.PHONY: swagger-ui
swagger-ui: install
	$(BIN)/python tools/vendor_swagger_ui.py
