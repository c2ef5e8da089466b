"""The repeat-seizure history of a tag, a phone or an owner, and the rule pack's repeat fine
(ADR 0078)."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.roles import Role
from impounding.dues import dues
from impounding.repeats import LIMIT, history
from rulepacks import services as rulepacks
from rulepacks.models import DistrictRulePack, RulePack
from tests.accounts.factories import DistrictFactory, PoundFactory, StateFactory, staff
from tests.impounding.factories import cow, make_entry, set_tariffs

TAG = "123456789010"


@pytest.fixture
def far_pound():
    """A pound of a district in another State."""
    return PoundFactory(
        district=DistrictFactory(state=StateFactory(code="mh", name="Maharashtra"), code="far")
    )


def _seize(pound, n=1, **kw):
    keeper = staff(Role.POUND_KEEPER, pound=pound)
    return [make_entry(pound=pound, by=keeper, animals=[cow(ear_tag=TAG)], **kw) for _ in range(n)]


def test_history_counts_the_district_then_the_state_and_no_other_state(
    pound, other_pound, far_pound, pound_keeper, tariffs
):
    home = _seize(pound, 2)
    _seize(other_pound, 3, owner_phone="9876543210")
    _seize(far_pound, 4)
    (tag,) = history(district=pound.district, tags=[TAG])
    assert [e.pk for e in tag.entries] == [e.pk for e in reversed(home)]
    assert tag.elsewhere == 3  # the other district of the State; never the other State's
    (phone,) = history(district=pound.district, phone="9876543210")
    assert (phone.entries, phone.elsewhere, phone.values) == ([], 3, ["******3210"])


def test_history_is_capped(pound, pound_keeper, tariffs):
    _seize(pound, LIMIT + 2)
    (tag,) = history(district=pound.district, tags=[TAG])
    assert len(tag.entries) == LIMIT and tag.more_here


def test_the_entry_page_shows_the_district_and_only_a_count_of_the_state(
    client, pound, other_pound, pound_keeper, tariffs
):
    earlier = _seize(pound)[0]
    (elsewhere,) = _seize(other_pound, owner_name="Kallu Ram")
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(ear_tag=TAG)])
    client.force_login(pound_keeper)
    body = client.get(entry.get_absolute_url()).content.decode()
    assert "Seized before" in body
    assert earlier.register_number in body and earlier.get_absolute_url() in body
    assert "1 entry in the State's other districts" in body
    # Nothing of the other district's record but the count; and opening it is a 404.
    assert elsewhere.register_number not in body and "Kallu Ram" not in body
    assert client.get(elsewhere.get_absolute_url()).status_code == 404


def test_the_check_page_shows_the_history(client, pound, pound_keeper, tariffs):
    from tests.impounding.test_views_register import entry_post

    earlier = _seize(pound)[0]
    client.force_login(pound_keeper)
    data = entry_post(pound, **{"animals-0-ear_tag": TAG})
    del data["confirm"]
    body = client.post(reverse("impounding:entry_new"), data).content.decode()
    assert "Seized before" in body and earlier.register_number in body


def test_the_entry_pages_queries_do_not_grow_with_the_history(
    client, pound, other_pound, pound_keeper, tariffs
):
    _seize(pound)
    _seize(other_pound)
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(ear_tag=TAG)])
    client.force_login(pound_keeper)
    client.get(entry.get_absolute_url())
    with CaptureQueriesContext(connection) as few:
        client.get(entry.get_absolute_url())
    _seize(pound, 8)
    _seize(other_pound, 8)
    entry.arrived_at = timezone.now()
    entry.save(update_fields=["arrived_at"])
    with CaptureQueriesContext(connection) as many:
        client.get(entry.get_absolute_url())
    assert len(many) == len(few)


def test_intake_counts_the_tags_earlier_seizures_in_the_state(
    pound, other_pound, far_pound, pound_keeper, tariffs
):
    _seize(other_pound, 2)
    _seize(far_pound)
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(ear_tag=TAG), cow()])
    assert [a.prior_seizures for a in entry.animals.order_by("number")] == [2, 0]


def _repeat_pack(district, amount="1000.00"):
    """A pack like the central one whose fines fine a repeat seizure of cattle apart: the
    shipped packs have none (a figure no published source gives is not invented)."""
    central = RulePack.objects.get(pk=rulepacks.pack_of(None).id)
    rules = dict(central.rules, code="repeat", version="1.0")
    row = {"species": "cattle", "age_class": None, "area": None, "repeat": True}
    rules["fines"] = dict(rules["fines"], rows=[row | {"amount": amount}])
    pack = RulePack.objects.create(
        code="repeat",
        version="1.0",
        title="Repeat fine (test)",
        verified=False,
        effective_from=central.effective_from,
        rules=rules,
        digest="1" * 64,
    )
    DistrictRulePack.objects.update_or_create(
        district=district, defaults={"pack": pack, "chosen_at": timezone.now()}
    )
    return pack


def _fine(entry):
    return dues(entry.animals.order_by("number")).lines[0].fine


def test_the_packs_repeat_fine_applies_to_a_tag_seized_before(
    pound, district, pound_keeper, tariffs
):
    _repeat_pack(district)
    first = make_entry(pound=pound, by=pound_keeper, animals=[cow(ear_tag=TAG)])
    ordinary = _fine(first)
    again = make_entry(pound=pound, by=pound_keeper, animals=[cow(ear_tag=TAG), cow()])
    statement = dues(again.animals.order_by("number"))
    assert [line.fine for line in statement.lines] == [Decimal("1000.00"), ordinary]
    assert "repeat seizure" in statement.lines[0].note


def test_without_a_repeat_fine_in_the_pack_a_repeat_seizure_pays_the_scales_fine(
    pound, pound_keeper, tariffs
):
    first = make_entry(pound=pound, by=pound_keeper, animals=[cow(ear_tag=TAG)])
    again = make_entry(pound=pound, by=pound_keeper, animals=[cow(ear_tag=TAG)])
    assert again.animals.get().prior_seizures == 1
    assert _fine(again) == _fine(first)  # the central pack: no figure invented


def test_history_of_an_owner_reads_no_other_state(far_pound, pound):
    set_tariffs(far_pound.district)
    _seize(far_pound, owner_name="Kallu Ram")
    assert history(district=pound.district, owner_name="Kallu Ram") == []


def test_the_check_pages_queries_do_not_grow_with_the_history(
    client, pound, other_pound, pound_keeper, tariffs
):
    from tests.impounding.test_views_register import entry_post

    _seize(pound)
    _seize(other_pound)
    client.force_login(pound_keeper)
    data = entry_post(pound, **{"animals-0-ear_tag": TAG}, owner_phone="9876543210")
    del data["confirm"]
    client.post(reverse("impounding:entry_new"), data)
    with CaptureQueriesContext(connection) as few:
        client.post(reverse("impounding:entry_new"), data)
    _seize(pound, 8, owner_phone="9876543210")
    _seize(other_pound, 8)
    with CaptureQueriesContext(connection) as many:
        client.post(reverse("impounding:entry_new"), data)
    assert len(many) == len(few)
