"""The daily deadline run (`manage.py run_deadlines`): the date-driven work of the Act.

Two registries say what the run does. WORK holds the steps that act on the date: a deposit the
Magistrate confirmed in advance is applied once the complaint window has closed (s.15), and a
surplus unclaimed for three months is credited to revenue (s.17). They act as the system actor
(`accounts.scoping.system_actor`), checked like any person and holding only those two
permissions. RULES holds one rule per kind of to-do: its key prefix, the role it serves and a
function yielding the to-dos due today. The run closes the open to-dos of the rules' prefixes
that it did not yield again, so no kind of to-do can be left out of the closing.

The run ends by signing every chain's head (kernel/anchors.py), after its own work, so the
links it wrote are signed at once rather than within the hour.

Safe to run twice and from cron: every effect is guarded by the state it changes (a deposit is
applied once, a surplus transferred once, under row locks), and to-dos are keyed by their
condition. Overlapping runs therefore do the work once between them.
"""

import logging
from collections import Counter as Tally
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta

from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone

from accounts import todos
from accounts.roles import Permission, Role
from accounts.scoping import has_permission, system_actor
from auctions.clocks import reports_due, run_out_unsold
from auctions.models import DisposalOrder, Notice, Report, Shortfall, UpkeepClaim
from impounding.inspections import TODO as INSPECTION_TODO
from impounding.inspections import UNFIT_TODO, requirement
from impounding.models import (
    Claim,
    CourtOrder,
    Deposit,
    Impoundment,
    ReceiptCancellation,
)
from impounding.selectors import (
    REJECTED_SHOWN_DAYS,
    awaiting_direction,
    awaiting_inspection,
    missing_feeding_by_pound,
)
from impounding.services import apply_deposit, deposit_awaiting_application
from impounding.services.directions import direction_todo
from impounding.services.inspections import todo_fields as inspection_todo
from kernel import held_uploads
from kernel.anchors import write_checkpoint
from kernel.formatting import lakh
from kernel.messages import Message as _  # to-do titles: translated when they are shown
from kernel.messages import bilingual

from . import statements
from .district_days import Day, Due, district_days, url
from .models import Remittance, SurplusClaim, SurplusDeposit
from .services import transfer_expired_surplus

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Rule:
    prefix: str
    role: str
    dues: Callable[[Day], Iterable[Due]]
    tally: str = ""  # the summary's count of the to-dos the rule yields, for those it has


# --- The work of the day --------------------------------------------------------------------


def _held_deposits(day):
    """The held deposits with the complaints `deposit_awaiting_application` reads, prefetched:
    two queries for them all rather than two a deposit."""
    return (
        Deposit.objects.filter(day.scope("release__impoundment__pound__district"))
        .filter(status=Deposit.Status.HELD)
        .select_related("release__impoundment__pound__district")
        .prefetch_related("complaints", "release__impoundment__complaints")
    )


def apply_confirmed_deposits(day):
    """s.15: a deposit the Magistrate confirmed in advance becomes the payment once the complaint
    window has closed with no complaint upheld or pending. His confirmation stands while he holds
    the office; once he has left, his successor is asked instead (the deposit_apply: to-do)."""
    for deposit in (
        _held_deposits(day)
        .filter(application_confirmed_by__isnull=False)
        .select_related("application_confirmed_by")
    ):
        pound = deposit.release.impoundment.pound
        if not deposit_awaiting_application(deposit, day.today):
            continue
        if not has_permission(deposit.application_confirmed_by, Permission.APPROVE, pound):
            continue
        try:
            apply_deposit(deposit=deposit, by=day.actor)
        except ValidationError:
            continue  # applied meanwhile by an overlapping run, or no longer applicable
        day.done["deposits_applied"] += 1


def transfer_expired_surpluses(day):
    """s.17: a surplus held past its three months goes to revenue, unless a claim made in time
    still awaits the Magistrate's decision."""
    for surplus in SurplusDeposit.objects.filter(
        day.scope(), status=SurplusDeposit.Status.HELD, expires_on__lt=day.today
    ):
        try:
            if transfer_expired_surplus(deposit=surplus, by=day.actor, today=day.today):
                day.done["surplus_transferred"] += 1
        except ValidationError:
            day.done["surplus_waiting_on_claims"] += 1


def sign_checkpoint(day):
    """Sign every chain's head and store the signed checkpoint outside the database
    (kernel/anchors.py), as the hourly timer does: the run's last step, after its transfers,
    deposits and to-dos, so the links it wrote are signed now rather than within the hour. A
    chain that does not extend the last signed checkpoint is not signed over: the run says so
    loudly."""
    checkpoint, problems = write_checkpoint()
    for chain, seq, what in problems:
        logger.error("checkpoint not signed: chain %s, link %s: %s", chain, seq, what)
    day.done["checkpoint_signed"] += checkpoint is not None
    day.done["checkpoint_refused"] += len(problems)


def sweep_held_uploads(day):
    """The photos held for a form that was abandoned (kernel/held_uploads.py) go once their
    token has expired, a day after they were held."""
    day.done["held_files_swept"] += held_uploads.sweep()


# Each district's, on its own day (ADR 0080); sweep_held_uploads is the run's, on real time.
WORK = (apply_confirmed_deposits, transfer_expired_surpluses)


# --- The to-dos, one rule each ----------------------------------------------------------------


def reports_to_send(day):
    pounds = {p.pk: p for p in day.pounds}
    for row in reports_due(list(pounds), day.today):
        entry = row["entry"]
        pound = pounds[entry.pound_id]
        yield Due(
            entry.pk,
            pound.district,
            pound,
            _("Report the unclaimed cattle of %(entry)s to the officer (s.14)")
            % {"entry": entry.register_number},
            url("auctions:report_send", entry.pk),
            "s.14",
            row["due_on"],
        )


def feeding_days_missed(day):
    week = (day.today - timedelta(days=7), day.today - timedelta(days=1))
    # All the pounds at once: a few queries, not a few a pound.
    missing = missing_feeding_by_pound([p.pk for p in day.pounds], *week)
    for pound in day.pounds:
        for missed in missing.get(pound.pk, []):
            yield Due(
                f"{pound.pk}:{missed.isoformat()}",
                pound.district,
                pound,
                _("No feeding record for %(date)s at %(pound)s (ss.9, 27)")
                % {
                    "date": missed.strftime("%d-%m-%Y"),
                    "pound": bilingual(pound.name, pound.name_hi),
                },
                url("impounding:feeding_log", pound.pk) + f"?date={missed.isoformat()}",
                "s.9",
                missed,
            )


def fines_to_remit(day):
    """The fines a pound has collected for the District Magistrate and not yet sent (s.17)."""
    for position in statements.pound_positions(day.pounds).values():
        if position.fines_due <= 0:
            continue
        pound = position.pound
        yield Due(
            pound.pk,
            pound.district,
            pound,
            _("Send ₹%(amount)s of fines collected at %(pound)s to the District Magistrate (s.17)")
            % {"amount": lakh(position.fines_due), "pound": pound.name},
            reverse("office:remittance_new") + f"?pound={pound.pk}",
            "s.17",
        )


def notices_to_post(day):
    """Reports with no notice posted while cattle they name are still in the pound: a report
    whose cattle were all claimed after it was sent needs no notice (as the overdue board)."""
    # The open reports alone, by the count the database keeps (Report.in_pound, ADR 0094).
    pounds = {p.pk: p for p in day.pounds}
    reports = Report.objects.filter(
        day.scope("pound__district"), in_pound__gt=0, notice__isnull=True
    ).values_list("pk", "number", "pound_id")
    for pk, number, pound_id in reports:
        pound = pounds[pound_id]
        yield Due(
            pk,
            pound.district,
            pound,
            _("Post the notice for report %(number)s and have it proclaimed (s.14)")
            % {"number": number},
            url("auctions:notice_post", pk),
            "s.14",
        )


def auctions_due(day):
    # The notices' ids first (tens): as a subquery, the planner joined every notice posted.
    run_out = set(run_out_unsold(day.today).values_list("report__notice", flat=True))
    for notice in Notice.objects.filter(
        day.scope("pound__district"), pk__in=run_out
    ).select_related("pound__district", "report"):
        yield Due(
            notice.pk,
            notice.pound.district,
            notice.pound,
            _(
                "Sell by public auction, or seek the District Magistrate's order: notice "
                "%(number)s ran out on %(date)s (s.14)"
            )
            % {"number": notice.number, "date": notice.last_day_to_claim.strftime("%d-%m-%Y")},
            url("auctions:report", notice.report_id),
            "s.14",
            notice.earliest_sale,
        )


def deposits_to_apply(day):
    """The deposits that may be applied and were not by the work of the day: never confirmed,
    or confirmed by a Magistrate who has since left."""
    for deposit in _held_deposits(day):
        if not deposit_awaiting_application(deposit, day.today):
            continue
        entry = deposit.release.impoundment
        yield Due(
            deposit.pk,
            entry.pound.district,
            entry.pound,
            _("Confirm applying the s.15 deposit of %(entry)s as payment")
            % {"entry": entry.register_number},
            url("impounding:deposit_apply", deposit.pk),
            "s.15",
        )


def surpluses_to_receive(day):
    for surplus in SurplusDeposit.objects.filter(
        day.scope(), status=SurplusDeposit.Status.AWAITING_RECEIPT
    ).select_related("district", "pound"):
        yield Due(
            surplus.pk,
            surplus.district,
            surplus.pound,
            _("Receive the surplus of ₹%(amount)s from %(pound)s into deposit (s.17)")
            % {
                "amount": lakh(surplus.amount),
                "pound": bilingual(surplus.pound.name, surplus.pound.name_hi),
            },
            reverse("office:surplus"),
            "s.17",
        )


def claims_to_decide(day):
    for claim in SurplusClaim.objects.filter(
        day.scope("deposit__district"), status=SurplusClaim.Status.PENDING
    ).select_related("deposit__district", "deposit__pound"):
        yield Due(
            claim.pk,
            claim.deposit.district,
            claim.deposit.pound,
            _("Decide %(name)s's claim to a surplus (s.17)") % {"name": claim.claimant_name},
            url("office:claim_decide", claim.pk),
            "s.17",
        )


def remittances_to_confirm(day):
    for remittance in Remittance.objects.filter(
        day.scope("pound__district"), status=Remittance.Status.SENT
    ).select_related("pound__district"):
        yield Due(
            remittance.pk,
            remittance.pound.district,
            remittance.pound,
            _("Confirm remittance %(number)s of ₹%(amount)s (s.17)")
            % {"number": remittance.number, "amount": lakh(remittance.amount)},
            reverse("office:remittances"),
            "s.17",
        )


def disposals_to_decide(day):
    for order in DisposalOrder.objects.filter(
        day.scope("pound__district"), status=DisposalOrder.Status.PROPOSED
    ).select_related("pound__district"):
        yield Due(
            order.pk,
            order.pound.district,
            order.pound,
            _("Decide disposal order %(number)s (s.14 proviso)") % {"number": order.number},
            url("auctions:disposal_decide", order.pk),
            "s.14",
        )


def claims_on_hold(day):
    """Entries whose release is on hold while two people claim the cattle (decision 14)."""
    held = Claim.objects.held_entry_ids([p.pk for p in day.pounds])
    for entry in Impoundment.objects.filter(pk__in=held).select_related("pound__district"):
        yield Due(
            entry.pk,
            entry.pound.district,
            entry.pound,
            _("Release on hold: decide the competing claims to %(number)s")
            % {"number": entry.register_number},
            url("impounding:claims_decide", entry.pk),
            "s.13",
        )


def receipt_cancellations_to_decide(day):
    """Receipts a pound-keeper asked to cancel, awaiting the office (decision 11)."""
    asked = ReceiptCancellation.objects.filter(
        day.scope("receipt__pound__district"), status=ReceiptCancellation.Status.PENDING
    ).select_related("receipt__pound__district")
    for cancellation in asked:
        receipt = cancellation.receipt
        yield Due(
            cancellation.pk,
            receipt.pound.district,
            receipt.pound,
            _("Decide the cancellation of receipt %(number)s") % {"number": receipt.number},
            url("impounding:receipt_cancellation_decide", cancellation.pk),
            "s.13",
        )


def upkeep_claims_to_decide(day):
    """A gaushala's monthly upkeep claim prepared by the office (ADR 0070)."""
    for claim in UpkeepClaim.objects.filter(
        day.scope("gaushala__district"), status=UpkeepClaim.Status.PROPOSED
    ).select_related("gaushala__district"):
        yield Due(
            claim.pk,
            claim.gaushala.district,
            None,
            _("Decide the upkeep claim %(number)s of %(name)s")
            % {"number": claim.number, "name": claim.gaushala.name},
            url("auctions:upkeep_claim_decide", claim.pk),
            "s.14",
        )


def shortfalls_to_write_off(day):
    for shortfall in Shortfall.objects.filter(
        day.scope("pound__district"), status=Shortfall.Status.PENDING
    ).select_related("pound__district"):
        yield Due(
            shortfall.pk,
            shortfall.pound.district,
            shortfall.pound,
            _("Write off a shortfall of ₹%(amount)s after a sale")
            % {"amount": lakh(shortfall.total)},
            reverse("office:approvals"),
            "s.17",
        )


def court_orders_to_check(day):
    for order in (
        CourtOrder.objects.to_check()
        .filter(day.scope("impoundment__pound__district"))
        .select_related("impoundment__pound__district")
    ):
        pound = order.impoundment.pound
        yield Due(
            order.pk,
            pound.district,
            pound,
            _("Check the court order %(case)s recorded at %(pound)s (s.19)")
            % {"case": order.case_number, "pound": bilingual(pound.name, pound.name_hi)},
            url("office:court_order_review", order.pk),
            "s.19",
        )


def court_orders_waiting(day):
    """The keeper's: an order he recorded waits for its check, the animals still in the pound."""
    for order in CourtOrder.objects.filter(
        day.scope("impoundment__pound__district"), status=CourtOrder.Status.AWAITING
    ).select_related("impoundment__pound__district"):
        pound = order.impoundment.pound
        yield Due(
            order.pk,
            pound.district,
            pound,
            _("Court order %(case)s awaits the office's check: the animals stay")
            % {"case": order.case_number},
            url("impounding:entry", order.impoundment_id),
            "s.19",
        )


def court_orders_rejected(day):
    """The keeper's: an order rejected on its check, shown for REJECTED_SHOWN_DAYS days."""
    since = timezone.now() - timedelta(days=REJECTED_SHOWN_DAYS)
    for order in CourtOrder.objects.filter(
        day.scope("impoundment__pound__district"),
        status=CourtOrder.Status.REJECTED,
        reviewed_at__gte=since,
    ).select_related("impoundment__pound__district"):
        pound = order.impoundment.pound
        yield Due(
            order.pk,
            pound.district,
            pound,
            _("Court order %(case)s rejected on the check: %(reason)s")
            % {"case": order.case_number, "reason": order.review_note[:150]},
            url("impounding:entry", order.impoundment_id),
            "s.19",
        )


def inspections_due(day):
    """The keeper's: an open entry whose pack requires a veterinary inspection at intake and
    that has none recorded (ADR 0071); due by the pack's hours where the State gives them. The
    to-do is the one intake opens (`inspection_todo`), so the two never differ."""
    entries = awaiting_inspection().filter(day.scope("pound__district"))
    for entry in entries.select_related("pound__district"):
        fields = inspection_todo(entry, requirement(entry))
        del fields["role"]  # the rule's
        yield Due(entry.pk, **fields)


def unfit_awaiting_direction(day):
    """The keeper's: an animal in the pound the veterinary officer found unfit, awaiting the
    Magistrate's direction under rule 3(b) of the 2017 Rules (ADR 0071). No due date: the Rules
    give none. The to-do is the one the inspection opens (`direction_todo`)."""
    findings = awaiting_direction().filter(day.scope("animal__impoundment__pound__district"))
    for finding in findings.select_related("animal__impoundment__pound__district"):
        fields = direction_todo(finding, finding.animal.impoundment)
        del fields["role"]  # the rule's
        yield Due(finding.pk, **fields)


RULES = (
    Rule("report_due:", Role.POUND_KEEPER, reports_to_send, tally="reports_due"),
    Rule("feeding_missed:", Role.POUND_KEEPER, feeding_days_missed, tally="feeding_missed"),
    Rule("remit_fines:", Role.POUND_KEEPER, fines_to_remit),
    Rule("notice_due:", Role.POLICE_OFFICER, notices_to_post, tally="notices_due"),
    Rule("auction_due:", Role.POLICE_OFFICER, auctions_due, tally="auctions_due"),
    Rule("deposit_apply:", Role.MAGISTRATE, deposits_to_apply),
    Rule("surplus_receive:", Role.DM_CLERK, surpluses_to_receive),
    Rule("surplus_claim:", Role.MAGISTRATE, claims_to_decide),
    Rule("remittance_confirm:", Role.DM_CLERK, remittances_to_confirm),
    Rule("disposal_decide:", Role.MAGISTRATE, disposals_to_decide),
    Rule("shortfall_writeoff:", Role.MAGISTRATE, shortfalls_to_write_off),
    Rule("upkeep_decide:", Role.MAGISTRATE, upkeep_claims_to_decide),
    Rule("claims_hold:", Role.POLICE_OFFICER, claims_on_hold),
    Rule("receipt_cancel:", Role.DM_CLERK, receipt_cancellations_to_decide),
    Rule("court_order_review:", Role.DM_CLERK, court_orders_to_check),
    Rule("court_order_waiting:", Role.POUND_KEEPER, court_orders_waiting),
    Rule("court_order_rejected:", Role.POUND_KEEPER, court_orders_rejected),
    Rule(INSPECTION_TODO, Role.POUND_KEEPER, inspections_due, tally="inspections_due"),
    Rule(UNFIT_TODO, Role.POUND_KEEPER, unfit_awaiting_direction),
)
# The kinds of to-do the run owns, and so closes when their condition has gone.
PREFIXES = tuple(rule.prefix for rule in RULES)


# --- The run ----------------------------------------------------------------------------------


def run(today=None, district=None):
    """Do the day's work; returns a Tally of what was done, for the one-line summary. Each
    district's work is done on its own day (ADR 0080): the real districts' together on `today`
    (real today if not given), each training district's on its own clock's day (shifted as far
    back as `today` is). With `district` (a training district), that district's alone: its
    to-dos are made and closed, and nothing of the others, nor the checkpoint, is touched."""
    real = timezone.localdate()
    today = today or real
    if today > real:
        # A day that has not come would lift surplus and apply deposits before their time.
        raise ValueError(f"cannot run for {today:%d-%m-%Y}: that day has not come yet")
    done = Tally()
    wanted = {}
    actor = system_actor()
    for on, training in district_days(today - real, district):
        day = Day(today=on, actor=actor, done=done, training=training)
        for step in WORK:
            step(day)
        wanted.update(_wanted(day))
    # In bulk: a lookup a to-do grew with the number of to-dos open, not with the day's changes.
    only = None if district is None else [district.pk]
    created, closed = todos.sync(wanted, PREFIXES, districts=only)
    done["todos_created"] = created
    done["todos_closed"] = closed
    done["todos_open"] = len(wanted)
    if district is None:
        sweep_held_uploads(day)
        sign_checkpoint(day)  # last, so that it signs every link the run wrote
    return done


def _wanted(day):
    wanted = {}
    for rule in RULES:
        for due in rule.dues(day):
            if not day.holds(due.district):
                continue
            wanted[f"{rule.prefix}{due.condition}"] = {
                "role": rule.role,
                "district": due.district,
                "title": due.title,
                "url": due.url,
                "pound": due.pound,
                "section": due.section,
                "due_on": due.due_on,
            }
            if rule.tally:
                day.done[rule.tally] += 1
    return wanted


def summary(done):
    parts = [
        f"{key.replace('_', ' ')} {done[key]}"
        for key in (
            "reports_due",
            "notices_due",
            "auctions_due",
            "feeding_missed",
            "inspections_due",
            "deposits_applied",
            "surplus_transferred",
            "surplus_waiting_on_claims",
            "checkpoint_signed",
            "checkpoint_refused",
            "held_files_swept",
            "todos_created",
            "todos_closed",
            "todos_open",
        )
    ]
    return "run_deadlines: " + ", ".join(parts)
