"""Passkeys as a second factor beside the authenticator app (docs/decisions/0061-passkeys.md):
the server's ceremonies checked by the `webauthn` package against a software passkey. A
challenge is good once, for a short while and one purpose; a passkey answers only for the
public address's origin; a signature counter that goes back is refused; removing one and an
administrator's reset are recorded."""

import pytest
import time_machine
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone
from webauthn.helpers import bytes_to_base64url

from accounts import ceremonies, twofactor
from accounts.actions import Action
from accounts.models import Passkey, StaffEvent
from kernel.models import Event
from tests.accounts.factories import confirmed_authenticator, password_only_login
from tests.accounts.softkey import SoftPasskey

SITE = "https://pounds.example.gov.in"


@pytest.fixture(autouse=True)
def public_address(settings):
    settings.PUBLIC_BASE_URL = SITE


def added(user, key, *, name="Office laptop"):
    """`user`'s passkey `key`, added through the registration ceremony."""
    confirmed_authenticator(user)
    session = {}
    options = ceremonies.registration_options(user=user, session=session)
    return ceremonies.add_passkey(
        user=user, session=session, credential=key.register(options), name=name
    )


# --- The relying party --------------------------------------------------------------------


def test_relying_party_is_the_public_address(settings):
    settings.PUBLIC_BASE_URL = "https://pounds.up.gov.in:8443"

    assert ceremonies.relying_party() == ("pounds.up.gov.in", "https://pounds.up.gov.in:8443")


# --- Adding a passkey ----------------------------------------------------------------------


def test_passkey_added_with_its_key_and_counter_and_recorded(magistrate):
    key = SoftPasskey()

    passkey = added(magistrate, key)

    assert bytes(passkey.credential_id) == key.credential_id
    assert passkey.user == magistrate and passkey.name == "Office laptop"
    assert passkey.transports == ["internal"] and passkey.sign_count == 0
    assert passkey.created_at is not None and passkey.last_used_at is None
    event = StaffEvent.objects.get(user=magistrate, action=StaffEvent.Action.PASSKEY_ADDED)
    assert event.by == magistrate


def test_registration_from_another_origin_refused(magistrate):
    confirmed_authenticator(magistrate)
    session = {}
    options = ceremonies.registration_options(user=magistrate, session=session)
    answer = SoftPasskey().register(options, origin="https://pounds.example.gov.in.evil.test")

    with pytest.raises(ValidationError):
        ceremonies.add_passkey(user=magistrate, session=session, credential=answer, name="x")

    assert not Passkey.objects.exists()
    assert not StaffEvent.objects.filter(action=StaffEvent.Action.PASSKEY_ADDED).exists()


def test_registration_for_another_rp_id_refused(magistrate):
    confirmed_authenticator(magistrate)
    session = {}
    options = ceremonies.registration_options(user=magistrate, session=session)
    answer = SoftPasskey(rp_id="evil.test").register(options)

    with pytest.raises(ValidationError):
        ceremonies.add_passkey(user=magistrate, session=session, credential=answer, name="x")

    assert not Passkey.objects.exists()


def test_registration_challenge_answered_twice_refused(magistrate):
    confirmed_authenticator(magistrate)
    session = {}
    options = ceremonies.registration_options(user=magistrate, session=session)
    ceremonies.add_passkey(
        user=magistrate, session=session, credential=SoftPasskey().register(options), name="a"
    )

    with pytest.raises(ValidationError) as refused:
        ceremonies.add_passkey(
            user=magistrate, session=session, credential=SoftPasskey().register(options), name="b"
        )

    assert refused.value.code == "challenge"
    assert Passkey.objects.count() == 1


def test_registration_challenge_expires(magistrate):
    confirmed_authenticator(magistrate)
    session = {}
    options = ceremonies.registration_options(user=magistrate, session=session)
    answer = SoftPasskey().register(options)

    with time_machine.travel(timezone.now() + timezone.timedelta(seconds=301)):
        with pytest.raises(ValidationError):
            ceremonies.add_passkey(user=magistrate, session=session, credential=answer, name="x")

    assert not Passkey.objects.exists()


def test_registration_refused_without_an_authenticator_app(pound_keeper):
    session = {}
    options = ceremonies.registration_options(user=pound_keeper, session=session)

    with pytest.raises(ValidationError):
        ceremonies.add_passkey(
            user=pound_keeper,
            session=session,
            credential=SoftPasskey().register(options),
            name="x",
        )

    assert not Passkey.objects.exists()


def test_the_same_key_on_another_users_form_refused(magistrate, dm_clerk):
    key = SoftPasskey()
    confirmed_authenticator(magistrate)
    session = {}
    options = ceremonies.registration_options(user=magistrate, session=session)
    form_key = "5b0f7c1e-8c2a-4c53-9a7e-2f2d1f0d1a99"
    ceremonies.add_passkey(
        user=magistrate,
        session=session,
        credential=key.register(options),
        name="a",
        idempotency_key=form_key,
    )

    with pytest.raises(ValidationError):
        ceremonies.add_passkey(
            user=dm_clerk, session={}, credential="{}", name="b", idempotency_key=form_key
        )


# --- Signing in with one ---------------------------------------------------------------


def test_sign_in_moves_the_counter_and_marks_the_use(magistrate):
    key = SoftPasskey()
    added(magistrate, key)
    session = {}
    options = ceremonies.authentication_options(user=magistrate, session=session)

    passkey = ceremonies.check_passkey(
        user=magistrate, session=session, credential=key.sign(options)
    )

    assert passkey.sign_count == 1
    assert passkey.last_used_at is not None
    assert options["allowCredentials"][0]["id"] == bytes_to_base64url(key.credential_id)


def test_sign_in_challenge_answered_twice_refused(magistrate):
    key = SoftPasskey()
    added(magistrate, key)
    session = {}
    options = ceremonies.authentication_options(user=magistrate, session=session)
    ceremonies.check_passkey(user=magistrate, session=session, credential=key.sign(options))

    with pytest.raises(ValidationError):
        ceremonies.check_passkey(user=magistrate, session=session, credential=key.sign(options))

    assert Passkey.objects.get().sign_count == 1


def test_sign_in_with_a_counter_gone_back_refused(magistrate):
    key = SoftPasskey()
    added(magistrate, key)
    session = {}
    options = ceremonies.authentication_options(user=magistrate, session=session)
    ceremonies.check_passkey(
        user=magistrate, session=session, credential=key.sign(options, sign_count=7)
    )
    options = ceremonies.authentication_options(user=magistrate, session=session)

    with pytest.raises(ValidationError):
        ceremonies.check_passkey(
            user=magistrate, session=session, credential=key.sign(options, sign_count=5)
        )

    assert Passkey.objects.get().sign_count == 7


def test_sign_in_from_another_origin_refused(magistrate):
    key = SoftPasskey()
    added(magistrate, key)
    session = {}
    options = ceremonies.authentication_options(user=magistrate, session=session)

    with pytest.raises(ValidationError):
        ceremonies.check_passkey(
            user=magistrate,
            session=session,
            credential=key.sign(options, origin="https://evil.test"),
        )

    assert Passkey.objects.get().last_used_at is None


def test_sign_in_with_another_users_passkey_refused(magistrate, dm_clerk):
    key = SoftPasskey()
    added(dm_clerk, key)
    added(magistrate, SoftPasskey())
    session = {}
    options = ceremonies.authentication_options(user=magistrate, session=session)

    with pytest.raises(ValidationError):
        ceremonies.check_passkey(user=magistrate, session=session, credential=key.sign(options))


def test_a_registration_challenge_does_not_sign_in(magistrate):
    key = SoftPasskey()
    added(magistrate, key)
    session = {}
    options = ceremonies.registration_options(user=magistrate, session=session)

    with pytest.raises(ValidationError):
        ceremonies.check_passkey(user=magistrate, session=session, credential=key.sign(options))


def test_no_sign_in_options_without_a_passkey(magistrate):
    session = {}

    assert ceremonies.authentication_options(user=magistrate, session=session) is None
    assert session == {}


# --- The pages ------------------------------------------------------------------------


def test_code_page_offers_a_passkey_and_it_signs_in(client, magistrate):
    key = SoftPasskey()
    added(magistrate, key)
    password_only_login(client, magistrate)

    page = client.get(reverse("accounts:second_factor"), {"next": "/"})
    options = page.context["passkey_options"]
    assert 'id="use-passkey"' in page.content.decode()
    response = client.post(
        reverse("accounts:second_factor_passkey"), {"credential": key.sign(options), "next": "/"}
    )

    assert response.status_code == 302 and response["Location"] == "/"
    assert client.get("/").status_code == 200


def test_a_refused_passkey_goes_back_to_the_code_page(client, magistrate):
    key = SoftPasskey()
    added(magistrate, key)
    password_only_login(client, magistrate)
    options = client.get(reverse("accounts:second_factor")).context["passkey_options"]

    response = client.post(
        reverse("accounts:second_factor_passkey"),
        {"credential": key.sign(options, origin="https://evil.test")},
    )

    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:second_factor"))
    assert client.get("/").status_code == 302  # still not verified


def test_code_page_without_a_passkey_offers_none(client, magistrate):
    confirmed_authenticator(magistrate)
    password_only_login(client, magistrate)

    page = client.get(reverse("accounts:second_factor"))

    assert page.context["passkey_options"] is None
    assert "use-passkey" not in page.content.decode()


def test_passkeys_page_adds_one(client, magistrate):
    client.force_login(magistrate)
    page = client.get(reverse("accounts:passkeys"))
    key = SoftPasskey()
    data = {
        "name": "Phone",
        "credential": key.register(page.context["options"]),
        "idempotency_key": "5b0f7c1e-8c2a-4c53-9a7e-2f2d1f0d1a12",
    }

    response = client.post(reverse("accounts:passkeys"), data)

    assert response.status_code == 302
    assert Passkey.objects.get(user=magistrate).name == "Phone"


def test_passkeys_page_shows_a_refusal_beside_the_form(client, magistrate):
    client.force_login(magistrate)
    page = client.get(reverse("accounts:passkeys"))
    answer = SoftPasskey().register(page.context["options"], origin="https://evil.test")
    data = {"name": "Phone", "credential": answer}
    data["idempotency_key"] = "5b0f7c1e-8c2a-4c53-9a7e-2f2d1f0d1a15"

    response = client.post(reverse("accounts:passkeys"), data)

    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert not Passkey.objects.exists()


def test_passkey_removed_by_its_user_and_recorded(client, magistrate):
    passkey = added(magistrate, SoftPasskey())
    client.force_login(magistrate)
    url = reverse("accounts:passkey_remove", args=[passkey.pk])

    assert client.get(url).status_code == 200
    response = client.post(url, {"idempotency_key": "5b0f7c1e-8c2a-4c53-9a7e-2f2d1f0d1a13"})

    assert response.status_code == 302
    assert not Passkey.objects.exists()
    assert StaffEvent.objects.filter(
        user=magistrate, action=StaffEvent.Action.PASSKEY_REMOVED
    ).exists()


def test_another_users_passkey_is_not_found(client, magistrate, dm_clerk):
    passkey = added(dm_clerk, SoftPasskey())
    client.force_login(magistrate)
    url = reverse("accounts:passkey_remove", args=[passkey.pk])

    assert client.get(url).status_code == 404
    client.post(url, {"idempotency_key": "5b0f7c1e-8c2a-4c53-9a7e-2f2d1f0d1a14"})

    assert Passkey.objects.filter(pk=passkey.pk).exists()


def test_administrators_reset_removes_the_passkeys_too(administrator, magistrate):
    added(magistrate, SoftPasskey())

    twofactor.reset_second_factor(user=magistrate, by=administrator)

    assert not Passkey.objects.filter(user=magistrate).exists()
    event = Event.objects.filter(action=Action.SECOND_FACTOR_RESET).latest("pk")
    assert event.data["passkeys"] == 1
