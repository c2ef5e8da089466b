"""The template registry and the DLT's rules (messaging/dlt.py, ADR 0077): every registered
template renders to a text its own pattern accepts, whatever the values; segments are counted as
the operators bill them; messages that are not urgent wait for daytime."""

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from messaging import dlt, services
from messaging.models import Event, Template

IST = ZoneInfo("Asia/Kolkata")
LONG = "Pound of the Mohanlalganj tehsil, Lucknow district, Uttar Pradesh"
SAMPLE = {
    "pound": LONG,
    "entry": "LKO/2026/000123",
    "amount": "12,34,567.50",
    "phone": "0522-2345678",
    "date": "12-12-2026 11:00",
    "place": "Mohanlalganj haat, near the tehsil office",
    "receipt": "LKO-MLG/2026-27/000042",
    "link": "https://pound.example.gov.in/verify/d/0123456789abcdef0123456789abcdef/",
    "code": "482913",
    "reference": "L-7K2P-9QXD",
    "paylink": "https://pound.example.gov.in/p/Ab3_x9Qz",
}


@pytest.mark.parametrize("language", ["en", "hi", "mr", "ta"])
@pytest.mark.parametrize("event", Event.values)
def test_every_template_renders_to_a_text_its_pattern_accepts(event, language):
    template = Template.objects.get(event=event, language=language)
    assert dlt.placeholders(template.text) == len(template.variables)
    assert set(template.variables) <= set(SAMPLE)
    for values in (SAMPLE, {k: "" for k in SAMPLE}, {k: v[:3] for k, v in SAMPLE.items()}):
        text = services.render(template, values)
        assert dlt.VAR not in text
        assert dlt.matches(template.text, text), text
    assert template.dlt_template_id == ""  # the State's to fill, never ours


def test_a_link_is_spread_over_its_placeholders_whole():
    template = Template.objects.get(event=Event.RELEASED, language="en")
    assert SAMPLE["link"] in services.render(template, SAMPLE)


@pytest.mark.parametrize("language", ["en", "hi", "mr", "ta"])
@pytest.mark.parametrize("event", ["intake", "s14_report", "notice_posted", "auction_tomorrow"])
def test_the_messages_naming_the_dues_carry_the_pay_link_whole(event, language):
    template = Template.objects.get(event=event, language=language)
    assert "amount" in template.variables
    assert SAMPLE["paylink"] in services.render(template, SAMPLE)


def test_a_changed_text_no_longer_matches():
    registered = "Dues Rs {#var#} at {#var#} pound."
    assert dlt.matches(registered, "Dues Rs 500.00 at Nigohan pound.")
    assert not dlt.matches(registered, "Dues: Rs 500.00 at Nigohan pound.")
    assert not dlt.matches(registered, "Dues Rs 500.00 at Nigohan pound. Pay now.")
    assert not dlt.matches(registered, f"Dues Rs {'9' * 31} at Nigohan pound.")
    assert dlt.render(registered, ["5" * 40, "N"]).count("5") == 27  # cut to 30 with "..."


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("a" * 160, 1),
        ("a" * 161, 2),
        ("a" * 306, 2),
        ("a" * 307, 3),
        ("[" * 80, 1),  # two septets each
        ("[" * 81, 2),
        ("क" * 70, 1),
        ("क" * 71, 2),
        ("क" * 134, 2),
        ("क" * 135, 3),
    ],
)
def test_segments_as_the_operators_count_them(text, count):
    assert dlt.segments(text) == count


def test_hindi_costs_more_sms_than_english():
    for event in Event.values:
        en, *others = (
            services.render(Template.objects.get(event=event, language=lang), SAMPLE)
            for lang in ("en", "hi", "mr", "ta")
        )
        assert dlt.is_gsm7(en)
        for other in others:
            assert not dlt.is_gsm7(other) and dlt.segments(other) >= dlt.segments(en)


def test_unicode_goes_as_hex_utf16():
    assert dlt.ucs2_hex("कां") == "0915093E0902"


@pytest.mark.parametrize(
    ("now", "due"),
    [
        (datetime(2026, 12, 5, 12, 0, tzinfo=IST), datetime(2026, 12, 5, 12, 0, tzinfo=IST)),
        (datetime(2026, 12, 5, 22, 30, tzinfo=IST), datetime(2026, 12, 6, 9, 0, tzinfo=IST)),
        (datetime(2026, 12, 5, 6, 15, tzinfo=IST), datetime(2026, 12, 5, 9, 0, tzinfo=IST)),
        (datetime(2026, 12, 5, 21, 0, tzinfo=IST), datetime(2026, 12, 6, 9, 0, tzinfo=IST)),
    ],
)
def test_messages_that_are_not_urgent_wait_for_daytime(now, due):
    assert dlt.next_daytime(now) == due
