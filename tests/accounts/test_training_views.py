"""The trainer's page, the TRAINING banner on every page of a training district, and TRAINING
across its documents (ADR 0080)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import District
from accounts.roles import Role
from impounding.documents import receipt_pdf
from kernel import clock
from tests.accounts.factories import StaffAssignmentFactory, force_login_with_second_factor
from tests.auctions.test_training import t_keeper, t_pound, trainer, training  # noqa: F401
from tests.impounding.factories import cow, make_entry, pay
from tests.readpdf import text as pdf_text


def page(client, district):
    return reverse("accounts:training", args=[district.pk])


def test_the_trainer_moves_the_clock_from_the_page_and_a_resent_form_moves_nothing(
    client,
    training,  # noqa: F811
    trainer,  # noqa: F811
):
    force_login_with_second_factor(client, trainer)
    response = client.get(page(client, training))
    assert response.status_code == 200
    assert 'id="training-banner"' in response.content.decode()
    seen = response.context["seen"]
    for _twice in range(2):
        client.post(page(client, training), {"move": "7", "seen": seen})
    training.refresh_from_db()
    assert training.clock_offset == timedelta(days=7)
    assert clock.today(training) == timezone.localdate() + timedelta(days=7)


def test_a_real_districts_staff_see_no_banner_and_no_training_page(
    client,
    magistrate,
    district,
    training,  # noqa: F811
):
    force_login_with_second_factor(client, magistrate)
    assert 'id="training-banner"' not in client.get(reverse("home")).content.decode()
    assert client.get(page(client, training)).status_code == 404
    assert client.post(page(client, district), {"move": "7"}).status_code == 404
    assert District.objects.get(pk=training.pk).clock_offset == timedelta(0)


def test_a_training_districts_documents_say_training(
    t_pound,  # noqa: F811
    t_keeper,  # noqa: F811
    pound,
    pound_keeper,
    tariffs,
):
    trained = make_entry(pound=t_pound, by=t_keeper, animals=[cow()])
    release = pay(trained, t_keeper)
    assert "TRAINING" in pdf_text(receipt_pdf(release.receipt))
    real = pay(make_entry(pound=pound, by=pound_keeper, animals=[cow()]), pound_keeper)
    assert "TRAINING" not in pdf_text(receipt_pdf(real.receipt))


pytestmark = pytest.mark.django_db


def test_the_tour_goes_past_the_sale_and_the_clock_moves_a_month_at_a_time(
    client,
    training,  # noqa: F811
    trainer,  # noqa: F811
):
    force_login_with_second_factor(client, trainer)
    response = client.get(page(client, training))
    body = response.content.decode()
    for step in ("office:remittance_new", "office:remittances", "office:surplus"):
        assert f'href="{reverse(step)}"' in body
    assert "GRN" in body and 'value="30"' in body
    client.post(page(client, training), {"move": "30", "seen": response.context["seen"]})
    training.refresh_from_db()
    assert training.clock_offset == timedelta(days=30)


def test_the_banner_names_the_district_only_when_every_district_is_a_training_one(
    pound,
    pound_keeper,
    t_pound,  # noqa: F811
    t_keeper,  # noqa: F811
    trainer,  # noqa: F811
    training,  # noqa: F811
    django_assert_num_queries,
):
    """Told from the flags read with the user's grants: the staff of a real district, nearly
    every user, cost no query for it on any page; a training district's, one for its name."""
    from accounts.context_processors import _training
    from accounts.scoping import forget_grants, visible_district_ids

    for user in (t_keeper, trainer):
        visible_district_ids(user)  # the grants and their indexes, read once a request
        with django_assert_num_queries(1):
            assert _training(user) == training
    visible_district_ids(pound_keeper)
    with django_assert_num_queries(0):
        assert _training(pound_keeper) is None
    # Both a real pound and a training one: real districts in view, so no banner.
    StaffAssignmentFactory(user=t_keeper, role=Role.POUND_KEEPER, pound=pound)
    forget_grants(t_keeper)
    assert _training(t_keeper) is None
