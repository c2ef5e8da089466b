"""The OpenAPI schema does not change without a note in docs/api-changes.md: the latest entry there
ends with the digest of the schema it describes. `make api-schema` prints the current digest.

The digest is of the canonical JSON: keys sorted, no spaces, in English, as /api/v1/openapi.json
serves it (paths are relative to the site, so no host or port is in it)."""

import hashlib
import json
import re
from pathlib import Path

from django.utils import translation

CHANGES = Path(__file__).resolve().parents[2] / "docs" / "api-changes.md"
SCHEMA_LINE = re.compile(r"^Schema: sha256 ([0-9a-f]{64})$", re.MULTILINE)


def canonical(schema):
    return json.dumps(schema, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest():
    from api.urls import api  # after django.setup() when run as a script

    with translation.override("en"):
        schema = api.get_openapi_schema()
    return hashlib.sha256(canonical(schema).encode()).hexdigest()


def noted_digest():
    found = SCHEMA_LINE.search(CHANGES.read_text(encoding="utf-8"))
    return found.group(1) if found else None


def test_the_schema_served_is_the_one_digested(client):
    served = client.get("/api/v1/openapi.json", HTTP_ACCEPT_LANGUAGE="en")
    assert served.status_code == 200
    assert hashlib.sha256(canonical(served.json()).encode()).hexdigest() == digest()


def test_the_schema_has_a_note_in_api_changes():
    current, noted = digest(), noted_digest()
    assert current == noted, (
        f"The OpenAPI schema changed: its digest is {current}, but the latest entry of "
        f"docs/api-changes.md names {noted}. Add an entry to docs/api-changes.md (newest first) "
        "saying what changed for a client (operations, fields, status codes) and whether it is "
        "compatible (version 1) or not (a new version), and end it with the line\n"
        f"Schema: sha256 {current}\n(`make api-schema` prints it.)"
    )


def test_any_change_changes_the_digest(monkeypatch):
    from api.urls import api

    before = digest()
    monkeypatch.setattr(api, "description", api.description + " ")
    assert digest() != before


if __name__ == "__main__":
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "poundadmin.settings")
    django.setup()
    print(f"Schema: sha256 {digest()}")
