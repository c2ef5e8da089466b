"""Recovery codes kept as keyed hashes (accounts.twofactor.stored_recovery_code): the codes
already issued, kept until now as they were printed, are hashed in place, so they still work."""

from django.db import migrations
from django.utils.crypto import salted_hmac

SALT = "poundadmin.accounts.recovery-code"


def hash_codes(apps, schema_editor):
    StaticToken = apps.get_model("otp_static", "StaticToken")
    alias = schema_editor.connection.alias
    for token in StaticToken.objects.using(alias).filter(token__regex=r"^[a-z2-7]{8}$"):
        code = "".join(token.token.split()).replace("-", "").lower()
        token.token = salted_hmac(SALT, code, algorithm="sha256").hexdigest()[:16]
        token.save(using=alias, update_fields=["token"])


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_declared_relatives"),
        ("otp_static", "0003_add_timestamps"),
    ]

    operations = [migrations.RunPython(hash_codes, migrations.RunPython.noop)]
