"""The field app's shell, manifest, worker and catalogues (ADR 0073): public, holding no record,
and what a browser needs to install the app and open it offline."""

import json
import re

from django.urls import reverse


def test_shell_is_public_and_names_its_manifest_and_worker(client):
    response = client.get(reverse("field_app"))
    assert response.status_code == 200
    page = response.content.decode()
    assert reverse("field_manifest") in page
    config = json.loads(re.search(r'id="field-config"[^>]*>(.*?)</script>', page).group(1))
    assert config["worker"] == reverse("field_worker")
    assert config["api"] == "/api/v1/"


def test_manifest_installs_a_standalone_app_scoped_to_field(client):
    response = client.get(reverse("field_manifest"))
    assert response["Content-Type"] == "application/manifest+json"
    manifest = response.json()
    assert manifest["start_url"] == manifest["scope"] == "/field/"
    assert manifest["display"] == "standalone"
    assert {"192x192", "512x512"} <= {icon["sizes"] for icon in manifest["icons"]}


def test_worker_covers_field_and_is_never_kept_by_the_http_cache(client):
    response = client.get(reverse("field_worker"))
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Service-Worker-Allowed"] == "/field/"
    assert response["Cache-Control"] == "no-cache"
    script = response.content.decode()
    assert "workbox-core.prod.js" in script and "outbox.js" in script
    precache = json.loads(script.split("precacheAndRoute(", 1)[1].split(");", 1)[0])
    urls = {entry["url"] for entry in precache}
    assert "/field/" in urls and all(entry["revision"] != "missing" for entry in precache)


def test_only_the_app_may_compile_the_scanners_webassembly_and_nothing_may_eval(client):
    app = client.get(reverse("field_app"))["Content-Security-Policy"]
    script_src = re.search(r"script-src ([^;]*)", app).group(1).split()
    assert "'wasm-unsafe-eval'" in script_src and "'unsafe-eval'" not in script_src
    assert (
        "wasm-unsafe-eval" not in client.get(reverse("field_manifest"))["Content-Security-Policy"]
    )
    assert "wasm-unsafe-eval" not in client.get("/accounts/login/")["Content-Security-Policy"]


def test_the_worker_keeps_the_scanner_it_does_not_precache(client):
    script = client.get(reverse("field_worker")).content.decode()
    precache = script.split("precacheAndRoute(", 1)[1].split(");", 1)[0]
    scanner = json.loads(script.split("const SCANNER = ", 1)[1].split(";", 1)[0])
    assert [url.rsplit("/", 1)[-1].split(".")[0] for url in scanner] == [
        "barcode-detector",
        "zxing_reader",
    ]
    assert not any(url in precache for url in scanner)
    config = json.loads(
        re.search(
            r'id="field-config"[^>]*>(.*?)</script>',
            client.get(reverse("field_app")).content.decode(),
        ).group(1)
    )
    assert sorted(config["scanner"].values()) == sorted(scanner)


def test_catalogue_of_each_language_by_its_url(client):
    english = client.get(reverse("field_catalogue", args=["en"]))
    hindi = client.get(reverse("field_catalogue", args=["hi"]))
    assert english.status_code == hindi.status_code == 200
    assert json.dumps("सुधार चाहिए")[1:-1] in hindi.content.decode()
    assert "\\u0938" not in english.content.decode()


def test_catalogue_of_an_unknown_language_is_not_found(client):
    assert client.get(reverse("field_catalogue", args=["xx"])).status_code == 404


def test_the_menu_offers_the_field_app_to_whoever_records_arrivals(client, pound_keeper, auditor):
    client.force_login(pound_keeper)
    assert reverse("field_app") in [i["url"] for i in client.get("/").context["nav_items"]]
    client.force_login(auditor)
    assert reverse("field_app") not in [i["url"] for i in client.get("/").context["nav_items"]]


def _pair(client, user):
    client.force_login(user)
    return client.post(
        reverse("accounts:pair_device"),
        {"label": "Pound phone", "idempotency_key": "0c5e4a52-1f1b-4a4e-9d7e-6a2b0b8c9d10"},
    )


def _device(page):
    found = re.search(r'id="device-token"[^>]*>(.*?)</script>', page.content.decode())
    return json.loads(found.group(1)) if found else None


def test_pairing_hands_the_phone_a_device_token_for_the_app(client, pound_keeper, pound):
    from accounts.services import live_api_token

    page = _pair(client, pound_keeper)
    device = _device(page)

    assert device["api"] == "/api/v1/" and device["pound"] == pound.pk
    assert live_api_token(device["token"]).user == pound_keeper
    assert live_api_token(device["token"]).kind == "device"
    assert 'id="open-field-app"' in page.content.decode()
    # The same form again: its secret was shown once, so nothing pairs a second phone with it.
    assert _pair(client, pound_keeper).status_code == 302


def test_no_pairing_for_whoever_records_no_arrivals(client, auditor):
    assert _device(_pair(client, auditor)) is None


def test_the_app_sends_an_unpaired_phone_to_the_pairing_page(client):
    page = client.get(reverse("field_app")).content.decode()
    config = json.loads(re.search(r'id="field-config"[^>]*>(.*?)</script>', page).group(1))
    assert config["pair"] == reverse("accounts:pair_device")
