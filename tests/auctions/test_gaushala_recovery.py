"""Upkeep paid for days after a death or a transfer out (ADR 0070, "Upkeep over-paid"): the
over-payment is flagged against the claim that paid it, at that claim's rate, reversed into a
receivable, and deducted from the body's next claims as a line of its own, carrying what a claim
cannot absorb; `check_ledger` stays green throughout."""

# ruff: noqa: F811  (the `body` fixture is imported from the handover tests)

import uuid
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
import time_machine
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import translation

from accounts.roles import Role
from auctions.models import Handover, UpkeepClaim, UpkeepOverpayment, UpkeepRecovery
from auctions.services import gaushala as gaushalas
from auctions.services import gaushala_holding as holding
from auctions.services import gaushala_recovery as recovery
from kernel.models import Event
from ledger import services as ledger
from ledger.checks import run_checks
from ledger.models import AccountKind, Transaction
from tests.accounts.factories import staff
from tests.auctions.factories import conditions, ready_for_sale
from tests.auctions.test_gaushala import BODY, body, hand_over  # noqa: F401
from tests.impounding.factories import cow
from tests.rulepacks.factories import take

NOW = datetime(2027, 6, 15, 6, 0, tzinfo=UTC)
RATE = BODY["agreed_daily_rate"]
JAN, FEB, MAR, APR, MAY = (date(2027, m, 1) for m in range(1, 6))


@pytest.fixture
def herd(district, pound, pound_keeper, police_officer, tariffs, body, dm_clerk, magistrate):  # noqa: F811
    """Two cows handed to `body` on 1 January 2027; the clock stands at 15 June 2027."""
    take(district, "up")
    conditions(district)
    entry, _notice = ready_for_sale(
        pound=pound, keeper=pound_keeper, officer=police_officer, animals=[cow(), cow()]
    )
    order = hand_over(pound, entry, body, dm_clerk, magistrate)
    Handover.objects.filter(pk=order.handover.pk).update(received_on=JAN)
    order.handover.refresh_from_db()
    with time_machine.travel(NOW):
        yield order.handover, list(order.animals.order_by("pk"))


def claim_for(body, month, clerk, magistrate, *, pay=True):  # noqa: F811
    claim = gaushalas.prepare_claim(
        gaushala=body,
        month=month,
        animal_days_claimed=holding.animal_days(body, month),
        by=clerk,
        idempotency_key=uuid.uuid4(),
    )
    gaushalas.decide_claim(claim=claim, by=magistrate, approve=True)
    if pay:
        gaushalas.pay_claim(
            claim=claim, by=clerk, payment_mode="other", payment_reference=f"NEFT {month:%m}"
        )
    claim.refresh_from_db()
    return claim


def died(handover, animal, on, clerk, **kw):
    return holding.record_end(
        handover=handover,
        animal_id=animal.pk,
        kind="died",
        on=on,
        cause="old age",
        reference="GS/12/2027",
        by=clerk,
        idempotency_key=kw.pop("key", None) or uuid.uuid4(),
        **kw,
    )


def balance(district, kind):
    return ledger.account(district=district, kind=kind).balance()


def test_a_death_on_the_tenth_after_the_month_was_paid_is_deducted_from_the_next_claim(
    herd, body, district, dm_clerk, magistrate
):
    handover, cows = herd
    jan = claim_for(body, JAN, dm_clerk, magistrate)
    assert jan.amount == RATE * 62

    end = died(handover, cows[0], date(2027, 1, 10), dm_clerk)

    over = UpkeepOverpayment.objects.get()
    assert (over.claim, over.end, over.days, over.rate) == (jan, end, 22, RATE)
    assert over.amount == RATE * 22 == Decimal("1100.00")
    assert over.recorded_by == dm_clerk and over.section == "s.14" and over.rule_pack == "up 0.1"
    event = Event.objects.get(action="upkeep.overpaid")
    assert event.data["days"] == 22 and event.by == dm_clerk
    assert balance(district, AccountKind.UPKEEP_RECOVERABLE) == Decimal("1100.00")
    assert run_checks() == []

    feb = claim_for(body, FEB, dm_clerk, magistrate)

    assert feb.animal_days == 28 and feb.amount == RATE * 28
    assert feb.deduction == Decimal("1100.00") and feb.net == RATE * 28 - Decimal("1100.00")
    approval = Transaction.objects.get(kind="upkeep_claimed", source__endswith=f":{feb.pk}")
    lines = {p.account.kind: p.amount for p in approval.postings.select_related("account")}
    assert lines == {
        AccountKind.UPKEEP_EXPENSE: feb.amount,
        AccountKind.UPKEEP_PAYABLE: -feb.net,
        AccountKind.UPKEEP_RECOVERABLE: -feb.deduction,
    }
    assert balance(district, AccountKind.UPKEEP_RECOVERABLE) == 0
    assert list(recovery.open_overpayments([body.pk])) == []
    assert run_checks() == []


def test_two_deaths_across_two_months(herd, body, district, dm_clerk, magistrate):
    handover, cows = herd
    claim_for(body, JAN, dm_clerk, magistrate)
    feb = claim_for(body, FEB, dm_clerk, magistrate, pay=False)  # approved, not yet paid

    died(handover, cows[0], date(2027, 1, 10), dm_clerk)  # paid 22 days of January, all February
    died(handover, cows[1], date(2027, 2, 5), dm_clerk)  # paid 24 days of February

    flagged = {(o.claim.month, o.end.animal_id): o.days for o in UpkeepOverpayment.objects.all()}
    assert flagged == {(JAN, cows[0].pk): 22, (FEB, cows[0].pk): 28, (FEB, cows[1].pk): 24}
    assert balance(district, AccountKind.UPKEEP_RECOVERABLE) == RATE * 74
    assert run_checks() == []
    # The approved claim is paid as approved: nothing posted is edited.
    gaushalas.pay_claim(claim=feb, by=dm_clerk, payment_mode="other", payment_reference="N")
    assert run_checks() == []
    # No animal left, so no further claim: the receivable stays open.
    opened = list(recovery.open_overpayments([body.pk]))
    assert sum(o.left for o in opened) == RATE * 74


def test_a_recovery_larger_than_the_next_claim_carries_its_remainder(
    herd, body, district, dm_clerk, magistrate
):
    handover, cows = herd
    for month in (JAN, FEB, MAR):
        claim_for(body, month, dm_clerk, magistrate)
    died(handover, cows[0], date(2027, 1, 10), dm_clerk)  # 22 + 28 + 31 days: ₹4,050
    assert balance(district, AccountKind.UPKEEP_RECOVERABLE) == Decimal("4050.00")

    apr = claim_for(body, APR, dm_clerk, magistrate, pay=False)
    assert apr.amount == apr.deduction == Decimal("1500.00") and apr.net == 0
    with pytest.raises(ValidationError, match="Nothing is payable"):
        gaushalas.pay_claim(claim=apr, by=dm_clerk, payment_mode="other", payment_reference="N")
    may = claim_for(body, MAY, dm_clerk, magistrate, pay=False)
    assert may.deduction == may.amount == Decimal("1550.00")

    assert balance(district, AccountKind.UPKEEP_RECOVERABLE) == Decimal("1000.00")
    assert sum(o.left for o in recovery.open_overpayments([body.pk])) == Decimal("1000.00")
    assert run_checks() == []


def test_a_refused_claim_gives_its_deduction_back_to_the_next(
    herd, body, district, dm_clerk, magistrate
):
    handover, cows = herd
    claim_for(body, JAN, dm_clerk, magistrate)
    died(handover, cows[0], date(2027, 1, 10), dm_clerk)
    feb = gaushalas.prepare_claim(gaushala=body, month=FEB, animal_days_claimed=28, by=dm_clerk)
    assert feb.deduction == Decimal("1100.00")
    gaushalas.decide_claim(claim=feb, by=magistrate, approve=False)

    again = claim_for(body, FEB, dm_clerk, magistrate)
    assert again.deduction == Decimal("1100.00")
    assert UpkeepRecovery.objects.filter(claim=again).count() == 1
    assert run_checks() == []


def test_recording_the_same_death_twice_deducts_once(herd, body, dm_clerk, magistrate):
    handover, cows = herd
    claim_for(body, JAN, dm_clerk, magistrate)
    key = uuid.uuid4()
    first = died(handover, cows[0], date(2027, 1, 10), dm_clerk, key=key)
    assert died(handover, cows[0], date(2027, 1, 10), dm_clerk, key=key) == first
    with pytest.raises(ValidationError, match="already recorded"):
        died(handover, cows[0], date(2027, 1, 12), dm_clerk)
    assert UpkeepOverpayment.objects.get().days == 22
    feb = claim_for(body, FEB, dm_clerk, magistrate)
    assert feb.deduction == Decimal("1100.00")
    assert run_checks() == []


def test_a_late_death_in_a_month_not_yet_claimed_only_lowers_its_days(
    herd, body, dm_clerk, magistrate
):
    handover, cows = herd
    died(handover, cows[0], date(2027, 1, 10), dm_clerk)

    jan = claim_for(body, JAN, dm_clerk, magistrate)

    assert jan.held_days == 31 + 9 and jan.deduction == 0
    assert not UpkeepOverpayment.objects.exists()


def test_a_death_recorded_while_the_claim_awaits_approval_stops_the_approval(
    herd, body, dm_clerk, magistrate
):
    handover, cows = herd
    jan = gaushalas.prepare_claim(gaushala=body, month=JAN, animal_days_claimed=62, by=dm_clerk)
    died(handover, cows[0], date(2027, 1, 10), dm_clerk)
    with pytest.raises(ValidationError, match="prepare it again"):
        gaushalas.decide_claim(claim=jan, by=magistrate, approve=True)
    assert not UpkeepOverpayment.objects.exists()


def test_a_transfer_out_after_a_paid_month_is_recovered_from_the_sender(
    herd, body, district, dm_clerk, magistrate
):
    handover, cows = herd
    other = gaushalas.register_gaushala(
        district=district,
        by=dm_clerk,
        **{**BODY, "name": "Kamdhenu Gaushala", "registration": "UP/GS/2020/0007"},
    )
    claim_for(body, JAN, dm_clerk, magistrate)
    holding.record_end(
        handover=handover,
        animal_id=cows[0].pk,
        kind="transferred",
        on=date(2027, 1, 21),
        reference="DM order 7/2027",
        to_gaushala_id=other.pk,
        by=dm_clerk,
    )
    over = UpkeepOverpayment.objects.get()
    assert (over.gaushala, over.days) == (body, 11)
    assert UpkeepClaim.objects.filter(gaushala=other).count() == 0


def _deducted(herd, body, dm_clerk, magistrate):  # noqa: F811
    handover, cows = herd
    claim_for(body, JAN, dm_clerk, magistrate)
    died(handover, cows[0], date(2027, 1, 10), dm_clerk)
    return gaushalas.prepare_claim(gaushala=body, month=FEB, animal_days_claimed=28, by=dm_clerk)


def test_the_claim_and_the_bodys_page_show_the_over_payment_and_the_deduction(
    client, herd, body, dm_clerk, magistrate
):
    handover, cows = herd
    claim_for(body, JAN, dm_clerk, magistrate)
    died(handover, cows[0], date(2027, 1, 10), dm_clerk)
    client.force_login(dm_clerk)
    page = client.get(reverse("auctions:gaushala_animals"), {"body": body.pk}).content.decode()
    assert "Upkeep over-paid, to recover" in page and "₹1,100.00 / ₹1,100.00" in page
    listed = client.get(reverse("auctions:upkeep_claims")).content.decode()
    assert "Over-paid after a death or transfer" in listed

    feb = gaushalas.prepare_claim(gaushala=body, month=FEB, animal_days_claimed=28, by=dm_clerk)
    listed = client.get(reverse("auctions:upkeep_claims")).content.decode()
    assert "Less upkeep over-paid before" in listed and "₹300.00" in listed  # 1,400 − 1,100
    client.force_login(magistrate)
    page = client.get(reverse("auctions:upkeep_claim_decide", args=[feb.pk])).content.decode()
    assert "Upkeep over-paid before, deducted here" in page and "− ₹1,100.00" in page
    assert "UPK/" in page and "Net payable" in page
    client.force_login(dm_clerk)
    page = client.get(reverse("auctions:gaushala_animals"), {"body": body.pk}).content.decode()
    assert "Upkeep over-paid, to recover" not in page  # wholly taken by the claim


def test_another_districts_office_sees_none_of_it(
    client, herd, body, other_district, dm_clerk, magistrate
):  # noqa: F811, E501
    feb = _deducted(herd, body, dm_clerk, magistrate)
    client.force_login(staff(Role.MAGISTRATE, district=other_district))
    assert client.get(reverse("auctions:upkeep_claim_decide", args=[feb.pk])).status_code == 404
    assert client.get(reverse("auctions:gaushala_animals"), {"body": body.pk}).status_code == 404
    client.force_login(staff(Role.DM_CLERK, district=other_district))
    page = client.get(reverse("auctions:gaushala_animals")).content.decode()
    assert "UPK/" not in page


@pytest.mark.parametrize("lang", ["hi", "mr", "ta"])
def test_the_deduction_is_shown_in_each_language(client, lang, herd, body, dm_clerk, magistrate):
    feb = _deducted(herd, body, dm_clerk, magistrate)
    client.force_login(magistrate)
    client.cookies["django_language"] = lang
    with translation.override(lang):  # the request leaves its language active: restore it
        page = client.get(reverse("auctions:upkeep_claim_decide", args=[feb.pk]))
        page = page.content.decode()
        for text in ("Less upkeep over-paid before", "Net payable"):
            assert translation.gettext(text) != text
            assert translation.gettext(text) in page
