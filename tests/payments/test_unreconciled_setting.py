"""The days before the dashboard counts a line unreconciled are a setting (UNRECONCILED_AFTER_DAYS,
docs/decisions/0082), not a constant of the code."""

from datetime import timedelta

from django.test import override_settings
from django.utils import timezone

from payments import reconcile
from payments.models import BankStatement, LineState, StatementLine


def _open_line(district, by, days_ago):
    statement = BankStatement.objects.create(
        district=district, kind="csv", digest="d" * 64, imported_by=by
    )
    return StatementLine.objects.create(
        statement=statement,
        district=district,
        key="line:x:1",
        value_date=timezone.localdate() - timedelta(days=days_ago),
        amount="500.00",
        narration="UPI CR UNKNOWN PAYER",
        state=LineState.UNMATCHED,
        imported_by=by,
    )


def test_the_default_is_three_days(settings):
    assert settings.UNRECONCILED_AFTER_DAYS == 3
    assert reconcile.unreconciled_after() == timedelta(days=3)


def test_a_line_counts_as_unreconciled_after_the_days_the_setting_names(district, dm_clerk):
    _open_line(district, dm_clerk, days_ago=5)
    assert reconcile.unreconciled([district.pk])["lines"] == 1
    with override_settings(UNRECONCILED_AFTER_DAYS=7):
        assert reconcile.unreconciled([district.pk])["lines"] == 0
    with override_settings(UNRECONCILED_AFTER_DAYS=1):
        assert reconcile.unreconciled([district.pk])["lines"] == 1
