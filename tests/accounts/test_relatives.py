"""The declaration of relatives (s.19, ADR 0057): each member of staff keeps her own; an
administrator sees and corrects those of the staff of the districts he manages, and another
State's staff are a 404 to him; every change is a staff event."""

import uuid

import pytest
from django.core.exceptions import PermissionDenied
from django.urls import reverse

from accounts import services
from accounts.models import DeclaredRelative, StaffEvent
from accounts.roles import Role
from tests.accounts.factories import StateFactory, staff


def relative_data(**kw):
    return {
        "idempotency_key": str(uuid.uuid4()),
        "name": "Ramesh Kumar Verma",
        "name_hi": "रमेश कुमार वर्मा",
        "relation": "sibling",
        "phone": "9811100011",
        "id_number": "UPV7778881",
    } | kw


def declare(user, by=None, **kw):
    data = relative_data(**kw)
    data.pop("idempotency_key")
    return services.declare_relative(user=user, by=by or user, **data)


@pytest.fixture
def far_administrator():
    """An administrator of another State: the home district's staff are not his."""
    return staff(Role.ADMINISTRATOR, "far-admin", state=StateFactory(code="far", name="Far"))


# --- Her own declaration ---------------------------------------------------------------------


def test_staff_member_declares_a_relative_on_her_own_page(client, pound_keeper):
    client.force_login(pound_keeper)
    url = reverse("accounts:relatives")
    assert 'name="idempotency_key"' in client.get(url).content.decode()

    response = client.post(url, relative_data())

    assert response.status_code == 302
    relative = DeclaredRelative.objects.get()
    assert (relative.user, relative.declared_by, relative.relation) == (
        pound_keeper,
        pound_keeper,
        "sibling",
    )
    event = StaffEvent.objects.get(action=StaffEvent.Action.RELATIVE_DECLARED)
    assert (event.user, event.by) == (pound_keeper, pound_keeper)
    assert "Ramesh" not in event.note  # the event names the relation, not the relative
    assert "Ramesh Kumar Verma" in client.get(url).content.decode()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("name", "", "This field is required."),
        ("phone", "98111", "Give a phone number of at least ten digits."),
        ("id_number", "U-1", "Give the whole document number: at least four letters or digits."),
        ("relation", "cousin", "Select a valid choice."),
    ],
)
def test_bad_particulars_are_refused_beside_the_field(client, pound_keeper, field, value, message):
    client.force_login(pound_keeper)
    response = client.post(reverse("accounts:relatives"), relative_data(**{field: value}))

    assert response.status_code == 200
    assert message in response.context["form"].errors[field][0]
    assert not DeclaredRelative.objects.exists()
    assert not StaffEvent.objects.filter(action=StaffEvent.Action.RELATIVE_DECLARED).exists()


def test_phone_and_document_may_be_left_out(client, pound_keeper):
    client.force_login(pound_keeper)
    client.post(reverse("accounts:relatives"), relative_data(phone="", id_number=""))
    assert DeclaredRelative.objects.get().phone == ""


def test_relative_corrected_and_withdrawn_each_recorded(client, pound_keeper):
    relative = declare(pound_keeper)
    client.force_login(pound_keeper)
    url = reverse("accounts:relative_edit", args=[relative.pk])
    data = relative_data(phone="9811100099")
    data.pop("idempotency_key")

    assert client.post(url, data).status_code == 302
    relative.refresh_from_db()
    assert relative.phone == "9811100099"
    amended = StaffEvent.objects.get(action=StaffEvent.Action.RELATIVE_AMENDED)
    assert amended.note == "phone"

    assert client.post(url, data).status_code == 302  # the same correction again: no change
    assert StaffEvent.objects.filter(action=StaffEvent.Action.RELATIVE_AMENDED).count() == 1

    assert client.post(url, {"remove": "1"}).status_code == 302
    assert not DeclaredRelative.objects.exists()
    assert StaffEvent.objects.filter(action=StaffEvent.Action.RELATIVE_REMOVED).count() == 1
    assert client.post(url, {"remove": "1"}).status_code == 404  # withdrawn: gone


def test_correction_refused_beside_the_field(client, pound_keeper):
    relative = declare(pound_keeper)
    client.force_login(pound_keeper)
    data = relative_data(phone="12")
    data.pop("idempotency_key")

    response = client.post(reverse("accounts:relative_edit", args=[relative.pk]), data)

    assert response.status_code == 200
    assert response.context["form"].errors["phone"]
    relative.refresh_from_db()
    assert relative.phone == "9811100011"


# --- Another's declaration -----------------------------------------------------------------------


def test_another_staff_members_relative_is_a_404(client, pound_keeper, police_officer):
    relative = declare(pound_keeper)
    client.force_login(police_officer)

    url = reverse("accounts:relative_edit", args=[relative.pk])
    assert client.get(url).status_code == 404
    assert client.post(url, {"remove": "1"}).status_code == 404
    assert DeclaredRelative.objects.count() == 1
    page = client.get(reverse("accounts:relatives")).content.decode()
    assert "Ramesh Kumar Verma" not in page


def test_staff_member_cannot_keep_anothers_declaration_through_the_service(
    pound_keeper, police_officer
):
    with pytest.raises(PermissionDenied):
        declare(pound_keeper, by=police_officer)
    relative = declare(pound_keeper)
    with pytest.raises(PermissionDenied):
        services.remove_relative(relative=relative, by=police_officer)
    assert DeclaredRelative.objects.count() == 1


def test_administrator_keeps_the_declaration_of_staff_he_manages(
    client, pound_keeper, administrator
):
    client.force_login(administrator)
    url = reverse("accounts:staff_relatives", args=[pound_keeper.pk])

    response = client.post(url, relative_data())

    assert response.status_code == 302
    relative = DeclaredRelative.objects.get()
    assert (relative.user, relative.declared_by) == (pound_keeper, administrator)
    assert "Ramesh Kumar Verma" in client.get(url).content.decode()
    edit = reverse("accounts:relative_edit", args=[relative.pk])
    assert client.get(edit).status_code == 200


def test_another_states_staff_are_a_404_to_an_administrator(
    client, pound_keeper, far_administrator
):
    relative = declare(pound_keeper)
    client.force_login(far_administrator)

    assert (
        client.get(reverse("accounts:staff_relatives", args=[pound_keeper.pk])).status_code == 404
    )
    response = client.post(
        reverse("accounts:staff_relatives", args=[pound_keeper.pk]), relative_data()
    )
    assert response.status_code == 404
    assert client.get(reverse("accounts:relative_edit", args=[relative.pk])).status_code == 404
    assert DeclaredRelative.objects.count() == 1


def test_staff_without_the_permission_cannot_open_anothers_declaration(
    client, pound_keeper, police_officer
):
    client.force_login(police_officer)
    response = client.get(reverse("accounts:staff_relatives", args=[pound_keeper.pk]))
    assert response.status_code in (403, 404)
