"""A form sent twice records once: every POST view that creates or moves something carries a
single-use key, and the same key sent again makes no second row (ADR 0044; docs/DEVELOPERS.md).

The walk takes the URL map as tests/test_url_auth.py does, finds each view that answers a POST,
and reads from the view's code which forms it uses: a view whose form has an `idempotency_key`
field is keyed, and is sent twice below. Every other POST view is named, either in `NO_KEY`
with the reason it needs none, or in `KNOWN`, the views that still write without a key. `KNOWN`
only shrinks: a view given its key must leave it, and a new POST view that writes without a key
and without a reason fails the count.
"""

import inspect
import types

import pytest
from django import forms
from django.urls import get_resolver, reverse

from impounding.models import Impoundment, Release
from office.models import PreparedFile, Remittance, SurplusDeposit
from tests.test_url_auth import _walk

# POST views that need no key, and why.
NO_KEY = {
    "login": "signing in makes no record; a second sending signs in again",
    "logout": "signing out twice leaves one signed out",
    "set_language": "a preference, set to the same value again",
    "password_change": "sets the password; the same one sent again changes nothing more",
    "accounts:second_factor": "the sign-in's second step: a code checked, no record made",
    "accounts:second_factor_setup": "one authenticator per user: a second one replaces it",
    "accounts:second_factor_codes": "a page: shows the codes just made, makes no record",
    "accounts:second_factor_new_codes": "replaces the codes: the last set shown is the set kept",
    "accounts:second_factor_reset": "a state toggle: a reset authenticator stays reset",
    "accounts:second_factor_passkey": "the sign-in's second step: a passkey checked, no record "
    "made",
    "accounts:api_token_revoke": "a state toggle: a revoked token stays revoked",
    "accounts:service_token_revoke": "a state toggle: a revoked token stays revoked",
    "accounts:device_token_revoke": "a state toggle: a revoked token stays revoked",
    "lost_report": "the session's one draft: sent again, the same draft is changed again",
    "lost_code": "a code checked (its tries counted, three at most), or a new one sent, limited",
    "lost_check": "a state transition: a sent report is not sent again",
    "optout": "a code sent to the phone, limited like the lost form's; the choice waits for it",
    "optout_code": "a code checked (three tries), then the choice: the same choice again is one",
    "messaging:dlr": "the gateway's report: a message already reported is not moved again",
    "impounding:lost_decide": "a decision refused once the match is decided",
    "webhooks:stop": "a state toggle: a stopped webhook stays stopped",
    "webhooks:send_again": "a state toggle: only a given-up delivery is queued again",
    "messaging:contact": "one contact per entry and number: the same number sent again is the "
    "same contact, and its intake message is keyed by them",
    "auctions:auction_close": "a state transition refused from a closed auction",
    "auctions:lot_sell": "a lot is sold at most once (its unique sale, ADR 0044)",
    "auctions:lot_unsold": "a state transition refused from an unsold lot",
    "auctions:report_send": "a state transition: a sent report is not sent again",
    "auctions:notice_post": "one notice per report: a posted notice is refused",
    "auctions:disposal_decide": "a decision refused once the order is decided",
    "auctions:s16_settle": "a state transition refused once settled",
    "auctions:bidder_override": "a decision recorded on the bidder, refused once recorded",
    "auctions:bidder_recheck": "the s.19 check again: a second sending finds nothing new",
    "impounding:entry_amend": "amends the entry; the same amendment again is refused as no change",
    "impounding:entry_owner_from_tag": "the owner already the registry's is not corrected again",
    "impounding:animal_amend": "amends the animal; the same amendment again is refused",
    "impounding:animal_death": "a state transition refused once the animal has died",
    "impounding:animal_escape": "a state transition refused once the animal has escaped",
    "impounding:animal_return": "a state transition refused once the animal is back",
    "impounding:claims_decide": "a decision refused once the competing claims are decided",
    "impounding:complaint_decide": "a decision refused once the complaint is decided",
    "impounding:deposit_apply": "a state transition refused once the deposit is applied",
    "impounding:deposit_refund": "a state transition refused once the deposit is refunded",
    "impounding:receipt_cancellation_decide": "a decision refused once decided",
    "office:claim_decide": "a decision refused once the claim is decided",
    "auctions:gaushala_edit": "amends the body; the same amendment again changes nothing",
    "auctions:upkeep_claim_decide": "a decision refused once the claim is decided; the same "
    "decider's sending again shows its result",
    "auctions:upkeep_claim_pay": "a payment refused once paid; the same clerk's sending again "
    "shows its result",
    "office:deposit_confirm_application": "a confirmation refused once confirmed",
    "office:remittance_confirm": "a confirmation refused once confirmed (maker-checker)",
    "office:surplus_challan": "a confirmation refused once confirmed (maker-checker)",
    "payments:refund": "a decision refused once decided; an approval sent again asks the "
    "gateway nothing (ADR 0083)",
    "office:shortfall_write_off": "a write-off refused once written off",
    "office:surplus_receive": "a receipt refused once the surplus is received",
    "payments:start": "a second payment of the same dues is refused while the first is open "
    "(its unique index, ADR 0075)",
    "payments:return": "a page: shows where the payment stands, records nothing",
    "payments:callback": "the gateway's message: a payment already settled is not moved again",
    "payments:reconcile": "a statement is stored once: the same file again is refused (its "
    "digest), a line already stored is skipped (ADR 0082)",
    "payments:review_line": "a decision refused once the line is matched or set aside",
    "office:treasury_scroll": "a scroll line is stored once: the same scroll again stores "
    "nothing (ADR 0082)",
    "accounts:training": "carries the offset the clock had when drawn: a second sending finds "
    "the clock moved and moves nothing (tests/accounts/test_training_views.py)",
    "accounts:reissue": "sets the drawn file aside; a second sending finds none and is refused",
    "accounts:relative_edit": "corrects or withdraws a declared relative: the same again changes "
    "nothing, a withdrawn relative is gone",
}
# POST views that create a record without a key today. Only shrinks: give each its key.
KNOWN: set[str] = set()
# Keyed by hand, not by a form field: the view reads the key from the POST itself.
KEYED_BY_HAND = {"office:prepare": "key"}


def _functions(view):
    """The view's own function and the module functions it calls (one step down), where its
    forms and its handling of a POST are written."""
    view = inspect.unwrap(view)
    if hasattr(view, "view_class"):
        return [m for m in vars(view.view_class).values() if isinstance(m, types.FunctionType)]
    found = [view]
    for name in view.__code__.co_names:
        called = view.__globals__.get(name)
        if isinstance(called, types.FunctionType) and called.__module__ == view.__module__:
            found.append(called)
    return found


def _answers_post(callback):
    view_class = getattr(callback, "view_class", None)
    if view_class is not None:
        return hasattr(view_class, "post")
    return any("POST" in inspect.getsource(f) for f in _functions(callback))


def _form_class(used):
    """The form class a name stands for: a form, or a bundle of forms (the tariffs' entries)
    whose main form is its `form_class`."""
    used = getattr(used, "form_class", used)
    return used if isinstance(used, type) and issubclass(used, forms.BaseForm) else None


def _keyed(callback):
    for f in _functions(callback):
        for name in f.__code__.co_names:
            used = _form_class(f.__globals__.get(name))
            if used is not None and "idempotency_key" in used.base_fields:
                return True
    return False


def post_views():
    """{url name: keyed?} of every named view, outside the admin and the API, taking a POST.
    (The API's writes take the Idempotency-Key header: api/idempotency.py.)"""
    found = {}
    for _route, name, pattern in _walk(get_resolver().url_patterns):
        if not name or name.startswith(("admin:", "api:")):
            continue
        if _answers_post(pattern.callback):
            found[name] = _keyed(pattern.callback) or name in KEYED_BY_HAND
    return found


POST_VIEWS = post_views()
KEYED = sorted(name for name, keyed in POST_VIEWS.items() if keyed)


def test_every_post_view_has_a_key_or_a_reason():
    unnamed = set(POST_VIEWS) - set(KEYED) - set(NO_KEY) - KNOWN
    assert unnamed == set(), "give these a key (see impounding's EntryForm) or a reason"
    assert len(POST_VIEWS) == len(KEYED) + len(NO_KEY) + len(KNOWN)


def test_known_offenders_only_shrink():
    assert KNOWN & set(KEYED) == set(), "these have their key now: take them out of KNOWN"
    assert (KNOWN | set(NO_KEY)) <= set(POST_VIEWS), "these name no POST view any more"
    assert not KNOWN & set(NO_KEY)


# --- Each keyed view, sent twice with the same key ---------------------------------------------


def _release(kind):
    def recipe(client, get):
        from tests.impounding.factories import make_entry
        from tests.impounding.test_views_releases import _check_page, claim_data

        keeper = get("pound_keeper")
        get("tariffs")
        entry = make_entry(pound=get("pound"), by=keeper)
        client.force_login(keeper)
        url = reverse(f"impounding:{kind}", args=[entry.pk])
        extra = {"ground": "Seized from my own land"} if kind == "deposit" else {}
        _, data = _check_page(client, url, claim_data(entry.animals.all(), **extra))
        return url, data, Release

    return recipe


def _entry(client, get):
    from tests.impounding.test_views_register import entry_post

    client.force_login(get("pound_keeper"))
    return reverse("impounding:entry_new"), entry_post(get("pound")), Impoundment


def _remittance(client, get):
    from tests.impounding.factories import make_entry, pay
    from tests.office.test_views_money import remit_data

    keeper = get("pound_keeper")
    get("tariffs")
    pay(make_entry(pound=get("pound"), by=keeper), keeper)
    client.force_login(keeper)
    return reverse("office:remittance_new"), remit_data(amount="100.00"), Remittance


def _surplus_challan(client, get):
    from datetime import timedelta

    from office import services as office
    from office.models import TreasuryChallan
    from tests.auctions.factories import conditions
    from tests.office.factories import received_surplus
    from tests.office.test_surplus_challan_screens import answers

    clerk = get("dm_clerk")
    get("tariffs")
    conditions(get("district"), by=clerk)
    held = received_surplus(get("pound"), get("pound_keeper"), get("police_officer"), clerk)
    moved = office.transfer_expired_surplus(deposit=held, today=held.expires_on + timedelta(days=1))
    client.force_login(clerk)
    url = reverse("office:surplus_challan_new", args=[moved.pk])
    return url, answers(confirm="1"), TreasuryChallan


def _webhook(client, get):
    from accounts.roles import Role
    from tests.api.test_service_tokens import service_token
    from tests.webhooks.test_views import _form
    from webhooks.models import WebhookSubscription

    administrator = get("administrator")
    token, _headers = service_token(administrator, Role.DM_CLERK, district=get("district"))
    client.force_login(administrator)
    return reverse("webhooks:list"), _form(token), WebhookSubscription


def _prepare(client, get):
    client.force_login(get("magistrate"))
    data = {"what": "ledger", "key": "5b0e9a52-8f0c-4d1e-9c61-2f7d3a8b4c10"}
    return reverse("office:prepare"), data, PreparedFile


def _api_token(client, get):
    from accounts.apitokens import ApiToken

    client.force_login(get("pound_keeper"))
    data = {"name": "dashboard", "idempotency_key": "5b0f7c1e-8c2a-4c53-9a7e-2f2d1f0d1a11"}
    return reverse("accounts:api_tokens"), data, ApiToken


def _device_pairing(client, get):
    from accounts.apitokens import ApiToken

    client.force_login(get("pound_keeper"))
    data = {"label": "Pound phone", "idempotency_key": "6c1f8d2e-9d3b-4d64-8b8f-3e3e2a1e2b22"}
    return reverse("accounts:pair_device"), data, ApiToken


def _passkey(client, get):
    from accounts.models import Passkey
    from tests.accounts.softkey import SoftPasskey

    get("settings").PUBLIC_BASE_URL = "https://pounds.example.gov.in"
    client.force_login(get("magistrate"))
    options = client.get(reverse("accounts:passkeys")).context["options"]
    data = {
        "name": "Office laptop",
        "credential": SoftPasskey().register(options),
        "idempotency_key": "5b0f7c1e-8c2a-4c53-9a7e-2f2d1f0d1a21",
    }
    return reverse("accounts:passkeys"), data, Passkey


def _passkey_removal(client, get):
    """Removing a passkey makes one staff event; sent again, the passkey is gone already."""
    from accounts.models import Passkey, StaffEvent

    magistrate = get("magistrate")
    client.force_login(magistrate)
    passkey = Passkey.objects.create(
        user=magistrate, name="Phone", credential_id=b"credential", public_key=b"key"
    )
    data = {"idempotency_key": "5b0f7c1e-8c2a-4c53-9a7e-2f2d1f0d1a22"}
    return reverse("accounts:passkey_remove", args=[passkey.pk]), data, StaffEvent


def _service_token(client, get):
    from datetime import timedelta

    from django.utils import timezone

    from accounts.apitokens import ApiToken
    from accounts.roles import Role

    client.force_login(get("administrator"))
    data = {
        "name": "Treasury e-challan",
        "role": Role.DM_CLERK,
        "district": get("district").pk,
        "expires_on": (timezone.localdate() + timedelta(days=90)).isoformat(),
        "rate_per_minute": "30",
        "idempotency_key": "0b8e3a55-3c1a-4f6b-9a55-1d0ad2d1c0a1",
    }
    return reverse("accounts:service_tokens"), data, ApiToken


def _surplus_claim(client, get):
    from django.utils import timezone

    from office import services as office
    from office.models import SurplusClaim
    from tests.auctions.factories import conditions
    from tests.office.test_views_money import claim_data, sell

    get("tariffs")
    conditions(get("district"))
    sell(get("pound"), get("pound_keeper"), get("police_officer"))
    clerk = get("dm_clerk")
    held = office.receive_surplus(
        deposit=SurplusDeposit.objects.get(), by=clerk, received_on=timezone.localdate()
    )
    client.force_login(clerk)
    return reverse("office:claim_new", kwargs={"pk": held.pk}), claim_data(), SurplusClaim


def _refund_prepare(client, get):
    from django.utils import timezone

    from impounding import services as impounding
    from payments.models import Payment, PaymentState, Refund
    from tests.impounding.factories import make_entry

    keeper = get("pound_keeper")
    get("tariffs")
    entry = make_entry(pound=get("pound"), by=keeper)
    payment = Payment.objects.create(
        impoundment=entry,
        animal_ids=[a.pk for a in entry.animals.all()],
        amount="100.00",
        gateway="sbiepay",
        reference="PA-TWICE-1",
        created_by=keeper,
        state=PaymentState.SUCCEEDED,
    )
    for animal in entry.animals.all():
        impounding.record_death(animal=animal, by=keeper, at=timezone.now(), cause="Old age")
    client.force_login(get("dm_clerk"))
    data = {"reason": "animals_left", "idempotency_key": "6d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"}
    return reverse("payments:refund_prepare", args=[payment.pk]), data, Refund


def _owner_pay(client, get):
    from payments.models import Payment
    from payments.owner import pay_link
    from tests.impounding.factories import make_entry
    from tests.payments.fakegateway import KEY, MERCHANT

    settings = get("settings")
    settings.PAYMENT_GATEWAY, settings.PAYMENT_GATEWAY_URL = "sbiepay", "http://127.0.0.1:9"
    settings.PAYMENT_GATEWAY_MERCHANT_ID, settings.PAYMENT_GATEWAY_KEY = MERCHANT, KEY
    get("tariffs")
    entry = make_entry(pound=get("pound"), by=get("pound_keeper"))
    data = {"idempotency_key": "7e2f3a4b-5c6d-4e7f-8a91-92a3b4c5d6e7"}
    return reverse("pay", args=[pay_link(entry).token]), data, Payment


def _receipt_cancel(client, get):
    from impounding.models import ReceiptCancellation
    from tests.impounding.factories import make_entry, pay

    keeper = get("pound_keeper")
    get("tariffs")
    receipt = pay(make_entry(pound=get("pound"), by=keeper), keeper).receipt
    client.force_login(keeper)
    data = {
        "reason": "Wrong owner's name",
        "idempotency_key": "3c9d6e2a-7b41-4f08-8e5d-1a2b3c4d5e6f",
    }
    return reverse("impounding:receipt_cancel", args=[receipt.pk]), data, ReceiptCancellation


def _s16_refusal(client, get):
    from auctions.models import S16Case
    from tests.auctions.factories import conditions
    from tests.auctions.test_views_s16 import refusal_data
    from tests.impounding.factories import make_entry

    keeper = get("pound_keeper")
    get("tariffs")
    conditions(get("district"))
    entry = make_entry(pound=get("pound"), by=keeper)
    client.force_login(keeper)
    return reverse("auctions:s16_new", kwargs={"pk": entry.pk}), refusal_data(entry), S16Case


def _court_order(client, get):
    from impounding.models import CourtOrder
    from tests.impounding.factories import make_entry
    from tests.impounding.test_views_releases import pdf_scan

    keeper = get("pound_keeper")
    get("tariffs")
    entry = make_entry(pound=get("pound"), by=keeper)
    client.force_login(keeper)
    data = {
        "idempotency_key": "6a1f2e3d-4c5b-4a69-8877-665544332211",
        "animals": [entry.animals.get().pk],
        "kind": "civil",
        "court": "Civil Judge, Mohanlalganj",
        "case_number": "OS 12/2026",
        "order_date": "2026-11-01",
        "scan": pdf_scan(),
        "order_text": "The cow be released to its owner.",
    }
    return reverse("impounding:court_order", args=[entry.pk]), data, CourtOrder


def _court_order_check(client, get):
    from impounding.models import CourtOrderCheck
    from tests.office.test_views_office import court_release

    get("tariffs")
    order = court_release(get("pound"), get("pound_keeper"))
    client.force_login(get("dm_clerk"))
    data = {
        "idempotency_key": "7b2e3f4a-5d6c-4b7a-9988-776655443322",
        "outcome": "confirmed",
        "how": "certified_copy",
        "reference": "CC 41/2026",
    }
    return reverse("office:court_order_review", args=[order.pk]), data, CourtOrderCheck


def _complaint(client, get):
    from impounding.models import Complaint
    from tests.impounding.factories import make_entry
    from tests.impounding.test_views_court import complaint_data

    keeper = get("pound_keeper")
    entry = make_entry(pound=get("pound"), by=keeper)
    client.force_login(keeper)
    return reverse("impounding:complaint_new", args=[entry.pk]), complaint_data(), Complaint


def _rival_claim(client, get):
    from impounding.models import Claim
    from tests.impounding.factories import make_entry

    keeper = get("pound_keeper")
    entry = make_entry(pound=get("pound"), by=keeper)
    client.force_login(keeper)
    data = {
        "idempotency_key": "0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0",
        "claimant_name": "Shyam Lal",
        "claimant_address": "Samesi",
        "proof": "Brand on the left flank",
    }
    return reverse("impounding:claim_new", args=[entry.pk]), data, Claim


def _scheduled_auction(get):
    from tests.auctions.factories import conditions, ready_for_sale, schedule

    keeper, officer, pound = get("pound_keeper"), get("police_officer"), get("pound")
    get("tariffs")
    conditions(get("district"))
    entry, _notice = ready_for_sale(pound=pound, keeper=keeper, officer=officer)
    return schedule(pound, officer, [[entry.animals.get()]])


def _bidder(client, get):
    from auctions.bidders import Bidder
    from tests.auctions.test_views_auction import bidder_data

    officer = get("police_officer")
    auction = _scheduled_auction(get)
    client.force_login(officer)
    return reverse("auctions:bidder_new", kwargs={"pk": auction.pk}), bidder_data(), Bidder


def _relatives(own):
    def recipe(client, get):
        from accounts.models import DeclaredRelative

        keeper = get("pound_keeper")
        data = {
            "idempotency_key": "2d4e6f80-1a3b-4c5d-8e7f-9a0b1c2d3e4f",
            "name": "Ramesh Kumar Verma",
            "relation": "sibling",
            "phone": "9811100011",
            "id_number": "UPV7778881",
        }
        if own:
            client.force_login(keeper)
            return reverse("accounts:relatives"), data, DeclaredRelative
        client.force_login(get("administrator"))
        url = reverse("accounts:staff_relatives", args=[keeper.pk])
        return url, data, DeclaredRelative

    return recipe


def _birth(client, get):
    from datetime import timedelta

    from django.utils import timezone

    from impounding.models import Animal
    from tests.impounding.factories import cow, make_entry

    keeper = get("pound_keeper")
    arrived = timezone.now() - timedelta(days=2)
    entry = make_entry(pound=get("pound"), by=keeper, arrived_at=arrived, animals=[cow()])
    client.force_login(keeper)
    born = timezone.localtime(timezone.now() - timedelta(hours=3)).strftime("%Y-%m-%dT%H:%M")
    data = {
        "idempotency_key": "7e8f9a0b-1c2d-4e3f-8a5b-6c7d8e9f0a1b",
        "at": born,
        "sex": "female",
        "colour": "Brown",
    }
    return reverse("impounding:animal_birth", args=[entry.animals.get().pk]), data, Animal


def _feeding(client, get):
    from django.utils import timezone

    from impounding.models import FeedingLog
    from tests.impounding.factories import make_entry

    keeper, pound = get("pound_keeper"), get("pound")
    make_entry(pound=pound, by=keeper)
    client.force_login(keeper)
    data = {
        "idempotency_key": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
        "date": timezone.localdate().strftime("%d-%m-%Y"),
        "animals_fed": "1",
        "fodder": "Dry straw 10 kg",
        "watered": "on",
    }
    return reverse("impounding:feeding_log", kwargs={"pk": pound.pk}), data, FeedingLog


def _disposal(client, get):
    from auctions.models import DisposalOrder
    from tests.auctions.factories import conditions, report_and_notice, unclaimed_entry
    from tests.auctions.test_views_disposal import order_data

    keeper, officer, pound = get("pound_keeper"), get("police_officer"), get("pound")
    get("tariffs")
    conditions(get("district"))
    entry = unclaimed_entry(pound=pound, keeper=keeper, days_ago=20)
    report_and_notice(entry, keeper, officer, sent_days_ago=11, posted_days_ago=9)
    client.force_login(get("dm_clerk"))
    return reverse("auctions:disposal_new"), order_data(entry.animals.get()), DisposalOrder


def _proclamation(client, get):
    from auctions.models import Proclamation
    from tests.auctions.factories import conditions, report_and_notice, unclaimed_entry
    from tests.auctions.test_views_unclaimed import procl_data

    keeper, officer, pound = get("pound_keeper"), get("police_officer"), get("pound")
    get("tariffs")
    conditions(get("district"))
    entry = unclaimed_entry(pound=pound, keeper=keeper, days_ago=20)
    _report, notice = report_and_notice(entry, keeper, officer, sent_days_ago=11, posted_days_ago=9)
    client.force_login(officer)
    url = reverse("auctions:proclamation_new", kwargs={"pk": notice.pk})
    return url, procl_data(), Proclamation


def _conditions(client, get):
    from auctions.models import AuctionConditions
    from tests.auctions.test_views_auction import conditions_data

    client.force_login(get("dm_clerk"))
    data = conditions_data(get("district"))
    return reverse("auctions:conditions_new"), data, AuctionConditions


def _auction(client, get):
    from datetime import timedelta

    from django.utils import timezone

    from auctions.models import Auction
    from tests.auctions.factories import conditions, ready_for_sale
    from tests.auctions.test_views_auction import local, schedule_data

    keeper, officer, pound = get("pound_keeper"), get("police_officer"), get("pound")
    get("tariffs")
    conditions(get("district"))
    entry, _notice = ready_for_sale(pound=pound, keeper=keeper, officer=officer)
    client.force_login(officer)
    when = local(timezone.now() + timedelta(hours=1))
    data = schedule_data([entry.animals.get().pk], when=when, officer=officer)
    return reverse("auctions:auction_new") + f"?pound={pound.pk}", data, Auction


def _tariff(kind):
    def recipe(client, get):
        from impounding.models import FeedingRateOrder, FineScale
        from tests.impounding.test_views_tariffs import feeding_data, fine_scale_data

        client.force_login(get("dm_clerk"))
        if kind == "fine_scale_new":
            return reverse(f"impounding:{kind}"), fine_scale_data(get("district")), FineScale
        return reverse(f"impounding:{kind}"), feeding_data(get("district")), FeedingRateOrder

    return recipe


def _gaushala(client, get):
    from auctions.models import Gaushala
    from tests.auctions.test_gaushala import BODY

    client.force_login(get("dm_clerk"))
    data = {**BODY, "active": "on", "idempotency_key": "5b0f7c1e-8c2a-4c53-9a7e-2f2d1f0d1b01"}
    return reverse("auctions:gaushala_new"), data, Gaushala


def _handover_setup(get):
    from auctions.services import gaushala as gaushalas
    from tests.auctions.factories import conditions, ready_for_sale
    from tests.auctions.test_gaushala import BODY
    from tests.rulepacks.factories import take

    keeper, officer, pound = get("pound_keeper"), get("police_officer"), get("pound")
    get("tariffs")
    take(get("district"), "up")
    conditions(get("district"))
    entry, _notice = ready_for_sale(pound=pound, keeper=keeper, officer=officer)
    body = gaushalas.register_gaushala(district=get("district"), by=get("dm_clerk"), **BODY)
    return entry, body


def _handover(client, get):
    from auctions.models import DisposalOrder

    entry, body = _handover_setup(get)
    client.force_login(get("dm_clerk"))
    data = {
        "gaushala": body.pk,
        "animals": [entry.animals.get().pk],
        "reason": "The State's law forbids the sale",
        "idempotency_key": "5b0f7c1e-8c2a-4c53-9a7e-2f2d1f0d1b02",
    }
    return reverse("auctions:handover_new"), data, DisposalOrder


def _upkeep_claim(client, get):
    from datetime import timedelta

    from django.utils import timezone

    from auctions.models import Handover, UpkeepClaim
    from auctions.services import gaushala as gaushalas
    from tests.auctions.test_gaushala import hand_over

    entry, body = _handover_setup(get)
    order = hand_over(get("pound"), entry, body, get("dm_clerk"), get("magistrate"))
    # Handed over two months ago: last month has ended and its animal-days are claimable.
    month = (timezone.localdate().replace(day=1) - timedelta(days=1)).replace(day=1)
    Handover.objects.filter(pk=order.handover.pk).update(received_on=month - timedelta(days=20))
    client.force_login(get("dm_clerk"))
    days = gaushalas.animal_days(body, month)
    data = {
        "gaushala": body.pk,
        "month": f"{month:%Y-%m}",
        "animal_days": days,
        "idempotency_key": "5b0f7c1e-8c2a-4c53-9a7e-2f2d1f0d1b03",
    }
    return reverse("auctions:upkeep_claim_new"), data, UpkeepClaim


def _holding_end(client, get):
    from django.utils import timezone

    from auctions.models import HoldingEnd
    from tests.auctions.test_gaushala import hand_over

    entry, body = _handover_setup(get)
    hand_over(get("pound"), entry, body, get("dm_clerk"), get("magistrate"))
    client.force_login(get("dm_clerk"))
    data = {
        "kind": "died",
        "on": timezone.localdate().isoformat(),
        "cause": "old age, as the body reported",
        "reference": "GS/LKO/2026/118",
        "idempotency_key": "5b0f7c1e-8c2a-4c53-9a7e-2f2d1f0d1b04",
    }
    return reverse("auctions:holding_end_new", args=[entry.animals.get().pk]), data, HoldingEnd


def _inspection(client, get):
    from impounding.models import Inspection
    from tests.impounding.factories import make_entry
    from tests.impounding.test_inspections import post_data

    entry = make_entry(pound=get("pound"), by=get("pound_keeper"))
    client.force_login(get("pound_keeper"))
    data = post_data(entry, visited_at=_local_now())
    url = reverse("impounding:inspection_new", kwargs={"pk": entry.pk})
    return url, data, Inspection


def _direction(client, get):
    from impounding.models import Direction, Fitness
    from impounding.services import record_inspection
    from tests.impounding.factories import make_entry
    from tests.impounding.test_inspections import finding
    from tests.impounding.test_unfit import post_data

    entry = make_entry(pound=get("pound"), by=get("pound_keeper"))
    inspection = record_inspection(
        entry=entry,
        by=get("pound_keeper"),
        visited_at=entry.arrived_at,
        officer_name="Dr. Anita Verma",
        officer_designation="Veterinary Officer",
        officer_registration="UPSVC-4471",
        findings=[finding(entry.animals.get(), Fitness.UNFIT)],
    )
    client.force_login(get("pound_keeper"))
    found = inspection.findings.get()
    data = post_data(ordered_on=timezone_today())
    url = reverse("impounding:direction_new", kwargs={"pk": entry.pk, "finding": found.pk})
    return url, data, Direction


def timezone_today():
    from django.utils import timezone

    return timezone.localdate().strftime("%d-%m-%Y")


def _local_now():
    from django.utils import timezone

    return timezone.localtime().strftime("%d-%m-%Y %H:%M")


def _pack_choice(client, get):
    from rulepacks.models import DistrictRulePack, RulePack
    from rulepacks.services import load_shipped

    load_shipped("central")
    client.force_login(get("administrator"))
    data = {
        "pack": RulePack.objects.latest_of("central").pk,
        "confirm": "1",
        "idempotency_key": "5b0f7c1e-8c2a-4c53-9a7e-2f2d1f0d1b04",
    }
    return reverse("rulepacks:choose", args=[get("district").pk]), data, DistrictRulePack


SENT_TWICE = {
    "auctions:gaushala_new": _gaushala,
    "auctions:handover_new": _handover,
    "auctions:upkeep_claim_new": _upkeep_claim,
    "auctions:holding_end_new": _holding_end,
    "impounding:inspection_new": _inspection,
    "impounding:direction_new": _direction,
    "rulepacks:choose": _pack_choice,
    "auctions:conditions_new": _conditions,
    "auctions:auction_new": _auction,
    "impounding:fine_scale_new": _tariff("fine_scale_new"),
    "impounding:feeding_order_new": _tariff("feeding_order_new"),
    "auctions:proclamation_new": _proclamation,
    "auctions:disposal_new": _disposal,
    "impounding:feeding_log": _feeding,
    "impounding:animal_birth": _birth,
    "auctions:bidder_new": _bidder,
    "impounding:claim_new": _rival_claim,
    "impounding:complaint_new": _complaint,
    "impounding:court_order": _court_order,
    "office:court_order_review": _court_order_check,
    "auctions:s16_new": _s16_refusal,
    "impounding:receipt_cancel": _receipt_cancel,
    "office:claim_new": _surplus_claim,
    "payments:refund_prepare": _refund_prepare,
    "pay": _owner_pay,
    "accounts:api_tokens": _api_token,
    "accounts:pair_device": _device_pairing,
    "accounts:relatives": _relatives(own=True),
    "accounts:staff_relatives": _relatives(own=False),
    "accounts:service_tokens": _service_token,
    "accounts:passkeys": _passkey,
    "accounts:passkey_remove": _passkey_removal,
    "impounding:entry_new": _entry,
    "impounding:release": _release("release"),
    "impounding:deposit": _release("deposit"),
    "office:remittance_new": _remittance,
    "office:surplus_challan_new": _surplus_challan,
    "office:prepare": _prepare,
    "webhooks:list": _webhook,
}


def test_every_keyed_view_is_sent_twice_below():
    assert set(KEYED) == set(SENT_TWICE)


@pytest.mark.parametrize("name", KEYED)
def test_the_same_key_sent_twice_makes_one_record(client, request, name):
    url, data, model = SENT_TWICE[name](client, request.getfixturevalue)
    before = model.objects.count()

    first = client.post(url, data)
    made = model.objects.count()
    for upload in (v for v in data.values() if hasattr(v, "seek")):
        upload.seek(0)  # the same file, sent again
    second = client.post(url, data)

    assert made == before + 1, f"{name}: the first sending made {made - before} rows"
    assert model.objects.count() == made, f"{name}: the second sending made another row"
    assert second.status_code in (200, 302), f"{name}: the replay answered {second.status_code}"
    if first.status_code == 302:
        assert second.status_code == 302


# Drawn on the check page after the form (the release), or by the page's script (a prepared file).
KEY_NOT_ON_THE_FORM = {"impounding:release", "impounding:deposit", "office:prepare"}


@pytest.mark.parametrize("name", sorted(set(KEYED) - KEY_NOT_ON_THE_FORM))
def test_the_form_page_carries_its_key(client, request, name):
    url, _data, _model = SENT_TWICE[name](client, request.getfixturevalue)
    body = client.get(url).content.decode()
    assert 'name="idempotency_key"' in body, f"{name}: the page's form has no key"
