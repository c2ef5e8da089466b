"""Races: two people confirming at the same moment. Needs PostgreSQL's row locks; each thread
has its own connection and commits for real."""

import threading
import uuid
from datetime import timedelta

import pytest
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.utils import timezone

from impounding import services
from impounding.models import Animal, AnimalState, Impoundment, Receipt, Release
from kernel.events import record_event, verify_chain
from kernel.models import Event
from ledger.checks import run_checks
from ledger.models import Transaction
from tests.impounding.factories import cow, make_entry, pay

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def race(*calls):
    """Run the calls in threads released together by a barrier; return (results, errors)."""
    barrier = threading.Barrier(len(calls))
    results, errors = [None] * len(calls), [None] * len(calls)

    def run(i, call):
        try:
            barrier.wait(timeout=10)
            results[i] = call()
        except Exception as exc:  # the test inspects what each thread met
            errors[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a thread is stuck: a deadlock?"
    return results, errors


@pytest.fixture
def entry(pound, pound_keeper, tariffs):
    return make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow()])


def release_in_thread(entry_pk, by, key):
    def call():
        entry = Impoundment.objects.get(pk=entry_pk)
        animal = entry.animals.get(number=1)
        return pay(entry, by, [animal], key=key)

    return call


def test_two_releases_of_one_animal_at_once_let_exactly_one_through(entry, pound_keeper):
    results, errors = race(
        release_in_thread(entry.pk, pound_keeper, uuid.uuid4()),
        release_in_thread(entry.pk, pound_keeper, uuid.uuid4()),
    )

    winners = [r for r in results if r is not None]
    assert len(winners) == 1
    (loser,) = [e for e in errors if e is not None]
    assert isinstance(loser, ValidationError)
    assert "no longer in the pound" in str(loser)
    assert Release.objects.count() == Receipt.objects.count() == Transaction.objects.count() == 1
    assert Receipt.objects.get().serial == 1
    animal = Animal.objects.get(impoundment=entry, number=1)
    assert (animal.state, animal.release_id) == (AnimalState.RELEASED_PAID, winners[0].pk)
    assert Event.objects.filter(action="release.paid").count() == 1
    assert run_checks() == []
    assert verify_chain() == []


def test_the_same_confirmation_sent_twice_at_once_gives_one_release_to_both(entry, pound_keeper):
    key = uuid.uuid4()

    results, errors = race(
        release_in_thread(entry.pk, pound_keeper, key),
        release_in_thread(entry.pk, pound_keeper, key),
    )

    assert errors == [None, None]
    assert results[0].pk == results[1].pk
    assert Release.objects.count() == Receipt.objects.count() == Transaction.objects.count() == 1
    assert run_checks() == []


def test_two_writers_on_one_chain_keep_it_unbroken(pound, pound_keeper):
    def writer(name):
        def call():
            for i in range(8):
                with transaction.atomic():
                    record_event(
                        action="test.append",
                        section="",
                        summary=f"{name} {i}",
                        by=pound_keeper,
                        pound=pound,
                    )
            return name

        return call

    results, errors = race(writer("a"), writer("b"))

    assert errors == [None, None]
    seqs = list(Event.objects.filter(chain=f"pound:{pound.pk}").values_list("seq", flat=True))
    assert sorted(seqs) == list(range(1, 17))
    assert verify_chain() == []


def test_two_births_at_once_get_different_numbers(pound, pound_keeper):
    entry = make_entry(pound=pound, by=pound_keeper, animals=[cow(), cow()])
    at = timezone.now() - timedelta(minutes=30)

    def birth(number):
        def call():
            dam = Animal.objects.get(impoundment=entry, number=number)
            return services.record_birth(
                dam=dam, by=pound_keeper, at=at, sex="female", colour="Red"
            ).number

        return call

    results, errors = race(birth(1), birth(2))

    assert errors == [None, None]
    assert sorted(results) == [3, 4]
    assert sorted(entry.animals.values_list("number", flat=True)) == [1, 2, 3, 4]
    assert verify_chain() == []


def test_ten_identical_intake_posts_at_once_make_one_entry(pound, pound_keeper, tariffs):
    key = uuid.uuid4()

    def intake():
        return make_entry(pound=pound, by=pound_keeper, idempotency_key=key)

    results, errors = race(*[intake] * 10)

    assert errors == [None] * 10
    assert len({entry.pk for entry in results}) == 1
    assert Impoundment.objects.filter(idempotency_key=key).count() == 1
    assert Event.objects.filter(action="register.entered").count() == 1
    assert verify_chain() == []
