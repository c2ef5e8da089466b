"""The daily deadline run (`manage.py run_deadlines`): to-dos for every role, keyed by their
condition, closed when it goes away; the date-driven work done once however often it runs;
e-mail to the people who hold the role in the jurisdiction, for new to-dos only."""

from datetime import date, timedelta
from io import StringIO

import pytest
from django.conf import settings
from django.core import mail
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from accounts import todos
from accounts.models import StaffAssignment, ToDo
from accounts.roles import Role
from auctions import services as auctions
from auctions.models import DisposalOrder, Lot, Shortfall
from impounding import services as impounding
from impounding.models import Deposit
from kernel.events import verify_chain
from kernel.formatting import lakh
from kernel.models import Event
from ledger.checks import run_checks
from ledger.models import Posting, Transaction
from office import services as office
from office import statements
from office.deadlines import PREFIXES, run, summary
from office.models import Remittance, SurplusClaim, SurplusDeposit
from office.tasks import requeue_stale
from tests.accounts.factories import PoundFactory, staff
from tests.auctions.factories import (
    conditions,
    ready_for_sale,
    report_and_notice,
    schedule,
    unclaimed_entry,
)
from tests.impounding.factories import court_order, deposit, make_entry
from tests.office.factories import (
    claim,
    fines_collected,
    noon,
    received_surplus,
    remit,
    s14_sale,
)
from tests.pdfs import SCAN_PDF

PDF = SCAN_PDF


@pytest.fixture(autouse=True)
def books_stay_whole():
    yield
    assert run_checks() == []
    assert verify_chain() == []


@pytest.fixture
def standing_order(district, pound, dm_clerk, tariffs):
    # After the pound: a user's reach is worked out once and kept on him, as in a request.
    return conditions(district, by=dm_clerk)


def open_keys():
    return set(ToDo.objects.filter(done_at__isnull=True).values_list("key", flat=True))


def todo(key):
    return ToDo.objects.get(key=key)


def days_ago(n):
    return timezone.now() - timedelta(days=n)


class World:
    """One of each thing the office and the pounds must be reminded of, as of today."""

    def __init__(self, pound, keeper, officer, clerk, magistrate):
        today = timezone.localdate()
        # Impounded eight days ago: the claim week has run out, the report is due today.
        self.unreported = make_entry(pound=pound, by=keeper, arrived_at=days_ago(8))
        # Reported, no notice posted yet; and proposed for disposal under the proviso.
        self.reported = unclaimed_entry(pound=pound, keeper=keeper, days_ago=12)
        self.report = auctions.send_report(entry=self.reported, by=keeper, at=days_ago(3))
        self.disposal = auctions.propose_disposal(
            pound=pound,
            animal_ids=[self.reported.animals.get().pk],
            by=clerk,
            reason="Old and blind: no fair price at auction",
            mode=DisposalOrder.Mode.GAUSHALA,
            recipient="Shri Krishna Gaushala",
        )
        # Under a notice whose eighth day has come, and no auction yet.
        self.for_sale, self.notice = ready_for_sale(pound=pound, keeper=keeper, officer=officer)
        # Released on a deposit twelve days after the seizure: no complaint, no confirmation.
        seized = make_entry(pound=pound, by=keeper, arrived_at=days_ago(12))
        self.deposit = deposit(seized, keeper, at=days_ago(11)).deposit
        # Sales: a surplus at the pound, a surplus held and claimed, a shortfall.
        self.surplus_sale = s14_sale(pound, keeper, officer)
        self.held = received_surplus(pound, keeper, officer, clerk)
        self.claim = claim(self.held, clerk)
        s14_sale(pound, keeper, officer, price="25000.00")
        self.shortfall = Shortfall.objects.get()
        # Fines remitted, not yet confirmed.
        fines_collected(pound, keeper)
        self.remittance = remit(pound, keeper, "20000.00")
        # A court's order recorded, not yet checked by the office: the animal stays.
        entry = make_entry(pound=pound, by=keeper)
        self.court_order = court_order(entry, keeper, order_date=today)
        self.pound = pound
        self.feeding_days = [today - timedelta(days=n) for n in range(1, 8)]

    def run_keys(self):  # the court order's two to-dos were opened as it was recorded
        return self.keys() - {
            f"court_order_review:{self.court_order.pk}",
            f"court_order_waiting:{self.court_order.pk}",
        }

    def keys(self):
        return {
            f"report_due:{self.unreported.pk}",
            f"notice_due:{self.report.pk}",
            f"auction_due:{self.notice.pk}",
            f"deposit_apply:{self.deposit.pk}",
            f"surplus_receive:{self.surplus_sale.surplus_deposit.pk}",
            f"surplus_claim:{self.claim.pk}",
            f"remittance_confirm:{self.remittance.pk}",
            f"disposal_decide:{self.disposal.pk}",
            f"shortfall_writeoff:{self.shortfall.pk}",
            f"court_order_review:{self.court_order.pk}",
            f"court_order_waiting:{self.court_order.pk}",
            f"remit_fines:{self.pound.pk}",
        } | {f"feeding_missed:{self.pound.pk}:{day.isoformat()}" for day in self.feeding_days}


@pytest.fixture
def world(standing_order, pound, pound_keeper, police_officer, dm_clerk, magistrate):
    return World(pound, pound_keeper, police_officer, dm_clerk, magistrate)


def ledger_state():
    return (
        Transaction.objects.count(),
        Posting.objects.count(),
        list(Deposit.objects.order_by("pk").values_list("status", flat=True)),
        list(SurplusDeposit.objects.order_by("pk").values_list("status", flat=True)),
        Event.objects.count(),
    )


# --- The to-dos ------------------------------------------------------------------------------


def test_run_creates_a_to_do_for_each_condition_with_its_key_and_role(world, district, pound):
    done = run()

    assert open_keys() == world.keys()
    roles = {t.key.split(":")[0]: t.role for t in ToDo.objects.all()}
    assert roles == {
        "report_due": Role.POUND_KEEPER,
        "feeding_missed": Role.POUND_KEEPER,
        "remit_fines": Role.POUND_KEEPER,
        "notice_due": Role.POLICE_OFFICER,
        "auction_due": Role.POLICE_OFFICER,
        "deposit_apply": Role.MAGISTRATE,
        "surplus_claim": Role.MAGISTRATE,
        "disposal_decide": Role.MAGISTRATE,
        "shortfall_writeoff": Role.MAGISTRATE,
        "surplus_receive": Role.DM_CLERK,
        "remittance_confirm": Role.DM_CLERK,
        "court_order_review": Role.DM_CLERK,
        "court_order_waiting": Role.POUND_KEEPER,
    }
    assert {(t.district_id, t.pound_id) for t in ToDo.objects.all()} == {(district.pk, pound.pk)}
    report = todo(f"report_due:{world.unreported.pk}")
    assert (report.section, report.due_on) == ("s.14", timezone.localdate())
    assert world.unreported.register_number in report.title
    auction = todo(f"auction_due:{world.notice.pk}")
    assert (auction.section, auction.due_on) == ("s.14", world.notice.earliest_sale)
    assert todo(f"deposit_apply:{world.deposit.pk}").section == "s.15"
    assert todo(f"court_order_review:{world.court_order.pk}").section == "s.19"
    assert "₹5,500.00" in todo(f"shortfall_writeoff:{world.shortfall.pk}").title
    fines = todo(f"remit_fines:{pound.pk}")
    assert fines.url == reverse("office:remittance_new") + f"?pound={pound.pk}"
    due = statements.pound_positions([pound])[pound.pk].fines_due
    assert (fines.section, f"₹{lakh(due)}") == ("s.17", fines.title.split()[1])
    assert done["todos_created"] == len(world.run_keys())
    assert done["todos_open"] == len(world.keys())
    assert (done["reports_due"], done["notices_due"], done["auctions_due"]) == (1, 1, 1)
    assert done["feeding_missed"] == 7
    assert all(key.startswith(PREFIXES) for key in open_keys())


def test_report_to_do_appears_on_the_eighth_day_after_impounding(
    time_machine, pound, pound_keeper, tariffs
):
    time_machine.move_to(noon(date(2027, 3, 1)), tick=False)
    entry = make_entry(pound=pound, by=pound_keeper)
    key = f"report_due:{entry.pk}"

    time_machine.move_to(noon(date(2027, 3, 8)), tick=False)
    run()
    assert key not in open_keys()

    time_machine.move_to(noon(date(2027, 3, 9)), tick=False)
    run()
    assert todo(key).due_on == date(2027, 3, 9)


def test_auction_to_do_appears_on_the_eighth_day_after_the_notice(
    time_machine, standing_order, pound, pound_keeper, police_officer
):
    time_machine.move_to(noon(date(2027, 3, 1)), tick=False)
    entry = make_entry(pound=pound, by=pound_keeper)
    time_machine.move_to(noon(date(2027, 3, 10)), tick=False)
    _report, notice = report_and_notice(
        entry, pound_keeper, police_officer, sent_days_ago=1, posted_days_ago=0
    )
    key = f"auction_due:{notice.pk}"

    time_machine.move_to(noon(date(2027, 3, 17)), tick=False)
    run()
    assert key not in open_keys()

    time_machine.move_to(noon(date(2027, 3, 18)), tick=False)
    run()
    assert key in open_keys()


def test_deposit_to_do_appears_only_after_the_complaint_window(
    time_machine, pound, pound_keeper, tariffs
):
    time_machine.move_to(noon(date(2027, 3, 1)), tick=False)
    held = deposit(make_entry(pound=pound, by=pound_keeper), pound_keeper).deposit
    key = f"deposit_apply:{held.pk}"

    time_machine.move_to(noon(date(2027, 3, 11)), tick=False)
    run()
    assert key not in open_keys()

    time_machine.move_to(noon(date(2027, 3, 12)), tick=False)
    run()
    assert key in open_keys()


def test_each_to_do_closes_when_its_condition_goes_away(
    world, pound, pound_keeper, police_officer, dm_clerk, magistrate
):
    run()
    today = timezone.localdate()

    auctions.send_report(entry=world.unreported, by=pound_keeper)
    auctions.post_notice(
        report=world.report,
        by=police_officer,
        posted_on=today,
        posted_at="Notice board",
        seizure_place="Canal road",
    )
    schedule(pound, police_officer, [[world.for_sale.animals.get()]])
    office.confirm_deposit_application(deposit=world.deposit, by=magistrate)
    office.receive_surplus(
        deposit=world.surplus_sale.surplus_deposit, by=dm_clerk, received_on=today
    )
    office.decide_surplus_claim(
        claim=world.claim, by=magistrate, allow=False, decision="The ear tag does not match"
    )
    office.confirm_remittance(remittance=world.remittance, by=dm_clerk)
    remit(pound, pound_keeper, statements.pound_positions([pound])[pound.pk].fines_due)
    auctions.decide_disposal(order=world.disposal, by=magistrate, approve=True)
    office.write_off_shortfall(shortfall=world.shortfall, by=magistrate)
    # A transfer to a gaushala recovers none of the dues: a shortfall of its own (ADR 0055).
    office.write_off_shortfall(
        shortfall=Shortfall.objects.get(disposal=world.disposal), by=magistrate
    )
    impounding.check_court_order(
        order=world.court_order, by=dm_clerk, outcome="confirmed", how="own_order", reference="1"
    )
    for day in world.feeding_days:
        impounding.log_feeding(
            pound=pound, by=pound_keeper, date=day, animals_fed=3, fodder="Bhusa"
        )

    # Each to-do closed with its work, in the same transaction: none waits for the daily run
    # to stop being overdue (ADR 0032).
    assert open_keys() == set()
    done = run()

    # The report sent today has its notice to post; everything else is done.
    assert open_keys() == {
        f"notice_due:{world.unreported.reports.get().pk}",
        f"remittance_confirm:{Remittance.objects.latest('pk').pk}",
    }
    assert done["todos_closed"] == 0
    closed = ToDo.objects.filter(key__in=world.keys())
    assert all(t.done_at is not None for t in closed)


def test_to_do_opens_again_when_its_condition_comes_back(world, pound, police_officer):
    run()
    auction = schedule(pound, police_officer, [[world.for_sale.animals.get()]])
    run()
    key = f"auction_due:{world.notice.pk}"
    assert key not in open_keys()

    auctions.mark_unsold(lot=auction.lots.get(), by=police_officer, note="No bid")
    done = run()

    assert key in open_keys()
    assert done["todos_created"] == 1
    assert ToDo.objects.filter(key=key).count() == 1


# --- Running twice -----------------------------------------------------------------------------


def test_running_twice_has_no_double_effect(
    time_machine, standing_order, pound, pound_keeper, police_officer, dm_clerk, magistrate
):
    time_machine.move_to(noon(date(2026, 8, 31)), tick=False)
    held = received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    confirmed = deposit(make_entry(pound=pound, by=pound_keeper), pound_keeper).deposit
    office.confirm_deposit_application(deposit=confirmed, by=magistrate)
    waiting = deposit(make_entry(pound=pound, by=pound_keeper), pound_keeper).deposit
    time_machine.move_to(noon(date(2026, 12, 1)), tick=False)

    first = run()
    state, todos_after = ledger_state(), list(ToDo.objects.order_by("pk").values())
    second = run()

    assert (first["surplus_transferred"], first["deposits_applied"]) == (1, 1)
    assert (second["surplus_transferred"], second["deposits_applied"]) == (0, 0)
    assert second["todos_created"] == second["todos_closed"] == 0
    assert second["todos_open"] == first["todos_open"]
    assert ledger_state() == state
    assert list(ToDo.objects.order_by("pk").values()) == todos_after
    held.refresh_from_db()
    confirmed.refresh_from_db()
    assert (held.status, confirmed.status) == (
        SurplusDeposit.Status.TRANSFERRED,
        Deposit.Status.APPLIED,
    )
    assert f"deposit_apply:{waiting.pk}" in open_keys()
    assert f"deposit_apply:{confirmed.pk}" not in open_keys()
    assert Event.objects.filter(action="ledger.surplus_transferred").count() == 1
    assert Event.objects.filter(action="deposit.applied").count() == 1


def test_run_with_the_world_twice_changes_nothing_the_second_time(world):
    run()
    state, keys = ledger_state(), open_keys()

    again = run()

    assert ledger_state() == state
    assert open_keys() == keys
    assert again["todos_created"] == again["todos_closed"] == 0


def test_deposit_confirmed_by_a_magistrate_who_has_left_is_put_to_his_successor(
    time_machine, pound, pound_keeper, magistrate, tariffs
):
    time_machine.move_to(noon(date(2027, 3, 1)), tick=False)
    held = deposit(make_entry(pound=pound, by=pound_keeper), pound_keeper).deposit
    office.confirm_deposit_application(deposit=held, by=magistrate)
    StaffAssignment.objects.filter(user=magistrate).update(valid_to=date(2027, 3, 5))
    time_machine.move_to(noon(date(2027, 3, 12)), tick=False)
    before = ledger_state()

    done = run()

    held.refresh_from_db()
    assert held.status == Deposit.Status.HELD
    assert done["deposits_applied"] == 0
    assert ledger_state() == before
    assert todo(f"deposit_apply:{held.pk}").role == Role.MAGISTRATE


# --- The summary and the command ---------------------------------------------------------------


def test_summary_is_one_line(world):
    line = summary(run())

    assert "\n" not in line
    assert line.startswith("run_deadlines: reports due 1, notices due 1, auctions due 1, ")
    assert f"todos open {len(world.keys())}" in line


def test_command_prints_the_summary(
    time_machine, standing_order, pound, pound_keeper, police_officer, dm_clerk
):
    time_machine.move_to(noon(date(2026, 8, 31)), tick=False)
    received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    time_machine.move_to(noon(date(2026, 12, 5)), tick=False)
    out = StringIO()

    call_command("run_deadlines", date=date(2026, 11, 30), stdout=out)
    call_command("run_deadlines", date=date(2026, 12, 1), stdout=out)

    first, second = out.getvalue().splitlines()
    assert first.startswith("run_deadlines: ") and "surplus transferred 0" in first
    assert "surplus transferred 1" in second
    assert "todos created 0" in second


def test_command_refuses_a_day_that_has_not_come(
    standing_order, pound, pound_keeper, police_officer, dm_clerk
):
    deposit_ = received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    before = ledger_state()

    with pytest.raises(CommandError, match="has not come"):
        call_command("run_deadlines", date=deposit_.expires_on + timedelta(days=1))
    with pytest.raises(ValueError):
        run(today=timezone.localdate() + timedelta(days=1))

    assert ledger_state() == before
    assert not ToDo.objects.exists()


# --- E-mail --------------------------------------------------------------------------------


IMMEDIATE = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
QUEUE = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}


@pytest.fixture
def mailed(pound_keeper, police_officer, dm_clerk, magistrate, district, other_district, settings):
    """Everyone has an address; a second clerk in the district, a keeper of another pound in
    it, and a Magistrate of another district are there to be left out. The mail's task runs as
    soon as it is enqueued, as in development."""
    settings.TASKS = IMMEDIATE
    people = {
        "pound_keeper": pound_keeper,
        "police_officer": police_officer,
        "dm_clerk": dm_clerk,
        "magistrate": magistrate,
        "second_clerk": staff(Role.DM_CLERK, "second_clerk", district=district),
        "other_keeper": staff(
            Role.POUND_KEEPER, "other_keeper", pound=PoundFactory(district=district)
        ),
        "other_magistrate": staff(Role.MAGISTRATE, "other_mag", district=other_district),
        "auditor": staff(Role.AUDITOR, "auditor2", district=district),
    }
    for name, user in people.items():
        user.email = f"{name}@example.gov.in"
        user.save(update_fields=["email"])
    return people


def mails_for(subject_part):
    return [m for m in mail.outbox if subject_part in m.subject]


def test_new_to_dos_are_mailed_to_the_role_in_the_jurisdiction_once(
    world, mailed, django_capture_on_commit_callbacks
):
    mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        run()

    assert len(mail.outbox) == len(world.run_keys())
    (shortfall,) = mails_for("Write off a shortfall")
    assert shortfall.to == ["magistrate@example.gov.in"]
    (remittance,) = mails_for(f"Confirm remittance {world.remittance.number}")
    assert sorted(remittance.to) == ["dm_clerk@example.gov.in", "second_clerk@example.gov.in"]
    (report,) = mails_for("Report the unclaimed cattle")
    assert report.to == ["pound_keeper@example.gov.in"]
    (notice,) = mails_for("Post the notice")
    assert notice.to == ["police_officer@example.gov.in"]
    assert report.subject.startswith("[PoundAdmin] ")
    url = reverse("auctions:report_send", args=[world.unreported.pk])
    assert f"Open: {settings.PUBLIC_BASE_URL}{url}" in report.body
    everyone = {address for m in mail.outbox for address in m.to}
    assert not everyone & {
        "other_keeper@example.gov.in",
        "other_magistrate@example.gov.in",
        "auditor@example.gov.in",
    }

    with django_capture_on_commit_callbacks(execute=True):
        run()

    assert len(mail.outbox) == len(world.run_keys())


def test_the_mail_is_a_task_on_the_worker_sent_once_however_often_it_runs(
    world, mailed, settings, django_capture_on_commit_callbacks
):
    settings.TASKS = QUEUE
    mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        run()

    # The run only enqueued: one task for all the new to-dos, and nothing mailed yet.
    queued = DBTaskResult.objects.filter(task_path="accounts.todos.mail_todos")
    assert queued.count() == 1 and mail.outbox == []
    (ids,) = queued.values_list("args_kwargs", flat=True)
    ids = ids["args"][0]
    assert len(ids) == len(world.run_keys())
    todo_id = ids[0]
    # The worker runs it; a retry (the worker died after sending) mails nothing more.
    assert todos.mail_todo.call(todo_id) is True
    assert todos.mail_todo.call(todo_id) is False
    assert len(mail.outbox) == 1
    assert ToDo.objects.get(pk=todo_id).mailed_at is not None
    # The run's own task mails the rest, once each, and nothing on a retry.
    assert todos.mail_todos.call(ids) == len(ids) - 1
    assert todos.mail_todos.call(ids) == 0
    assert not ToDo.objects.filter(pk__in=ids, mailed_at__isnull=True).exists()


def test_a_mail_whose_worker_died_is_enqueued_again(district, mailed, settings):
    settings.TASKS = QUEUE
    todo, _created = todos.upsert(
        key="shortfall_writeoff:998", role=Role.MAGISTRATE, district=district, title="W", url="/"
    )
    ToDo.objects.filter(pk=todo.pk).update(created_at=timezone.now() - timedelta(hours=1))
    assert requeue_stale(older_than=timedelta(minutes=30)) == 1
    todos.mail_todo.call(todo.pk)
    assert requeue_stale(older_than=timedelta(minutes=30)) == 0  # mailed: nothing to redo


def test_upsert_mails_only_when_the_to_do_is_new(
    pound, district, magistrate, mailed, django_capture_on_commit_callbacks
):
    mail.outbox.clear()
    fields = dict(
        key="shortfall_writeoff:999",
        role=Role.MAGISTRATE,
        district=district,
        title="Write off",
        url="/office/",
        pound=pound,
    )

    with django_capture_on_commit_callbacks(execute=True):
        first, created = todos.upsert(**fields)
        again, created_again = todos.upsert(**fields)

    assert (created, created_again, first.pk) == (True, False, again.pk)
    assert [m.to for m in mail.outbox] == [["magistrate@example.gov.in"]]
    assert list(todos.for_user(magistrate)) == [first]
    assert list(todos.for_user(mailed["other_magistrate"])) == []
    assert list(todos.for_user(mailed["dm_clerk"])) == []


def test_nothing_is_mailed_when_nobody_holding_the_role_has_an_address(
    world, django_capture_on_commit_callbacks
):
    mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        run()

    assert mail.outbox == []
    assert open_keys() == world.keys()


def test_surplus_waiting_on_a_claim_is_counted_not_transferred(
    time_machine, standing_order, pound, pound_keeper, police_officer, dm_clerk
):
    time_machine.move_to(noon(date(2026, 8, 31)), tick=False)
    held = received_surplus(pound, pound_keeper, police_officer, dm_clerk)
    time_machine.move_to(noon(date(2026, 11, 25)), tick=False)
    pending = claim(held, dm_clerk)
    time_machine.move_to(noon(date(2026, 12, 2)), tick=False)

    done = run()

    assert (done["surplus_transferred"], done["surplus_waiting_on_claims"]) == (0, 1)
    assert f"surplus_claim:{pending.pk}" in open_keys()
    with pytest.raises(ValidationError):
        office.transfer_expired_surplus(deposit=held)
    assert SurplusClaim.objects.get().status == SurplusClaim.Status.PENDING
    assert Remittance.objects.count() == 0
    assert Lot.objects.count() == 1


def test_no_notice_to_post_once_the_reported_cattle_are_all_claimed(
    standing_order, pound, pound_keeper
):
    """s.14's notice is for cattle still unclaimed: a report whose cattle were all released
    after it was sent asks nobody to post one (as the overdue board counts it)."""
    from tests.impounding.factories import pay

    entry = unclaimed_entry(pound=pound, keeper=pound_keeper, days_ago=12)
    report = auctions.send_report(entry=entry, by=pound_keeper, at=days_ago(3))
    run()
    assert f"notice_due:{report.pk}" in open_keys()
    pay(entry, pound_keeper)
    done = run()
    assert f"notice_due:{report.pk}" not in open_keys()
    assert done["notices_due"] == 0
