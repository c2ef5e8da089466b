"""The daily deadline run (`manage.py run_deadlines`): the date-driven work of the Act.

Safe to run twice and from cron: every effect is guarded by the state it changes (a deposit is
applied once, a surplus transferred once, under row locks), and to-dos are keyed by their
condition. Overlapping runs therefore do the work once between them.
"""

from collections import Counter as Tally
from datetime import timedelta

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import todos
from accounts.models import Pound
from accounts.roles import Role
from poundadmin.formatting import lakh

PREFIXES = (
    "report_due:",
    "notice_due:",
    "auction_due:",
    "feeding_missed:",
    "deposit_apply:",
    "surplus_receive:",
    "surplus_claim:",
    "remittance_confirm:",
    "disposal_decide:",
    "shortfall_writeoff:",
    "court_order_review:",
)


def run(today=None):
    """Do the day's work; returns a Tally of what was done, for the one-line summary."""
    from auctions.clocks import reports_due
    from auctions.models import DisposalOrder, Lot, LotAnimal, Notice, Report, Shortfall
    from impounding.models import AnimalState, CourtOrder, Deposit
    from impounding.selectors import missing_feeding_days
    from impounding.services import apply_deposit, deposit_awaiting_application

    from .models import Remittance, SurplusClaim, SurplusDeposit
    from .services import transfer_expired_surplus

    today = today or timezone.localdate()
    if today > timezone.localdate():
        # A day that has not come would lift surplus and apply deposits before their time.
        raise ValueError(f"cannot run for {today:%d-%m-%Y}: that day has not come yet")
    done, keys = Tally(), set()

    def todo(key, role, district, title, url, pound=None, section="", due_on=None):
        keys.add(key)
        _todo, created = todos.upsert(
            key=key,
            role=role,
            district=district,
            title=title,
            url=url,
            pound=pound,
            section=section,
            due_on=due_on,
        )
        done["todos_created"] += created

    pounds = list(Pound.objects.select_related("district", "nearest_police_station"))
    for pound in pounds:
        district = pound.district
        for row in reports_due([pound.pk], today):
            entry = row["entry"]
            todo(
                f"report_due:{entry.pk}",
                Role.POUND_KEEPER,
                district,
                _("Report the unclaimed cattle of %(entry)s to the officer (s.14)")
                % {"entry": entry.register_number},
                reverse("auctions:report_send", args=[entry.pk]),
                pound,
                "s.14",
                row["due_on"],
            )
            done["reports_due"] += 1
        for day in missing_feeding_days(
            pound, today - timedelta(days=7), today - timedelta(days=1)
        ):
            todo(
                f"feeding_missed:{pound.pk}:{day.isoformat()}",
                Role.POUND_KEEPER,
                district,
                _("No feeding record for %(date)s at %(pound)s (ss.9, 27)")
                % {"date": day.strftime("%d-%m-%Y"), "pound": pound.name},
                reverse("impounding:feeding_log", args=[pound.pk]) + f"?date={day.isoformat()}",
                pound,
                "s.9",
                day,
            )
            done["feeding_missed"] += 1

    for report in Report.objects.filter(notice__isnull=True).select_related("pound__district"):
        todo(
            f"notice_due:{report.pk}",
            Role.POLICE_OFFICER,
            report.pound.district,
            _("Post the notice for report %(number)s and have it proclaimed (s.14)")
            % {"number": report.number},
            reverse("auctions:notice_post", args=[report.pk]),
            report.pound,
            "s.14",
        )
        done["notices_due"] += 1
    open_lots = LotAnimal.objects.filter(lot__status=Lot.Status.OPEN).values("animal_id")
    for notice in (
        Notice.objects.filter(
            earliest_sale__lte=today, report__animals__state=AnimalState.IMPOUNDED
        )
        .exclude(report__animals__in=open_lots)
        .select_related("pound__district", "report")
        .distinct()
    ):
        todo(
            f"auction_due:{notice.pk}",
            Role.POLICE_OFFICER,
            notice.pound.district,
            _(
                "Sell by public auction, or seek the District Magistrate's order: notice "
                "%(number)s ran out on %(date)s (s.14)"
            )
            % {"number": notice.number, "date": notice.last_day_to_claim.strftime("%d-%m-%Y")},
            reverse("auctions:report", args=[notice.report_id]),
            notice.pound,
            "s.14",
            notice.earliest_sale,
        )
        done["auctions_due"] += 1

    for deposit in Deposit.objects.filter(status=Deposit.Status.HELD).select_related(
        "release__impoundment__pound__district", "application_confirmed_by"
    ):
        if not deposit_awaiting_application(deposit, today):
            continue
        entry = deposit.release.impoundment
        if deposit.application_confirmed_by_id:
            try:
                with transaction.atomic():
                    apply_deposit(deposit=deposit, by=deposit.application_confirmed_by)
                done["deposits_applied"] += 1
                continue
            except (ValidationError, PermissionDenied):
                # Applied meanwhile by an overlapping run, or no longer applicable; or the
                # Magistrate who confirmed has left the office: then his successor is asked.
                deposit.refresh_from_db(fields=["status"])
                if not deposit_awaiting_application(deposit, today):
                    continue
        todo(
            f"deposit_apply:{deposit.pk}",
            Role.MAGISTRATE,
            entry.pound.district,
            _("Confirm applying the s.15 deposit of %(entry)s as payment")
            % {"entry": entry.register_number},
            reverse("impounding:deposit_apply", args=[deposit.pk]),
            entry.pound,
            "s.15",
        )

    for surplus in SurplusDeposit.objects.filter(
        status=SurplusDeposit.Status.HELD, expires_on__lt=today
    ):
        try:
            with transaction.atomic():
                if transfer_expired_surplus(deposit=surplus, today=today):
                    done["surplus_transferred"] += 1
        except ValidationError:
            done["surplus_waiting_on_claims"] += 1
    for surplus in SurplusDeposit.objects.filter(
        status=SurplusDeposit.Status.AWAITING_RECEIPT
    ).select_related("district", "pound"):
        todo(
            f"surplus_receive:{surplus.pk}",
            Role.DM_CLERK,
            surplus.district,
            _("Receive the surplus of ₹%(amount)s from %(pound)s into deposit (s.17)")
            % {"amount": lakh(surplus.amount), "pound": surplus.pound.name},
            reverse("office:surplus"),
            surplus.pound,
            "s.17",
        )
    for claim in SurplusClaim.objects.filter(status=SurplusClaim.Status.PENDING).select_related(
        "deposit__district", "deposit__pound"
    ):
        todo(
            f"surplus_claim:{claim.pk}",
            Role.MAGISTRATE,
            claim.deposit.district,
            _("Decide %(name)s's claim to a surplus (s.17)") % {"name": claim.claimant_name},
            reverse("office:claim_decide", args=[claim.pk]),
            claim.deposit.pound,
            "s.17",
        )
    for remittance in Remittance.objects.filter(status=Remittance.Status.SENT).select_related(
        "pound__district"
    ):
        todo(
            f"remittance_confirm:{remittance.pk}",
            Role.DM_CLERK,
            remittance.pound.district,
            _("Confirm remittance %(number)s of ₹%(amount)s (s.17)")
            % {"number": remittance.number, "amount": lakh(remittance.amount)},
            reverse("office:remittances"),
            remittance.pound,
            "s.17",
        )
    for order in DisposalOrder.objects.filter(status=DisposalOrder.Status.PROPOSED).select_related(
        "pound__district"
    ):
        todo(
            f"disposal_decide:{order.pk}",
            Role.MAGISTRATE,
            order.pound.district,
            _("Decide disposal order %(number)s (s.14 proviso)") % {"number": order.number},
            reverse("auctions:disposal_decide", args=[order.pk]),
            order.pound,
            "s.14",
        )
    for shortfall in Shortfall.objects.filter(status=Shortfall.Status.PENDING).select_related(
        "pound__district"
    ):
        todo(
            f"shortfall_writeoff:{shortfall.pk}",
            Role.MAGISTRATE,
            shortfall.pound.district,
            _("Write off a shortfall of ₹%(amount)s after a sale")
            % {"amount": lakh(shortfall.total)},
            reverse("office:approvals"),
            shortfall.pound,
            "s.17",
        )
    for order in CourtOrder.objects.filter(reviewed_at__isnull=True).select_related(
        "impoundment__pound__district"
    ):
        pound = order.impoundment.pound
        todo(
            f"court_order_review:{order.pk}",
            Role.DM_CLERK,
            pound.district,
            _("Check the court order %(case)s recorded at %(pound)s against its scan (s.19)")
            % {"case": order.case_number, "pound": pound.name},
            reverse("office:approvals"),
            pound,
            "s.19",
        )

    done["todos_closed"] = todos.close_all_except(keys, PREFIXES)
    done["todos_open"] = len(keys)
    return done


def summary(done):
    parts = [
        f"{key.replace('_', ' ')} {done[key]}"
        for key in (
            "reports_due",
            "notices_due",
            "auctions_due",
            "feeding_missed",
            "deposits_applied",
            "surplus_transferred",
            "surplus_waiting_on_claims",
            "todos_created",
            "todos_closed",
            "todos_open",
        )
    ]
    return "run_deadlines: " + ", ".join(parts)
