"""A disposal under the proviso to s.14 is money like a sale (docs/decisions/0055): its terms,
the price split as s.17 splits a sale's proceeds, the dues no price covers a shortfall for the
Magistrate's write-off, the buyer barred as a bidder is (s.19), and check_ledger counting it."""

import uuid
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts.roles import Role
from auctions import documents, services
from auctions.models import DisposalOrder, DisposalTerms, Shortfall
from auctions.services import disposal_terms
from impounding.dues import dues
from impounding.models import AnimalState
from kernel.events import verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from ledger.models import AccountKind, Transaction
from tests.accounts.factories import staff
from tests.auctions.factories import balances, conditions, ready_for_sale
from tests.impounding.factories import cow
from tests.readpdf import text

ZERO = Decimal("0.00")
BUYER = {
    "address": "Village Samesi, Lucknow",
    "phone": "9415000001",
    "id_kind": "voter",
    "id_number": "UPV1234567",
    "price": Decimal("35000.00"),
    "payment_mode": "cash",
    "declaration_signed": True,
}


@pytest.fixture
def entry(pound, district, pound_keeper, police_officer, tariffs):
    conditions(district)
    entry, _notice = ready_for_sale(
        pound=pound, keeper=pound_keeper, officer=police_officer, animals=[cow()]
    )
    return entry


@pytest.fixture
def owed(entry):
    """The cow's fine and feeding as the fixtures set them: fine ₹20,000 (s.12, the demo scale),
    21 calendar days' feeding at ₹500 (s.5)."""
    statement = dues(entry.animals.all())
    assert (statement.fines, statement.feeding) == (Decimal("20000.00"), Decimal("10500.00"))
    return statement


def propose(
    pound, by, entry, mode=DisposalOrder.Mode.PRIVATE_SALE, recipient="Ram Prakash", **terms
):
    return services.propose_disposal(
        pound=pound,
        animal_ids=[a.pk for a in entry.animals.all()],
        by=by,
        reason="Old and lame: no bid at two auctions",
        mode=mode,
        recipient=recipient,
        terms=terms,
    )


def whole_books():
    assert run_checks() == []
    assert verify_chain() == []


def test_private_sale_is_split_and_posted_as_a_sale(
    entry, pound, district, dm_clerk, magistrate, owed
):
    order = propose(pound, dm_clerk, entry, **BUYER)

    services.decide_disposal(order=order, by=magistrate, approve=True)

    terms = DisposalTerms.objects.get(order=order)
    # ₹35,000: feeding ₹10,500 to the keeper, fine ₹20,000 to the Magistrate, ₹4,500 surplus held.
    assert (terms.fines, terms.feeding, terms.surplus, terms.shortfall) == (
        Decimal("20000.00"),
        Decimal("10500.00"),
        Decimal("4500.00"),
        ZERO,
    )
    books = balances(district, pound)
    assert books[AccountKind.POUND_CASH] == Decimal("35000.00")
    assert books[AccountKind.FEEDING_PK] == Decimal("-10500.00")
    assert books[AccountKind.FINES_DUE_DM] == Decimal("-20000.00")
    assert books[AccountKind.DM_SURPLUS_HELD] == Decimal("-4500.00")
    txn = Transaction.objects.get(source=f"auctions.disposalorder:{order.pk}")
    assert (txn.kind, txn.section, txn.by) == ("sale_s14", "s.17", magistrate)
    assert not Shortfall.objects.exists()
    assert entry.animals.get().state == AnimalState.DISPOSED
    event = Event.objects.get(action="disposal.approved")
    assert (event.by, event.section) == (magistrate, "s.14")
    assert (event.data["price"], event.data["surplus"]) == ("35000.00", "4500.00")
    whole_books()


def test_private_sale_below_the_dues_leaves_a_shortfall(
    entry, pound, district, dm_clerk, magistrate, owed
):
    order = propose(pound, dm_clerk, entry, **(BUYER | {"price": Decimal("15000.00")}))

    services.decide_disposal(order=order, by=magistrate, approve=True)

    # Feeding first (decision 7): ₹10,500 to the keeper, ₹4,500 of the ₹20,000 fine; ₹15,500 short.
    books = balances(district, pound)
    assert books[AccountKind.FEEDING_PK] == Decimal("-10500.00")
    assert books[AccountKind.FINES_DUE_DM] == Decimal("-4500.00")
    assert AccountKind.DM_SURPLUS_HELD not in books
    short = Shortfall.objects.get(disposal=order)
    assert (short.fines, short.feeding, short.expenses, short.status) == (
        Decimal("15500.00"),
        ZERO,
        ZERO,
        Shortfall.Status.PENDING,
    )
    assert DisposalTerms.objects.get(order=order).shortfall == Decimal("15500.00")
    whole_books()


def test_handover_to_a_gaushala_leaves_the_whole_dues_short(
    entry, pound, dm_clerk, magistrate, owed
):
    order = propose(
        pound,
        dm_clerk,
        entry,
        mode=DisposalOrder.Mode.GAUSHALA,
        recipient="Shri Krishna Gaushala",
        registration="GSA/LKO/118",
    )

    services.decide_disposal(order=order, by=magistrate, approve=True)

    short = Shortfall.objects.get(disposal=order)
    assert (short.fines, short.feeding, short.total) == (
        Decimal("20000.00"),
        Decimal("10500.00"),
        Decimal("30500.00"),
    )
    assert not Transaction.objects.exists()
    assert DisposalTerms.objects.get(order=order).registration == "GSA/LKO/118"
    whole_books()


def test_rejected_order_moves_no_money(entry, pound, dm_clerk, magistrate):
    order = propose(pound, dm_clerk, entry, **BUYER)

    services.decide_disposal(order=order, by=magistrate, approve=False, note="Auction again")

    assert not Transaction.objects.exists() and not Shortfall.objects.exists()
    whole_books()


@pytest.mark.parametrize(
    ("mode", "terms", "fields"),
    [
        (
            "private_sale",
            {},
            {
                "address",
                "phone",
                "id_kind",
                "id_number",
                "price",
                "payment_mode",
                "declaration_signed",
            },
        ),
        ("private_sale", BUYER | {"payment_mode": "upi"}, {"payment_reference"}),
        ("destroyed", {}, {"certificate_number"}),
        ("other", {}, {"details"}),
        ("gaushala", {"price": Decimal("10.00")}, {"price"}),
    ],
)
def test_each_kind_of_disposal_states_its_terms(entry, pound, dm_clerk, mode, terms, fields):
    with pytest.raises(ValidationError) as refused:
        propose(pound, dm_clerk, entry, mode=mode, **terms)

    assert set(refused.value.message_dict) == fields
    assert not DisposalOrder.objects.exists()


def test_destruction_on_a_veterinary_certificate(entry, pound, dm_clerk, magistrate, owed):
    order = propose(
        pound,
        dm_clerk,
        entry,
        mode="destroyed",
        recipient="Dr A. K. Singh, Veterinary Officer",
        certificate_number="VET/LKO/2026/55",
    )
    services.decide_disposal(order=order, by=magistrate, approve=True)

    assert Shortfall.objects.get(disposal=order).total == Decimal("30500.00")
    whole_books()


def test_buyer_on_the_staff_records_is_refused_s19(entry, pound, dm_clerk, pound_keeper):
    pound_keeper.phone = BUYER["phone"]
    pound_keeper.save()

    with pytest.raises(ValidationError) as refused:
        propose(pound, dm_clerk, entry, recipient="Ram Prakash", **BUYER)

    assert "s.19" in refused.value.message_dict["recipient"][0]
    assert not DisposalOrder.objects.exists()


def test_buyer_who_joined_the_staff_since_is_refused_at_approval(
    entry, pound, dm_clerk, magistrate
):
    order = propose(pound, dm_clerk, entry, **BUYER)
    joined = staff(Role.POUND_KEEPER, "ram", pound=pound)
    joined.phone = BUYER["phone"]
    joined.save()

    with pytest.raises(ValidationError, match="s.19"):
        services.decide_disposal(order=order, by=magistrate, approve=True)

    order.refresh_from_db()
    assert order.status == DisposalOrder.Status.PROPOSED
    assert entry.animals.get().state == AnimalState.IMPOUNDED


def test_check_ledger_reports_a_private_sale_never_posted(
    entry, pound, dm_clerk, magistrate, monkeypatch
):
    order = propose(pound, dm_clerk, entry, **BUYER)
    monkeypatch.setattr(disposal_terms.ledger, "post", lambda **kw: None)

    services.decide_disposal(order=order, by=magistrate, approve=True)

    problems = run_checks()
    assert any("the ledger says 0.00, the records say 35000.00" in p for p in problems), problems


def test_order_pdf_prints_the_terms(entry, pound, dm_clerk, magistrate):
    order = propose(pound, dm_clerk, entry, **BUYER)
    services.decide_disposal(order=order, by=magistrate, approve=True)

    printed = text(documents.disposal_order_pdf(order))

    for words in ("Ram Prakash", "UPV1234567", "35,000", "Disposal order (proviso to s.14)"):
        assert words in printed
    assert "आदेश" in printed  # the Hindi beside the English (its conjuncts do not extract)


# --- The form -------------------------------------------------------------------------------


def form_data(entry, **kw):
    data = {
        "idempotency_key": str(uuid.uuid4()),
        "animals": [a.pk for a in entry.animals.all()],
        "reason": "Blind in one eye; no buyer likely",
        "mode": "private_sale",
        "recipient": "Ram Prakash",
    }
    return (
        data
        | {k: v for k, v in BUYER.items() if k != "declaration_signed"}
        | {"declaration_signed": "on"}
        | kw
    )


@pytest.mark.parametrize(
    ("language", "message"),
    [("en", "Give the buyer's phone number."), ("hi", "खरीदार का फ़ोन नंबर दें।")],
)
def test_missing_terms_are_shown_beside_their_fields(client, entry, dm_clerk, language, message):
    client.force_login(dm_clerk)
    client.cookies["django_language"] = language

    response = client.post(reverse("auctions:disposal_new"), form_data(entry, phone="", price=""))

    assert response.status_code == 200
    form = response.context["form"]
    assert form.errors["phone"] == [message]
    assert "price" in form.errors
    assert not DisposalOrder.objects.exists()


def test_form_sent_twice_prepares_one_order(client, entry, dm_clerk):
    client.force_login(dm_clerk)
    data = form_data(entry)

    first = client.post(reverse("auctions:disposal_new"), data)
    second = client.post(reverse("auctions:disposal_new"), data)

    assert first.status_code == second.status_code == 302
    assert DisposalOrder.objects.count() == DisposalTerms.objects.count() == 1
    assert DisposalTerms.objects.get().price == Decimal("35000.00")


def test_order_pdf_is_served_in_its_district_only(client, entry, pound, dm_clerk, other_district):
    order = propose(pound, dm_clerk, entry, **BUYER)
    url = reverse("auctions:disposal_order_pdf", args=[order.pk])
    client.force_login(dm_clerk)

    response = client.get(url)

    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    client.force_login(staff(Role.DM_CLERK, "elsewhere", district=other_district))
    assert client.get(url).status_code == 404


def test_magistrate_writes_off_a_disposals_shortfall(client, entry, pound, dm_clerk, magistrate):
    order = propose(pound, dm_clerk, entry, mode="gaushala", recipient="Shri Krishna Gaushala")
    services.decide_disposal(order=order, by=magistrate, approve=True)
    short = Shortfall.objects.get(disposal=order)
    client.force_login(magistrate)

    assert order.number in client.get(reverse("office:approvals")).content.decode()
    page = client.get(reverse("office:shortfall_write_off", args=[short.pk]))
    assert order.number in page.content.decode()
    response = client.post(page.request["PATH_INFO"], {"note": "Gaushala took them in"})

    assert response.status_code == 302
    short.refresh_from_db()
    assert (short.status, short.decided_by) == (Shortfall.Status.WRITTEN_OFF, magistrate)
    whole_books()


def test_buyer_who_is_a_staff_members_declared_relative_is_refused_s19(
    entry, pound, dm_clerk, pound_keeper
):
    from accounts.relatives import DeclaredRelative

    DeclaredRelative.objects.create(
        user=pound_keeper,
        name="Sunita Devi",
        relation=DeclaredRelative.Relation.SPOUSE,
        phone=BUYER["phone"],
        declared_by=pound_keeper,
    )

    with pytest.raises(ValidationError) as refused:
        propose(pound, dm_clerk, entry, recipient="Sunita Devi", **BUYER)

    assert "s.19" in refused.value.message_dict["recipient"][0]
    assert not DisposalOrder.objects.exists()


def test_buyer_at_the_pounds_own_address_is_refused_s19(entry, pound, dm_clerk):
    pound.address = "Kanji House, Mohanlalganj Tehsil Compound, Lucknow"
    pound.save()

    with pytest.raises(ValidationError) as refused:
        propose(
            pound,
            dm_clerk,
            entry,
            recipient="Mohan Lal",
            **BUYER | {"address": "Kanji House, Mohanlalganj Tehsil Compound, Lucknow"},
        )

    assert "s.19" in refused.value.message_dict["recipient"][0]
