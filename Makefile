# PoundAdmin. `make run` serves the demo; `make test` runs the whole check.
PORT ?= 8000
# The seed reads it too: its documents' QR codes point at the port served on.
export PORT
PY := .venv/bin/python
DEV := DEBUG=true

.PHONY: run test test-quick lint format check messages clean bench load weight static api-schema

.venv/.stamp-run: requirements.lock
	scripts/bootstrap run

.venv/.stamp-dev: requirements-dev.lock requirements.lock
	scripts/bootstrap dev

run: .venv/.stamp-run
	$(DEV) $(PY) manage.py migrate --noinput -v0
	$(DEV) $(PY) manage.py seed_demo
	@echo "Serving PoundAdmin on http://127.0.0.1:$(PORT)/ (Ctrl-C stops it)"
	$(DEV) $(PY) manage.py runserver 127.0.0.1:$(PORT)

test: .venv/.stamp-dev
	scripts/test

# the whole check without the tests marked slow (browser, state machines, Schemathesis...).
test-quick: .venv/.stamp-dev
	scripts/test -m "not slow"

# the hooks of .pre-commit-config.yaml: ruff, djhtml, django-upgrade, lint-imports.
lint: .venv/.stamp-dev
	PRE_COMMIT_HOME=.venv/.pre-commit .venv/bin/pre-commit run --all-files

format: .venv/.stamp-dev
	.venv/bin/ruff check --fix .
	.venv/bin/ruff format .
	.venv/bin/djhtml --tabwidth 2 templates
	git ls-files -z '*.py' | xargs -0 .venv/bin/django-upgrade --target-version 6.1

check: .venv/.stamp-dev
	$(DEV) $(PY) manage.py check
	$(DEV) $(PY) manage.py makemigrations --check --dry-run

messages: .venv/.stamp-dev
	$(DEV) $(PY) manage.py makemessages -l hi --ignore=.venv --ignore="static/vendor/*" --ignore="tests/*" --no-obsolete
	$(DEV) $(PY) manage.py makemessages -d djangojs -l hi --ignore=.venv --ignore="static/vendor/*" --ignore="tests/*" --ignore="staticfiles/*" --no-obsolete
	$(DEV) $(PY) manage.py compilemessages --ignore=.venv

# the digest of the API's schema, for the latest entry of docs/api-changes.md.
api-schema: .venv/.stamp-dev
	@$(DEV) $(PY) -m tests.api.test_schema_guard

# every route a role reaches, at two data sizes (databases poundadmin_bench_N, built once and reused),
# at PostgreSQL's defaults and with deploy/postgresql/poundadmin.conf: `make bench SIZES="100000 1000000" RUNS=7`.
SIZES ?= 10000 100000
RUNS ?= 7
bench: .venv/.stamp-run
	$(PY) scripts/bench --sizes $(SIZES) --runs $(RUNS)
	$(PY) scripts/weight

# requests a second and p50/p99 of the register, the API's list and a trivial signed-in page under
# wrk, on the shipped gunicorn.conf.py (ADR 0067): `make load ENTRIES=100000`.
ENTRIES ?= 100000
load: .venv/.stamp-run
	$(PY) scripts/load --entries $(ENTRIES)

# the page weight of ADR 0037: first and repeat visits of three pages, as whitenoise serves them.
weight: .venv/.stamp-dev
	$(PY) scripts/weight

# the fonts and Bootstrap built from assets/ (offline); commit what it writes.
static: .venv/.stamp-run
	$(PY) scripts/build-static

clean:
	rm -rf .venv db.sqlite3 .test-db.sqlite3 staticfiles
