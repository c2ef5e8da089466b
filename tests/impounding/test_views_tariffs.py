import uuid
from datetime import date
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from accounts.roles import Role
from demo import tariffs as demo_tariffs
from impounding import tariffs as tariff_services
from impounding.models import FeedingRate, FeedingRateOrder, FineCategory, FineScale
from kernel.models import Event
from tests.accounts.factories import PoundFactory, StaffAssignmentFactory, staff
from tests.impounding.factories import set_tariffs

CATEGORY_FIELDS = ["code", "label", "label_hi", "amount"]
RULE_FIELDS = ["species", "sex", "age_class", "category"]
RATE_FIELDS = ["species", "sex", "age_class", "label", "label_hi", "amount"]


@pytest.fixture
def other_magistrate(other_district):
    return staff(Role.MAGISTRATE, "other_magistrate", district=other_district)


def rows(prefix, items, fields, extra=0):
    """A formset's POST data: the rows given, then `extra` empty ones."""
    data = {f"{prefix}-TOTAL_FORMS": str(len(items) + extra), f"{prefix}-INITIAL_FORMS": "0"}
    for i, item in enumerate(items):
        for f in fields:
            data[f"{prefix}-{i}-{f}"] = str(item.get(f, ""))
    return data


def fine_scale_data(district, **over):
    data = {
        "notification_number": "G.O. 77/2026",
        "notification_date": "2026-01-05",
        "title": "Fines for impounded cattle",
        "district": str(district.pk),
        "district_wide": "1",
        "valid_from": "2026-02-01",
        "valid_to": "",
        "idempotency_key": str(uuid.uuid4()),
    }
    data |= rows("cat", demo_tariffs.FINE_CATEGORIES, CATEGORY_FIELDS, extra=2)
    data |= rows("rule", demo_tariffs.FINE_RULES, RULE_FIELDS, extra=3)
    return data | over


def feeding_data(district, **over):
    data = {
        "order_reference": "DM/Pounds/5/2026",
        "order_date": "2026-01-10",
        "district": str(district.pk),
        "district_wide": "1",
        "valid_from": "2026-02-01",
        "valid_to": "",
        "idempotency_key": str(uuid.uuid4()),
    }
    data |= rows("rate", demo_tariffs.feeding_rates("600.00", "350.00"), RATE_FIELDS, extra=3)
    return data | over


def assert_login_redirect(response):
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


# --- the list -----------------------------------------------------------------------------------


def test_tariffs_list_sends_anonymous_to_login(client):
    assert_login_redirect(client.get(reverse("impounding:tariffs")))


def test_tariffs_list_refused_to_a_role_without_records(client, administrator):
    client.force_login(administrator)
    assert client.get(reverse("impounding:tariffs")).status_code == 403


def test_tariffs_list_shows_current_orders_before_history(client, dm_clerk, district):
    old_scale, old_order = set_tariffs(district, valid_from=date(2020, 1, 1))
    new_scale, new_order = set_tariffs(district, valid_from=date(2024, 4, 1))
    client.force_login(dm_clerk)

    response = client.get(reverse("impounding:tariffs"))

    assert response.status_code == 200
    assert response.context["scales"] == [new_scale]
    assert response.context["scale_history"] == [old_scale]
    assert response.context["orders"] == [new_order]
    assert response.context["order_history"] == [old_order]
    body = response.content.decode()
    assert body.index("Notif 2024/12") < body.index("Notif 2020/12")
    assert reverse("impounding:fine_scale", args=[new_scale.pk]) in body
    assert reverse("impounding:feeding_order", args=[old_order.pk]) in body
    assert reverse("impounding:fine_scale_new") in body


def test_tariffs_list_hides_new_buttons_from_a_pound_keeper(client, pound_keeper, tariffs):
    client.force_login(pound_keeper)

    response = client.get(reverse("impounding:tariffs"))

    assert response.status_code == 200
    assert response.context["scales"] == [tariffs[0]]
    assert reverse("impounding:fine_scale_new") not in response.content.decode()
    assert reverse("impounding:feeding_order_new") not in response.content.decode()


def test_tariffs_list_leaves_out_other_districts(client, outsider, tariffs):
    client.force_login(outsider)

    response = client.get(reverse("impounding:tariffs"))

    assert response.status_code == 200
    assert response.context["scales"] == [] and response.context["orders"] == []
    assert "Notif 2020/12" not in response.content.decode()


def test_tariffs_list_query_count_does_not_grow_with_rows(
    client, magistrate, district, pound, django_assert_max_num_queries
):
    client.force_login(magistrate)
    set_tariffs(district)
    client.get(reverse("impounding:tariffs"))  # warm the session and the grants
    # 14: one is the session's second factor, read again each request (ADR 0053).
    with django_assert_max_num_queries(14) as few:
        client.get(reverse("impounding:tariffs"))
    pairs = [[PoundFactory(district=district), PoundFactory(district=district)] for _ in range(2)]
    for i, pair in enumerate(pairs * 6):  # each pair's orders supersede one another
        set_tariffs(district, valid_from=date(2021 + i, 1, 1), district_wide=False, pounds=pair)
    with django_assert_max_num_queries(len(few.captured_queries)):
        response = client.get(reverse("impounding:tariffs"))
    assert len(response.context["scales"]) + len(response.context["scale_history"]) == 13


# --- a new fine scale ---------------------------------------------------------------------------


def test_fine_scale_new_sends_anonymous_to_login(client):
    assert_login_redirect(client.get(reverse("impounding:fine_scale_new")))


@pytest.mark.parametrize("role", ["pound_keeper", "auditor", "outsider"])
def test_fine_scale_new_refused_without_manage_tariffs(client, role_users, role):
    client.force_login(role_users[role])
    assert client.get(reverse("impounding:fine_scale_new")).status_code == 403
    assert client.post(reverse("impounding:fine_scale_new")).status_code == 403


# A new order starts from the district's own order in force, or from empty rows: never from the
# demo's amounts (ADR 0049).


def _amounts(formset):
    return [row["amount"] for row in formset.initial or []]


def test_fine_scale_new_starts_empty_in_a_district_without_a_scale(client, dm_clerk, district):
    client.force_login(dm_clerk)

    response = client.get(reverse("impounding:fine_scale_new"))

    assert response.status_code == 200
    assert response.context["form"]["district"].value() == district.pk
    assert not response.context["categories"].initial and not response.context["rules"].initial
    body = response.content.decode()
    assert 'name="cat-0-code"' in body and 'name="cat-1-code"' not in body  # one empty row
    assert 'name="rule-0-species"' in body and 'name="rule-1-species"' not in body
    assert "20000.00" not in body and "Sheep, lamb, goat or kid" not in body
    assert "js/tariff-rows.js" in body
    assert FineScale.objects.count() == 0


def _own_scale(district, cow_fine, **kw):
    categories = [
        c | {"amount": cow_fine} if c["code"] == "2" else c for c in demo_tariffs.FINE_CATEGORIES
    ]
    return tariff_services.create_fine_scale(
        district=district,
        by=staff(Role.DM_CLERK, district=district),
        notification_number="G.O. 12/2020",
        notification_date=date(2019, 12, 20),
        valid_from=date(2020, 1, 1),
        categories=categories,
        rules=demo_tariffs.FINE_RULES,
        **kw,
    )


def test_fine_scale_new_starts_from_the_districts_scale_in_force(client, dm_clerk, district):
    _own_scale(district, "25000.00")
    client.force_login(dm_clerk)

    response = client.get(reverse("impounding:fine_scale_new"))

    categories, rules = response.context["categories"], response.context["rules"]
    assert _amounts(categories) == ["1400.00", "25000.00", "3000.00", "1800.00", "4000.00"]
    assert [r["category"] for r in rules.initial][:8] == ["1", "1", "2", "2", "2", "2", "2", "3"]
    assert rules.initial[7] == {
        "species": "cattle",
        "sex": "",
        "age_class": "young",
        "category": "3",
    }
    body = response.content.decode()
    assert 'value="25000.00"' in body and "20000.00" not in body
    assert 'name="rule-14-species"' in body  # its 14 rules and a spare empty row
    assert 'name="rule-15-species"' not in body


def test_fine_scale_new_ignores_a_scale_that_has_ended(client, dm_clerk, district):
    _own_scale(district, "25000.00", valid_to=date(2021, 3, 31))
    client.force_login(dm_clerk)

    response = client.get(reverse("impounding:fine_scale_new"))

    assert not response.context["categories"].initial


def test_fine_scale_new_of_a_clerk_of_two_districts_starts_empty(client, district, other_district):
    _own_scale(district, "25000.00")
    clerk = staff(Role.DM_CLERK, "two_districts", district=district)
    StaffAssignmentFactory(user=clerk, role=Role.DM_CLERK, district=other_district)
    client.force_login(clerk)

    response = client.get(reverse("impounding:fine_scale_new"))

    # Which district's scale would it start from? The district is not chosen yet.
    assert response.context["form"]["district"].value() is None
    assert not response.context["categories"].initial


def test_fine_scale_new_records_the_scale_and_supersedes_the_last(
    client, dm_clerk, district, tariffs
):
    old_scale = tariffs[0]
    client.force_login(dm_clerk)
    data = fine_scale_data(district)
    data["cat-1-amount"] = "25000.00"  # the clerk edits a prefilled row

    response = client.post(reverse("impounding:fine_scale_new"), data)

    scale = FineScale.objects.get(notification_number="G.O. 77/2026")
    assert response.status_code == 302
    assert response["Location"] == reverse("impounding:fine_scale", args=[scale.pk])
    assert scale.created_by == dm_clerk and scale.district_wide
    assert scale.valid_from == date(2026, 2, 1) and scale.valid_to is None
    assert scale.categories.get(code="2").amount == Decimal("25000.00")
    assert scale.categories.count() == 5 and scale.rules.count() == 14
    old_scale.refresh_from_db()
    assert old_scale.valid_to == date(2026, 1, 31)
    event = Event.objects.get(action="tariff.fine_scale_recorded", data__scale=scale.pk)
    assert event.by == dm_clerk and event.section == "s.12"
    assert event.data["superseded"] == [old_scale.pk]


def test_fine_scale_new_for_named_pounds(client, magistrate, district, pound):
    client.force_login(magistrate)
    data = fine_scale_data(district, district_wide="0", pounds=[str(pound.pk)])

    response = client.post(reverse("impounding:fine_scale_new"), data)

    assert response.status_code == 302
    scale = FineScale.objects.get()
    assert not scale.district_wide and list(scale.pounds.all()) == [pound]


def test_fine_scale_new_skips_removed_and_empty_rows(client, dm_clerk, district):
    client.force_login(dm_clerk)
    data = fine_scale_data(district)
    data |= {"cat-4-DELETE": "on"}  # drop "any other animal" and the rules that use it
    data |= {"rule-12-category": "4", "rule-13-category": "4"}

    response = client.post(reverse("impounding:fine_scale_new"), data)

    assert response.status_code == 302
    scale = FineScale.objects.get()
    assert sorted(scale.categories.values_list("code", flat=True)) == ["1", "2", "3", "4"]


def test_fine_scale_new_more_rows_without_javascript_saves_nothing(client, dm_clerk, district):
    client.force_login(dm_clerk)
    data = fine_scale_data(district, more_rows="rule")
    data["cat-0-amount"] = "1500.00"

    response = client.post(reverse("impounding:fine_scale_new"), data)

    assert response.status_code == 200
    assert FineScale.objects.count() == 0
    body = response.content.decode()
    assert 'value="1500.00"' in body
    assert 'name="rule-14-species"' in body  # 14 typed rows, then a spare one
    assert 'name="rule-15-species"' not in body
    assert "This field is required" not in body


def test_fine_scale_new_invalid_shows_errors_beside_fields_and_writes_nothing(
    client, dm_clerk, district
):
    client.force_login(dm_clerk)
    data = fine_scale_data(district, notification_number="")
    data["rule-0-category"] = "9"
    data["rule-1-species"] = data["rule-0-species"]  # two rows for sheep

    response = client.post(reverse("impounding:fine_scale_new"), data)

    assert response.status_code == 200
    assert response.context["form"].errors["notification_number"]
    rules = response.context["rules"]
    assert rules.forms[0].errors["category"] == ["There is no category with this number."]
    assert "same species, sex and age" in str(rules.forms[1].errors["species"])
    assert FineScale.objects.count() == 0 and FineCategory.objects.count() == 0
    assert not Event.objects.filter(action="tariff.fine_scale_recorded").exists()


def test_fine_scale_new_service_refusal_shown_beside_the_dates(client, dm_clerk, district, tariffs):
    client.force_login(dm_clerk)
    # Starts before the open-ended scale in force: it would overlap, not supersede.
    data = fine_scale_data(district, valid_from="2019-06-01", valid_to="2020-06-30")

    response = client.post(reverse("impounding:fine_scale_new"), data)

    assert response.status_code == 200
    assert "overlap" in str(response.context["form"].errors["valid_from"])
    assert FineScale.objects.count() == 1


def test_fine_scale_new_missing_species_is_refused(client, dm_clerk, district):
    client.force_login(dm_clerk)
    data = fine_scale_data(district)
    data["rule-12-DELETE"] = "on"  # elephant

    response = client.post(reverse("impounding:fine_scale_new"), data)

    assert response.status_code == 200
    assert "Elephant" in str(response.context["form"].non_field_errors())
    assert FineScale.objects.count() == 0


def test_fine_scale_new_refuses_another_districts_area(
    client, other_magistrate, district, other_district
):
    client.force_login(other_magistrate)

    response = client.post(reverse("impounding:fine_scale_new"), fine_scale_data(district))

    assert response.status_code == 200
    assert response.context["form"].errors["district"]
    assert FineScale.objects.count() == 0


def test_fine_scale_new_refuses_a_pound_of_another_district(
    client, magistrate, district, other_pound
):
    client.force_login(magistrate)
    data = fine_scale_data(district, district_wide="0", pounds=[str(other_pound.pk)])

    response = client.post(reverse("impounding:fine_scale_new"), data)

    assert response.status_code == 200
    assert response.context["form"].errors["pounds"]
    assert FineScale.objects.count() == 0


# --- a fine scale -------------------------------------------------------------------------------


def test_fine_scale_sends_anonymous_to_login(client, tariffs):
    assert_login_redirect(client.get(reverse("impounding:fine_scale", args=[tariffs[0].pk])))


def test_fine_scale_refused_to_a_role_without_records(client, administrator, tariffs):
    client.force_login(administrator)
    assert client.get(reverse("impounding:fine_scale", args=[tariffs[0].pk])).status_code == 403


@pytest.mark.parametrize("who", ["outsider", "other_magistrate"])
def test_fine_scale_of_another_district_is_not_found(client, request, tariffs, who):
    client.force_login(request.getfixturevalue(who))
    assert client.get(reverse("impounding:fine_scale", args=[tariffs[0].pk])).status_code == 404


def test_fine_scale_shows_categories_rules_and_schedules(client, pound_keeper, pound, tariffs):
    scale = tariffs[0]
    client.force_login(pound_keeper)
    events = Event.objects.count()

    response = client.get(reverse("impounding:fine_scale", args=[scale.pk]))

    assert response.status_code == 200
    body = response.content.decode()
    assert "Camel, donkey, pig, buffalo, cow, bull, bullock or heifer" in body
    assert "₹20,000.00" in body
    assert scale.created_by.display_name in body
    assert reverse("impounding:schedule_pdf", args=[pound.pk]) in body
    assert [r.species for r in response.context["rules"]][:2] == ["cattle", "cattle"]
    assert Event.objects.count() == events


# --- feeding rate orders ------------------------------------------------------------------------


def test_feeding_order_new_sends_anonymous_to_login(client):
    assert_login_redirect(client.get(reverse("impounding:feeding_order_new")))


@pytest.mark.parametrize("role", ["pound_keeper", "auditor", "police_officer"])
def test_feeding_order_new_refused_without_manage_tariffs(client, role_users, role):
    client.force_login(role_users[role])
    assert client.get(reverse("impounding:feeding_order_new")).status_code == 403


def test_feeding_order_new_starts_empty_in_a_district_without_an_order(client, magistrate):
    client.force_login(magistrate)

    response = client.get(reverse("impounding:feeding_order_new"))

    assert response.status_code == 200
    assert not response.context["rates"].initial
    assert len(response.context["rates"].forms) == 1
    body = response.content.decode()
    assert "500.00" not in body and "Small animal or young" not in body
    assert FeedingRateOrder.objects.count() == 0


def test_feeding_order_new_starts_from_the_districts_order_in_force(client, magistrate, district):
    set_tariffs(district, large="650.00", small="325.00")
    client.force_login(magistrate)

    response = client.get(reverse("impounding:feeding_order_new"))

    rates = response.context["rates"]
    assert len(rates.forms) == len(demo_tariffs.feeding_rates()) + 1
    assert set(_amounts(rates)) == {"650.00", "325.00"}
    assert rates.initial[0] == {
        "species": "cattle",
        "sex": "",
        "age_class": "",
        "label": "Large animal",
        "label_hi": "बड़ा पशु",
        "amount": "650.00",
    }
    body = response.content.decode()
    assert 'value="650.00"' in body and "500.00" not in body


def test_feeding_order_new_records_the_order(client, magistrate, district, tariffs):
    old_order = tariffs[1]
    client.force_login(magistrate)

    response = client.post(reverse("impounding:feeding_order_new"), feeding_data(district))

    order = FeedingRateOrder.objects.get(order_reference="DM/Pounds/5/2026")
    assert response["Location"] == reverse("impounding:feeding_order", args=[order.pk])
    assert order.rates.count() == len(demo_tariffs.feeding_rates())
    assert order.rates.get(species="cattle", age_class="").amount == Decimal("600.00")
    old_order.refresh_from_db()
    assert old_order.valid_to == date(2026, 1, 31)
    event = Event.objects.get(action="tariff.feeding_order_recorded", data__order=order.pk)
    assert event.by == magistrate and event.section == "s.5"


def test_feeding_order_new_invalid_writes_nothing(client, magistrate, district):
    client.force_login(magistrate)
    data = feeding_data(district, valid_to="2026-01-01")  # ends before it starts
    data["rate-0-amount"] = "-5"

    response = client.post(reverse("impounding:feeding_order_new"), data)

    assert response.status_code == 200
    assert response.context["form"].errors["valid_to"]
    assert response.context["rates"].forms[0].errors["amount"]
    assert FeedingRateOrder.objects.count() == 0 and FeedingRate.objects.count() == 0


def test_feeding_order_new_duplicate_rows_refused(client, magistrate, district):
    client.force_login(magistrate)
    data = feeding_data(district)
    data["rate-2-species"], data["rate-2-age_class"] = data["rate-0-species"], ""

    response = client.post(reverse("impounding:feeding_order_new"), data)

    assert response.status_code == 200
    assert response.context["rates"].forms[2].errors["species"]
    assert FeedingRateOrder.objects.count() == 0


@pytest.mark.parametrize("who", ["outsider", "other_magistrate"])
def test_feeding_order_of_another_district_is_not_found(client, request, tariffs, who):
    client.force_login(request.getfixturevalue(who))
    url = reverse("impounding:feeding_order", args=[tariffs[1].pk])
    assert client.get(url).status_code == 404


def test_feeding_order_refused_to_a_role_without_records(client, administrator, tariffs):
    client.force_login(administrator)
    url = reverse("impounding:feeding_order", args=[tariffs[1].pk])
    assert client.get(url).status_code == 403


def test_feeding_order_shows_rates(client, auditor, pound, tariffs):
    client.force_login(auditor)

    response = client.get(reverse("impounding:feeding_order", args=[tariffs[1].pk]))

    assert response.status_code == 200
    body = response.content.decode()
    assert "बड़ा पशु" in body and "₹500.00" in body
    assert reverse("impounding:schedule_pdf", args=[pound.pk]) in body


def test_ended_order_links_the_schedule_as_on_its_first_day(client, dm_clerk, district, pound):
    old_scale, _ = set_tariffs(district, valid_from=date(2020, 1, 1))
    set_tariffs(district, valid_from=date(2024, 4, 1))
    client.force_login(dm_clerk)

    response = client.get(reverse("impounding:fine_scale", args=[old_scale.pk]))

    url = reverse("impounding:schedule_pdf", args=[pound.pk]) + "?on=2020-01-01"
    assert url in response.content.decode()
    assert not response.context["in_force"]


def test_tariff_service_refuses_two_rows_for_the_same_animals(district, dm_clerk):
    # The form catches this first; the service must too, or the unique constraint gives a 500.
    rates = demo_tariffs.feeding_rates()
    with pytest.raises(ValidationError, match="same species, sex and age"):
        tariff_services.create_feeding_order(
            district=district,
            by=dm_clerk,
            order_reference="Twice",
            order_date=date(2026, 1, 1),
            valid_from=date(2026, 1, 1),
            rates=[*rates, rates[0]],
        )
    assert FeedingRateOrder.objects.count() == 0
