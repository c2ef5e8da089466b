"""The messages that name the dues carry the owner's pay page (ADR 0085): its short link, spread
over two variables of 30 characters and followed by fixed words, at the end of the intake, s.14 report, notice and
auction-eve texts in each shipped language. A changed text is a new template for the DLT: the
State registers it again (its id stays blank here). A row the State has registered or edited
(an id, or another text) is left as it is."""

import importlib

from django.db import migrations

V = "{#var#}"
# The link is followed by fixed words, so that nothing can be added after it unseen (an operator
# matches a trailing variable against anything), and a space ends it for the phone's linking.
PAY = {
    "en": f" Pay online at {V}{V} or at the pound.",
    "hi": f" ऑनलाइन भुगतान {V}{V} पर या कांजी हाउस में करें।",
    "mr": f" ऑनलाइन भरणा {V}{V} येथे किंवा कोंडवाड्यात करा.",
    "ta": f" இணையத்தில் {V}{V} இல் அல்லது பட்டியில் செலுத்தலாம்.",
}
EVENTS = ("intake", "s14_report", "notice_posted", "auction_tomorrow")


def _seeded():
    seeded = importlib.import_module("messaging.migrations.0002_seed_templates")
    return [row for row in seeded.TEMPLATES if row[0] in EVENTS and row[1] in PAY]


def add_link(apps, schema_editor):
    Template = apps.get_model("messaging", "Template")
    for event, language, text, variables in _seeded():
        Template.objects.filter(
            event=event, language=language, text=text, dlt_template_id=""
        ).update(text=text + PAY[language], variables=[*variables, "paylink", "paylink"])


def remove_link(apps, schema_editor):
    Template = apps.get_model("messaging", "Template")
    for event, language, text, variables in _seeded():
        Template.objects.filter(
            event=event, language=language, text=text + PAY[language], dlt_template_id=""
        ).update(text=text, variables=variables)


class Migration(migrations.Migration):
    dependencies = [("messaging", "0004_dlr_reports_and_opt_out_codes")]

    operations = [migrations.RunPython(add_link, remove_link)]
