"""The rules that live on the office's models, asked alike by the services, the pages and the API:
another person confirms a remittance or decides a claim than the one who sent or prepared it, and
a surplus is claimable while held, within its three months, and with no claim awaiting decision."""

from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import prefetch_related_objects
from django.urls import reverse
from django.utils import timezone

from office import services as office
from office.models import Remittance, SurplusClaim, SurplusDeposit
from tests.auctions.factories import conditions
from tests.office.factories import claim, fines_collected, received_surplus, remit

REMITTANCE_REFUSAL = "You sent this remittance: another person confirms it."
CLAIM_REFUSAL = "You prepared this claim: another person decides it."


# --- Whoever sent or prepared it does not confirm or decide it ----------------------------------


@pytest.mark.parametrize(
    ("record", "maker", "refusal"),
    [(Remittance, "sent_by", REMITTANCE_REFUSAL), (SurplusClaim, "prepared_by", CLAIM_REFUSAL)],
)
def test_a_record_may_be_decided_by_anyone_but_its_maker(
    dm_clerk, magistrate, record, maker, refusal
):
    made = record(**{maker: dm_clerk})

    assert not made.may_be_decided_by(dm_clerk)
    assert made.may_be_decided_by(magistrate)
    made.check_decider(magistrate)
    with pytest.raises(PermissionDenied) as refused:
        made.check_decider(dm_clerk)
    assert str(refused.value) == refusal


def test_the_office_refuses_the_sender_in_the_words_of_the_screen(
    pound, pound_keeper, dm_clerk, tariffs
):
    fines_collected(pound, pound_keeper)
    sent = remit(pound, dm_clerk, "15000.00", authority="DM order 7/2026 of 1 Dec 2026")

    with pytest.raises(PermissionDenied) as refused:
        office.confirm_remittance(remittance=sent, by=dm_clerk)

    assert str(refused.value) == REMITTANCE_REFUSAL


@pytest.fixture
def held(pound, district, pound_keeper, police_officer, dm_clerk, tariffs):
    conditions(district)
    return received_surplus(pound, pound_keeper, police_officer, dm_clerk)


@pytest.fixture
def claimed_by_the_magistrate(held, magistrate):
    return claim(held, magistrate)


def test_the_magistrate_may_not_decide_a_claim_he_recorded(claimed_by_the_magistrate, magistrate):
    with pytest.raises(PermissionDenied) as refused:
        office.decide_surplus_claim(
            claim=claimed_by_the_magistrate, by=magistrate, allow=False, decision="Not proved"
        )

    assert str(refused.value) == CLAIM_REFUSAL
    claimed_by_the_magistrate.refresh_from_db()
    assert claimed_by_the_magistrate.status == SurplusClaim.Status.PENDING


def test_the_claim_page_refuses_the_magistrate_who_recorded_it(
    client, claimed_by_the_magistrate, magistrate
):
    client.force_login(magistrate)
    url = reverse("office:claim_decide", kwargs={"pk": claimed_by_the_magistrate.pk})

    assert client.get(url).status_code == 403
    assert client.post(url, {"allow": "", "decision": "Not proved"}).status_code == 403
    claimed_by_the_magistrate.refresh_from_db()
    assert claimed_by_the_magistrate.status == SurplusClaim.Status.PENDING


# --- A surplus is claimable while held, within its three months, one claim at a time -----------


def test_a_held_surplus_is_claimable_from_the_sale_to_its_last_day(held):
    today = timezone.localdate()

    assert held.claimable_on(today)
    assert held.claimable_on(held.expires_on)
    assert not held.claimable_on(held.expires_on + timedelta(days=1))
    assert not held.claimable_on(held.sale_date - timedelta(days=1))


@pytest.mark.parametrize(
    ("filed", "reason"),
    [
        (lambda held, today: today + timedelta(days=1), "within the three months"),
        (lambda held, today: held.expires_on + timedelta(days=1), "within the three months"),
        (lambda held, today: held.sale_date - timedelta(days=1), "between the sale and today"),
    ],
)
def test_a_claim_is_refused_a_day_outside_the_three_months(held, filed, reason):
    today = timezone.localdate()

    with pytest.raises(ValidationError, match=reason) as refused:
        held.check_claim(filed(held, today), today=today)

    assert list(refused.value.message_dict) == ["filed_on"]


def test_a_surplus_not_yet_held_is_not_claimable(held):
    held.status = SurplusDeposit.Status.AWAITING_RECEIPT

    assert not held.claimable_on(timezone.localdate())
    with pytest.raises(ValidationError, match="Only a surplus held in deposit"):
        held.check_claim(timezone.localdate(), today=timezone.localdate())


def test_a_claim_awaiting_decision_stops_another(held, dm_clerk):
    claim(held, dm_clerk)
    held = SurplusDeposit.objects.get(pk=held.pk)

    assert not held.claimable_on(timezone.localdate())
    with pytest.raises(ValidationError, match="already awaiting decision"):
        claim(held, dm_clerk)


def test_the_rule_reads_prefetched_claims_without_asking_again(
    held, dm_clerk, django_assert_num_queries
):
    claim(held, dm_clerk)
    held = SurplusDeposit.objects.get(pk=held.pk)
    prefetch_related_objects([held], "claims")

    with django_assert_num_queries(0):
        assert not held.claimable_on(timezone.localdate())


def test_the_register_offers_a_claim_when_the_rule_allows_one(client, held, dm_clerk):
    client.force_login(dm_clerk)
    url = reverse("office:surplus")

    assert client.get(url).context["held"][0].can_claim
    claim(held, dm_clerk)
    assert not client.get(url).context["held"][0].can_claim
