"""The conditions of sale in the district's language (ADR 0081): the officer gives them beside
the English; a Hindi page shows the Hindi, and where none was given, the English marked as such."""

import uuid

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from auctions.models import AuctionConditions
from tests.auctions.factories import conditions

pytestmark = pytest.mark.django_db

HINDI = "नियत मवेशी बाज़ार, मोहनलालगंज"


def post_data(district, **kw):
    today = timezone.localdate()
    return {
        "district": district.pk,
        "order_reference": "DM/Auction/9/2026",
        "order_date": f"{today:%d-%m-%Y}",  # typed day first
        "valid_from": f"{today:%d/%m/%Y}",
        "place": "Cattle market, Nigohan",
        "place_hi": HINDI,
        "hours": "11:00 to 15:00",
        "reserve_policy": "Half the market value",
        "earnest_money": "1000",
        "buyer_declarations": "I am not an officer of police or a pound-keeper.",
        "buyer_declarations_hi": "मैं पुलिस अधिकारी या कांजी हाउस रक्षक नहीं हूँ।",
        "chargeable_expenses": "Drum and announcement",
        "max_expenses_per_lot": "250",
        "s16_min_gap_days": "2",
        "idempotency_key": str(uuid.uuid4()),
    } | kw


def test_the_office_records_the_conditions_in_both_languages(client, dm_clerk, district):
    client.force_login(dm_clerk)
    response = client.post(reverse("auctions:conditions_new"), post_data(district))
    assert response.status_code == 302
    order = AuctionConditions.objects.get(order_reference="DM/Auction/9/2026")
    assert order.place_hi == HINDI and order.hours_hi == ""
    assert order.order_date == timezone.localdate()


def test_a_hindi_page_shows_the_hindi_and_says_where_it_is_english_only(client, dm_clerk, district):
    conditions(district, by=dm_clerk, place_hi=HINDI)
    client.force_login(dm_clerk)
    client.cookies["django_language"] = "hi"
    html = client.get(reverse("auctions:conditions")).content.decode()
    assert HINDI in html
    assert "Cattle market, Mohanlalganj" not in html
    # The hours were given in English alone: shown, marked English and said so.
    assert '<span lang="en">10:00 to 16:00</span>' in html
    assert "केवल अंग्रेज़ी में दिया गया" in html
    client.cookies["django_language"] = "en"
    html = client.get(reverse("auctions:conditions")).content.decode()
    assert "Cattle market, Mohanlalganj" in html and HINDI not in html
    assert "given in English only" not in html


def test_the_reader_text_falls_back_to_english(district, dm_clerk):
    order = conditions(district, by=dm_clerk, reserve_policy_hi="बाज़ार मूल्य का आधा")
    with translation.override("hi"):
        read = order.read
        assert str(read["reserve_policy"]) == "बाज़ार मूल्य का आधा"
        assert not read["reserve_policy"].english_only
        assert read["place"].english_only and str(read["place"]) == order.place
    with translation.override("en"):
        assert not order.read["place"].english_only


def test_an_unknown_second_language_text_is_refused(district, dm_clerk):
    with pytest.raises(TypeError):
        conditions(district, by=dm_clerk, place_xx="?")
