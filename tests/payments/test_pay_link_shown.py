"""The owner's pay page (docs/decisions/0085) where the keeper and the owner meet: on the
keeper's entry page, to read out or scan, and printed short under the UPI code of the 80 mm
demand slip, in both its languages with no missing glyph, the slip no wider. A payment being
confirmed reads on the entry page as on the owner's page, never as unpaid."""

import pytest
from django.urls import reverse

from impounding import documents
from payments.models import PayLink, PaymentState
from payments.owner import short_link
from tests import readpdf
from tests.impounding.test_documents import _is_roll, _keep
from tests.payments.helpers import start


@pytest.fixture
def vpa(pound):
    district = pound.district
    district.upi_vpa, district.upi_payee_name = "dm.lucknow@sbi", "District Magistrate Lucknow"
    district.save(update_fields=["upi_vpa", "upi_payee_name"])


def test_the_entry_page_shows_the_owner_s_pay_link(client, entry, pound_keeper, vpa):
    client.force_login(pound_keeper)
    page = client.get(reverse("impounding:entry", args=[entry.pk])).text
    link = PayLink.objects.get(impoundment=entry)
    url = short_link(entry)
    assert url.endswith(f"/p/{link.token}") and f'href="{url}"' in page
    assert 'data-testid="pay-link"' in page and "pay page" in page


@pytest.mark.parametrize("with_vpa", [True, False])
def test_the_roll_slip_prints_the_pay_link_in_both_languages(entry, pound, with_vpa):
    if with_vpa:
        district = pound.district
        district.upi_vpa, district.upi_payee_name = "dm.lucknow@sbi", "DM Lucknow"
        district.save(update_fields=["upi_vpa", "upi_payee_name"])
    pdf = documents.dues_statement(entry, paper="roll80")
    _keep(f"dues_statement_paylink_{with_vpa}.pdf", pdf)
    _is_roll(pdf)
    text = "".join(readpdf.text(pdf).split())
    assert short_link(entry).replace("/", "") in text.replace("/", "")
    assert "Payonline/" in text and "भुगतान" in text  # (shaped Devanagari reads back broken)
    assert readpdf.missing_glyphs(pdf) == {}


def test_a_payment_being_confirmed_is_never_unpaid_on_the_entry_page(
    client, entry, pound_keeper, fake_gateway
):
    payment, _order = start(entry, pound_keeper)
    payment.state = PaymentState.UNKNOWN
    payment.save(update_fields=["state"])
    client.force_login(pound_keeper)
    page = client.get(reverse("impounding:entry", args=[entry.pk])).text
    assert "Payment being confirmed" in page
    assert "unpaid" not in page.lower() and "Payment in progress" not in page
