"""The templates of the owners' messages, in English and Hindi, as a State registers them on DLT
(ADR 0077). Their DLT ids are left blank: only the State's registration gives them, and a
message of a template without one is held, never sent to a gateway. Edited in the admin."""

from django.db import migrations

V = "{#var#}"
LINK = f"{V}{V}{V}"  # a link of up to 90 characters, 30 to a variable
LINK_VARS = ["link", "link", "link"]

TEMPLATES = [
    (
        "intake",
        "en",
        f"Your cattle are held at {V} pound, register entry {V}. Dues so far Rs {V}. Pay at the "
        f"pound, with proof that they are yours, to take them back. Pound phone {V}.",
        ["pound", "entry", "amount", "phone"],
    ),
    (
        "intake",
        "hi",
        f"आपके पशु {V} कांजी हाउस में रखे हैं, रजिस्टर प्रविष्टि {V}। अब तक देय रु {V}। स्वामित्व "
        f"का प्रमाण लेकर कांजी हाउस में भुगतान करें और पशु वापस ले जाएँ। कांजी हाउस फ़ोन {V}।",
        ["pound", "entry", "amount", "phone"],
    ),
    (
        "s14_report",
        "en",
        f"Your cattle of register entry {V} at {V} pound are reported to the police as unclaimed "
        f"(s.14). Dues Rs {V}. Pay at the pound before the sale to take them back.",
        ["entry", "pound", "amount"],
    ),
    (
        "s14_report",
        "hi",
        f"{V} कांजी हाउस की रजिस्टर प्रविष्टि {V} के आपके पशुओं की सूचना पुलिस को लावारिस के रूप "
        f"में दी गई है (धारा 14)। देय रु {V}। नीलामी से पहले कांजी हाउस में भुगतान कर पशु वापस लें।",
        ["pound", "entry", "amount"],
    ),
    (
        "notice_posted",
        "en",
        f"Notice of sale posted for your cattle of entry {V} at {V} pound. Auction on or after "
        f"{V} at {V}. Pay dues of Rs {V} at the pound before then to take them back.",
        ["entry", "pound", "date", "place", "amount"],
    ),
    (
        "notice_posted",
        "hi",
        f"{V} कांजी हाउस की प्रविष्टि {V} के आपके पशुओं की नीलामी की सूचना लगाई गई है। नीलामी {V} "
        f"या उसके बाद {V} में। उससे पहले कांजी हाउस में देय रु {V} का भुगतान कर पशु वापस लें।",
        ["pound", "entry", "date", "place", "amount"],
    ),
    (
        "auction_tomorrow",
        "en",
        f"Your cattle of entry {V} at {V} pound are to be auctioned tomorrow, {V}, at {V}. Pay "
        f"dues of Rs {V} at the pound before the sale to take them back.",
        ["entry", "pound", "date", "place", "amount"],
    ),
    (
        "auction_tomorrow",
        "hi",
        f"{V} कांजी हाउस की प्रविष्टि {V} के आपके पशुओं की नीलामी कल {V} को {V} में होगी। नीलामी "
        f"से पहले कांजी हाउस में देय रु {V} का भुगतान कर पशु वापस लें।",
        ["pound", "entry", "date", "place", "amount"],
    ),
    (
        "released",
        "en",
        f"Your cattle of entry {V} were released at {V} pound on payment of Rs {V}, receipt {V}. "
        f"Check the receipt at {LINK}",
        ["entry", "pound", "amount", "receipt", *LINK_VARS],
    ),
    (
        "released",
        "hi",
        f"{V} कांजी हाउस से प्रविष्टि {V} के आपके पशु रु {V} के भुगतान पर छोड़े गए, रसीद {V}। "
        f"रसीद की जाँच करें: {LINK}",
        ["pound", "entry", "amount", "receipt", *LINK_VARS],
    ),
    (
        "deposit",
        "en",
        f"Your cattle of entry {V} were released at {V} pound on a deposit of Rs {V}, receipt {V}. "
        f"Keep it to claim the deposit back if your complaint succeeds. Check it at {LINK}",
        ["entry", "pound", "amount", "receipt", *LINK_VARS],
    ),
    (
        "deposit",
        "hi",
        f"{V} कांजी हाउस से प्रविष्टि {V} के आपके पशु रु {V} जमा करने पर छोड़े गए, रसीद {V}। "
        f"शिकायत सफल होने पर जमा वापस पाने के लिए इसे रखें। जाँच करें: {LINK}",
        ["pound", "entry", "amount", "receipt", *LINK_VARS],
    ),
    (
        "surplus",
        "en",
        f"Rs {V} is left over from the sale of your cattle of entry {V} at {V} pound. Claim it at "
        f"the District Magistrate's office, with proof that they were yours, by {V}.",
        ["amount", "entry", "pound", "date"],
    ),
    (
        "surplus",
        "hi",
        f"{V} कांजी हाउस की प्रविष्टि {V} के आपके पशुओं की बिक्री से रु {V} का अधिशेष बचा है। "
        f"स्वामित्व के प्रमाण के साथ {V} तक जिला मजिस्ट्रेट कार्यालय में इसका दावा करें।",
        ["pound", "entry", "amount", "date"],
    ),
    (
        "one_time_code",
        "en",
        f"{V} is your code to confirm your phone for a report of lost cattle. Do not share it "
        "with anyone.",
        ["code"],
    ),
    (
        "one_time_code",
        "hi",
        f"{V} खोए पशुओं की रिपोर्ट के लिए आपके फ़ोन की पुष्टि का कोड है। इसे किसी को न बताएँ।",
        ["code"],
    ),
]


def seed(apps, schema_editor):
    Template = apps.get_model("messaging", "Template")
    for event, language, text, variables in TEMPLATES:
        Template.objects.get_or_create(
            event=event,
            language=language,
            defaults={"text": text, "variables": variables, "category": "service_implicit"},
        )


def unseed(apps, schema_editor):
    Template = apps.get_model("messaging", "Template")
    for event, language, _text, _variables in TEMPLATES:
        Template.objects.filter(event=event, language=language, dlt_template_id="").delete()


class Migration(migrations.Migration):
    dependencies = [("messaging", "0001_messages_and_templates")]

    operations = [migrations.RunPython(seed, unseed)]
