"""kernel.refs: one key per model, the stored aliases of moved models, one query per model."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Pound
from auctions.models import Sale
from kernel import refs
from office.models import Remittance, SurplusDeposit

pytestmark = pytest.mark.django_db


def test_a_model_is_named_by_its_label_and_a_moved_one_by_its_first_key():
    assert refs.key(Sale) == "auctions.sale"
    assert refs.key(Remittance) == "ledger.remittance"
    assert refs.key(SurplusDeposit) == "ledger.surplusdeposit"
    assert refs.model_of("ledger.surplusdeposit") is SurplusDeposit
    assert refs.model_of("auctions.sale") is Sale


def test_a_reference_parses_and_a_malformed_one_is_none():
    assert refs.parse("impounding.release:42") == ("impounding.release", 42)
    assert refs.parse("impounding.release:") is None
    assert refs.parse("opening balance") is None


def test_resolve_reads_each_model_once(pound, other_pound):
    references = [refs.ref(pound), refs.ref(other_pound), "accounts.pound:999999", "nobody.x:1"]
    with CaptureQueriesContext(connection) as queries:
        found = refs.resolve(references)
    assert found == {refs.ref(pound): pound, refs.ref(other_pound): other_pound}
    assert len(queries) == 1
    assert isinstance(found[refs.ref(pound)], Pound)
