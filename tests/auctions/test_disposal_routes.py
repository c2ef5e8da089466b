"""A disposal order under the proviso to s.14 takes only a route the State's law allows for the
animal's species (ADR 0068): the rule pack its register entry pinned says which. Under the Uttar
Pradesh pack a cow may not be sold by private treaty; under the Maharashtra pack only to a buyer
who declares the use and gives his permit number; under the central Act nothing changes. Where
the district keeps a register of gaushalas, a transfer to a gaushala is a handover from it
(ADR 0070)."""

import uuid
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import translation

from auctions import documents, services
from auctions.models import DisposalOrder, DisposalTerms
from auctions.services import gaushala as gaushalas
from impounding.models import AnimalState, Species
from tests.auctions.factories import conditions, ready_for_sale
from tests.auctions.test_gaushala import BODY
from tests.impounding.factories import cow
from tests.readpdf import text
from tests.rulepacks.factories import take

BUYER = {
    "address": "Village Samesi, Lucknow",
    "phone": "9415000001",
    "id_kind": "voter",
    "id_number": "UPV1234567",
    "price": Decimal("35000.00"),
    "payment_mode": "cash",
    "declaration_signed": True,
}
UP_LAW = "Uttar Pradesh Prevention of Cow Slaughter Act, 1955 (as amended in 2020)"


def buffalo():
    return cow(species=Species.BUFFALO, colour="Black")


@pytest.fixture
def entry_under(district, pound, pound_keeper, police_officer, tariffs):
    """An entry of `animals`, made while the district takes pack `code`: the entry pins it."""

    def make(code, animals=None):
        take(district, code)
        conditions(district)
        entry, _notice = ready_for_sale(
            pound=pound, keeper=pound_keeper, officer=police_officer, animals=animals or [cow()]
        )
        return entry

    return make


def propose(pound, by, entry, mode=DisposalOrder.Mode.PRIVATE_SALE, recipient="Ram Prakash", **kw):
    return services.propose_disposal(
        pound=pound,
        animal_ids=[a.pk for a in entry.animals.all()],
        by=by,
        reason="Old and lame: no bid at two auctions",
        mode=mode,
        recipient=recipient,
        terms=BUYER | kw if mode == DisposalOrder.Mode.PRIVATE_SALE else kw,
    )


def test_under_the_up_pack_a_cows_private_sale_is_refused_naming_the_law(
    entry_under, pound, dm_clerk
):
    entry = entry_under("up")

    with pytest.raises(ValidationError) as refused:
        propose(pound, dm_clerk, entry)

    message = refused.value.message_dict["mode"][0]
    assert "may not be disposed of by sale by private treaty" in message
    assert UP_LAW in message and "s.3, s.5A" in message and "rule pack up 0.1" in message
    assert "handover to a gaushala" in message
    assert not DisposalOrder.objects.exists()


def test_the_refusal_is_in_hindi(entry_under, pound, dm_clerk):
    entry = entry_under("up")

    with translation.override("hi"), pytest.raises(ValidationError) as refused:
        propose(pound, dm_clerk, entry)

    assert "निजी" in refused.value.message_dict["mode"][0]


def test_under_the_up_pack_the_magistrate_may_not_approve_a_cows_private_sale(
    entry_under, pound, dm_clerk, magistrate
):
    # An order prepared before the check (or by code): the decision checks the pinned pack again.
    entry = entry_under("up")
    order = DisposalOrder.objects.create(
        pound=pound,
        number="DSP-OLD-1",
        reason="Old",
        mode=DisposalOrder.Mode.PRIVATE_SALE,
        recipient="Ram Prakash",
        prepared_by=dm_clerk,
    )
    order.animals.set(entry.animals.all())
    DisposalTerms.objects.create(order=order, **BUYER)

    with pytest.raises(ValidationError, match="may not be disposed of by sale by private treaty"):
        services.decide_disposal(order=order, by=magistrate, approve=True)

    order.refresh_from_db()
    assert order.status == DisposalOrder.Status.PROPOSED
    assert entry.animals.get().state == AnimalState.IMPOUNDED
    # Not approving it stays open to him.
    services.decide_disposal(order=order, by=magistrate, approve=False, note="Unlawful")


def test_the_entrys_pinned_pack_governs_when_the_district_changes_its_pack(
    entry_under, district, pound, dm_clerk, magistrate
):
    entry = entry_under("central")
    order = propose(pound, dm_clerk, entry)
    take(district, "up")  # the district takes the UP pack before the Magistrate decides

    services.decide_disposal(order=order, by=magistrate, approve=True)

    assert entry.animals.get().state == AnimalState.DISPOSED


def test_under_the_up_pack_a_buffalos_private_sale_passes(entry_under, pound, dm_clerk, magistrate):
    entry = entry_under("up", animals=[buffalo()])

    order = propose(pound, dm_clerk, entry)
    services.decide_disposal(order=order, by=magistrate, approve=True)

    assert entry.animals.get().state == AnimalState.DISPOSED
    assert order.terms.permit_number == "" and not order.terms.use_declared


def test_under_the_central_act_a_cows_private_sale_passes(entry_under, pound, dm_clerk, magistrate):
    entry = entry_under("central")

    order = propose(pound, dm_clerk, entry, permit_number="ignored", use_declared=True)
    services.decide_disposal(order=order, by=magistrate, approve=True)

    assert entry.animals.get().state == AnimalState.DISPOSED
    assert order.terms.permit_number == ""  # no declared sale: nothing of it kept


def test_under_the_up_pack_a_cow_may_go_to_a_gaushala_or_be_destroyed(entry_under, pound, dm_clerk):
    entry = entry_under("up")

    order = propose(pound, dm_clerk, entry, mode="destroyed", certificate_number="VC/1")

    assert order.status == DisposalOrder.Status.PROPOSED


def test_under_the_mh_pack_a_cows_sale_asks_the_use_declared_and_the_permit(
    entry_under, pound, dm_clerk, magistrate
):
    entry = entry_under("mh")

    with pytest.raises(ValidationError) as refused:
        propose(pound, dm_clerk, entry)
    assert set(refused.value.message_dict) == {"use_declared", "permit_number"}

    order = propose(pound, dm_clerk, entry, use_declared=True, permit_number="MH/AH/2026/77")
    services.decide_disposal(order=order, by=magistrate, approve=True)

    assert entry.animals.get().state == AnimalState.DISPOSED
    printed = text(documents.disposal_order_pdf(order))
    assert "MH/AH/2026/77" in printed and "Permit number" in printed


def test_a_declared_sale_without_its_permit_is_not_approved(
    entry_under, pound, dm_clerk, magistrate
):
    entry = entry_under("mh")
    order = DisposalOrder.objects.create(
        pound=pound,
        number="DSP-OLD-2",
        reason="Old",
        mode=DisposalOrder.Mode.PRIVATE_SALE,
        recipient="Ram Prakash",
        prepared_by=dm_clerk,
    )
    order.animals.set(entry.animals.all())
    DisposalTerms.objects.create(order=order, **BUYER)

    with pytest.raises(ValidationError, match="permit number"):
        services.decide_disposal(order=order, by=magistrate, approve=True)


def _modes(client):
    page = client.get(reverse("auctions:disposal_new"))
    return [value for value, _label in page.context["form"].fields["mode"].choices]


def test_the_form_offers_only_the_kinds_the_pack_allows(entry_under, client, dm_clerk):
    entry_under("up")
    client.force_login(dm_clerk)

    assert _modes(client) == ["gaushala", "institution", "destroyed", "other"]


def test_under_the_central_act_the_form_offers_every_kind(entry_under, client, dm_clerk):
    entry_under("central")
    client.force_login(dm_clerk)

    assert _modes(client) == list(DisposalOrder.Mode.values)


def test_the_form_shows_the_refusal_beside_the_mode(entry_under, client, dm_clerk):
    # A buffalo makes the sale a kind on offer; the cow beside it is refused by the service.
    entry = entry_under("up", animals=[cow(), buffalo()])
    client.force_login(dm_clerk)
    data = (
        {
            "idempotency_key": str(uuid.uuid4()),
            "animals": [a.pk for a in entry.animals.all()],
            "reason": "Old",
            "mode": "private_sale",
            "recipient": "Ram Prakash",
        }
        | {k: v for k, v in BUYER.items() if k != "declaration_signed"}
        | {"declaration_signed": "on"}
    )

    response = client.post(reverse("auctions:disposal_new"), data)

    assert response.status_code == 200
    assert UP_LAW in response.context["form"].errors["mode"][0]
    assert not DisposalOrder.objects.exists()


def test_a_typed_gaushala_is_refused_where_the_district_keeps_a_register(
    entry_under, client, district, pound, dm_clerk
):
    entry = entry_under("up")
    body = gaushalas.register_gaushala(district=district, by=dm_clerk, **BODY)

    with pytest.raises(ValidationError, match="register of gaushalas"):
        propose(pound, dm_clerk, entry, mode="gaushala", recipient="Some Gaushala")

    client.force_login(dm_clerk)
    page = client.get(reverse("auctions:disposal_new")).content.decode()
    assert reverse("auctions:handover_new") in page
    # The handover from the register still prepares its order.
    order = gaushalas.propose_handover(
        pound=pound,
        gaushala_id=body.pk,
        animal_ids=list(entry.animals.values_list("pk", flat=True)),
        by=dm_clerk,
        reason="A cow may not be sold in Uttar Pradesh",
    )
    assert order.mode == DisposalOrder.Mode.GAUSHALA


def test_without_a_register_a_typed_gaushala_is_still_prepared(entry_under, pound, dm_clerk):
    entry = entry_under("up")

    order = propose(pound, dm_clerk, entry, mode="gaushala", recipient="Some Gaushala")

    assert order.mode == DisposalOrder.Mode.GAUSHALA


def _lot_page(client, pound):
    return client.get(reverse("auctions:auction_new") + f"?pound={pound.pk}")


def test_the_lot_screen_refuses_a_cow_by_its_pinned_pack_not_the_districts(
    entry_under, district, pound, client, police_officer, pound_keeper
):
    """A cow taken in under the UP pack may not be offered in a lot even after the district
    moves to the central Act; a cow taken in under the central Act stays offered though the
    district now takes the UP pack. Each row warns by its own entry's pack."""
    under_up = entry_under("up")
    take(district, "central")
    under_central, _notice = ready_for_sale(
        pound=pound, keeper=pound_keeper, officer=police_officer, animals=[cow(colour="Brown")]
    )
    take(district, "up")
    client.force_login(police_officer)
    page = _lot_page(client, pound)
    assert page.status_code == 200
    rows = {row.unit["head"].impoundment_id: row for row in page.context["formset"]}
    refused, offered = rows[under_up.pk], rows[under_central.pk]
    assert refused.unit["refusals"] and UP_LAW in refused.unit["refusals"][0]
    assert refused.fields["include"].disabled and not refused.initial["include"]
    assert not offered.unit["refusals"] and not offered.fields["include"].disabled
    assert page.content.decode().count('data-testid="lot-refused"') == 1
    assert {p.code for p in page.context["pinned_packs"]} == {"up", "central"}
