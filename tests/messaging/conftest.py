import importlib

import pytest
from django.apps import apps

from messaging import channels
from messaging.models import Template

from .fakegateways import ENTITY, PIN, SECURE_KEY, SENDER, USERNAME, FakeMobileSeva, FakeNic


def register_all():
    """Every template given a DLT id, as a State does once the operator approves them (the
    ids are this test's own; the product never invents one)."""
    for n, template in enumerate(Template.objects.order_by("pk"), start=1):
        template.dlt_template_id = f"11071{n:014d}"
        template.save(update_fields=["dlt_template_id"])
    return {t.dlt_template_id: t.text for t in Template.objects.all()}


def configure(settings, channel, url):
    settings.MESSAGING_CHANNEL = channel
    settings.MESSAGING_GATEWAY_URL = url
    settings.MESSAGING_USERNAME, settings.MESSAGING_PIN = USERNAME, PIN
    settings.MESSAGING_SECURE_KEY, settings.MESSAGING_SENDER = SECURE_KEY, SENDER
    settings.MESSAGING_DLT_ENTITY_ID = ENTITY
    settings.MESSAGING_TIMEOUT_SECONDS = 2


@pytest.fixture
def nic(settings):
    with FakeNic(register_all()) as gateway:
        configure(settings, "nic", gateway.url)
        yield gateway


@pytest.fixture
def mobileseva(settings):
    with FakeMobileSeva(register_all()) as gateway:
        configure(settings, "mobileseva", gateway.url)
        yield gateway


@pytest.fixture(autouse=True)
def seeded_templates():
    """The templates the data migration seeds, again if a transactional test flushed them."""
    for name in (
        "0002_seed_templates",
        "0003_lost_match_templates",
        "0004_dlr_reports_and_opt_out_codes",
    ):
        importlib.import_module(f"messaging.migrations.{name}").seed(apps, None)
    importlib.import_module("messaging.migrations.0005_pay_link_in_messages").add_link(apps, None)


@pytest.fixture(autouse=True)
def console_outbox():
    channels.console_outbox.clear()
    yield channels.console_outbox
    channels.console_outbox.clear()
