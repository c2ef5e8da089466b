"""The Python example of docs/api.md, run as it is written, in its own process, against a live
server with a real token: a seizure entered and an animal released on payment, end to end. The
example cannot rot: change the API and this fails until the guide follows."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from accounts.services import create_api_token
from impounding.models import AnimalState, Impoundment, Receipt

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "api.md"
MARK = "# example: seizure and release on payment"

# The other process keeps the real clock, and the server must agree with it on "now".
pytestmark = pytest.mark.real_clock


def example():
    blocks = re.findall(r"^```python\n(.*?)^```$", GUIDE.read_text(), re.S | re.M)
    found = [b for b in blocks if b.startswith(MARK)]
    assert len(found) == 1, f"docs/api.md has no one block starting {MARK!r}"
    return found[0]


def test_example_enters_a_seizure_and_releases_on_payment(live_server, pound_keeper, tariffs):
    _token, secret = create_api_token(user=pound_keeper, name="docs example")
    env = {
        "PATH": os.environ.get("PATH", ""),
        "POUNDADMIN_URL": live_server.url,
        "POUNDADMIN_TOKEN": secret,
        "NO_PROXY": "*",
    }
    run = subprocess.run(
        [sys.executable, "-c", example()],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert run.returncode == 0, run.stdout + run.stderr
    entry = Impoundment.objects.get()
    receipt = Receipt.objects.get()
    assert f"Entered {entry.register_number}" in run.stdout
    assert "Dues now:" in run.stdout  # the first offer was refused, with the dues
    assert f"Receipt {receipt.number} for {receipt.amount}" in run.stdout
    assert f"/verify/{receipt.document.token}/" in run.stdout
    states = dict(entry.animals.values_list("species", "state"))
    assert states == {"cattle": AnimalState.RELEASED_PAID, "goat": AnimalState.IMPOUNDED}
