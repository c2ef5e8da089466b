"""The owners' claims to surplus newest first: the API's list (`/api/v1/claims/`) walks this index
and probes each claim's deposit for the reader's pounds, where it joined every claim to its
deposit (reading all 18,756 deposits at 1M entries) and sorted them.
Built CONCURRENTLY, outside a transaction (tests/test_migration_safety.py)."""

from django.db import migrations, models

from kernel.operations import AddIndexConcurrently


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("office", "0010_remittance_newest")]

    operations = [
        AddIndexConcurrently(
            model_name="surplusclaim",
            index=models.Index(fields=["-filed_on", "-id"], name="surplus_claim_newest"),
        ),
    ]
