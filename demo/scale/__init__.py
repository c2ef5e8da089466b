"""A State-sized data set for benchmarks (`manage.py seed_scale`): many pounds, a few districts,
years of register entries with animals in every state, and the business that follows
them, consistent with what the services write, so that `check_ledger --full` and
`verify_chain --full` pass on it. Rows are built in memory a pound at a time and streamed in
with COPY, their ledger postings balanced and the month totals (ADR 0006) rebuilt from them: a
million entries is a matter of minutes, not hours. With `jobs` above one, worker processes seed
the pounds at once, one core each: a pound's rows depend on nothing another pound writes, so
the data set is the same, bar its ids, however many there are.

The proportions, of a working district's (each drawn per entry from a seeded generator):
- the register: 1-4 animals an entry (1.54 on average); 58% cattle, 25% buffalo, the rest
  goats, sheep, horses, asses and camels; 80% of the cattle and buffalo with a 12-digit
  national ear tag (its Verhoeff check digit valid); 4% of entries lose an animal to death
  and 2% to escape (custody events); a feeding log each day the pound holds cattle, bar 3%
  of days missed (s.27);
- people: owners (named on 70% of entries), seizers, claimants and bidders drawn from about
  6,700 Indian names of six regions with a Zipf-like skew (demo/scale/names.py); 60% of
  seizers and 85% of claimants give a 10-digit mobile number (6-9 first);
- claims: 92.4% of the claimed entries paid (s.13), 7% released on deposit (s.15); 0.5%
  after competing claimants were decided between; 0.3% of payments on a receipt issued in
  error, cancelled by the office, reversed, and issued again;
- deposits: 12% complained of (s.20), 40% of the decided complaints upheld (deposit refunded,
  the seizer's liability recorded, s.22) and the rest dismissed (deposit applied); an
  uncontested deposit whose complaint period ended more than two weeks before the data set's
  end has been confirmed by the office and applied by the daily run; the newer are held;
- unclaimed cattle: 2% of entries nobody claims; reported on the eighth day, the officer's
  notice posted 1-3 days later, both drums the next day (the web's board as well for 30%),
  sold at the first Tuesday auction after the seven days, with bidders, a lot an animal and
  1-4 bids a lot; 80% of lots sold (the proceeds split as s.17 says, a shortfall recorded
  when short and written off after a month), the rest handed to a gaushala (70%) or an
  institution by the Magistrate's order under the proviso (the central pack's "other lawful"
  route); the gaushalas are the district's register, two a district of 300 head each, their
  room shared out between the district's pounds by their shares of the entries, the handover
  certified, and once a pound's part is full its cattle go to an institution;
- gaushala upkeep (ADR 0070): each body's claim for every ended month its handovers give
  animal-days in, all of them, at its agreed rate, prepared in the first days of the next
  month, approved by the Magistrate three days later and paid from the DM's account six days
  after that; of the cattle the bodies hold, 6% die there and 2% escape (never recaptured),
  within a year of their handover; half of these the body reports only after the month was
  paid, recorded three days after the payment: the claim is flagged over-paid and the body's
  next claims deduct it (a claim whose deduction takes it all is approved and not paid); the
  rest are reported the next day and the month's claim counts only the days held
  (demo/scale/gaushala_ends.py);
- the office: the surplus of each sale received in deposit, 8% of them claimed (70% of
  decided claims allowed and paid), the rest credited to revenue after three months (s.17);
  each month's fines remitted from the cash box with a challan in the first days of the
  next month and confirmed by the office days later;
- tariffs: the demo's s.12 scale and s.5 orders, and before them, back to the data set's
  first day, an earlier notification and order at the same rates (master.py), so that every
  animal still in custody, however long ago it came, has its dues.

- court orders: 0.3% of claims won by a Magistrate's or Civil Court's order (s.19), checked
  by the office before the release (ADR 0056), the dues left unpaid;
- refusals: at 0.3% of claims the owner refuses to pay (s.16): his animals are sold at an
  auction 2-5 days later, one lot at a time until the proceeds cover the dues, and the rest
  handed back with the balance and the account.

Left out: births, recaptures, rescues and to-dos.
"""

import multiprocessing
import random
import time
import traceback
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import connection, connections, transaction
from django.utils import timezone

from accounts.models import IssuedDocument
from accounts.scoping import system_actor
from auctions.models import (
    Auction,
    Bid,
    Bidder,
    DisposalOrder,
    DisposalTerms,
    Handover,
    Lot,
    LotAnimal,
    Notice,
    Proclamation,
    Report,
    S16Case,
    Sale,
    Shortfall,
)
from impounding import months as register_months
from impounding.models import (
    Animal,
    Claim,
    Complaint,
    CourtOrder,
    CourtOrderCheck,
    CustodyEvent,
    Deposit,
    FeedingLog,
    Impoundment,
    Receipt,
    ReceiptCancellation,
    Release,
    ReleaseLine,
    SeizerLiability,
)
from kernel.models import Event
from ledger.models import Posting, Transaction
from ledger.services import rebuild_months
from office.models import Remittance, SurplusClaim, SurplusDeposit

from ..register import DEMO_SCAN
from . import books, chain, gaushalas, master, office, plan, sales, write
from .rows import IdPool, Rows, animal_rows, register, reports_in_pound

# The order tables are written in: their foreign keys are checked at commit, in any order, but
# the animals go last, after the sales and orders that the database checks a sold or disposed
# animal against as each row goes in (auctions migration 0002).
TABLES = [
    Impoundment,
    CustodyEvent,
    Report,
    Receipt,
    ReceiptCancellation,
    Claim,
    Release,
    ReleaseLine,
    Deposit,
    Complaint,
    SeizerLiability,
    CourtOrder,
    CourtOrderCheck,
    Notice,
    Proclamation,
    S16Case,
    Auction,
    Bidder,
    Lot,
    LotAnimal,
    Bid,
    Sale,
    DisposalOrder,
    DisposalTerms,
    Handover,
    Shortfall,
    SurplusDeposit,
    SurplusClaim,
    Remittance,
    FeedingLog,
    Transaction,
    Posting,
]
COUNTED = {"entries": Impoundment, "animals": Animal, "receipts": Receipt, "postings": Posting}
SERIES = ("register:", "receipt:", "rep:", "ntc:", "auc:", "dsp:", "gcr:", "rem:")


class ScaleRefused(Exception):
    """The database is not one a scale data set may be written to."""


class WorkerFailed(Exception):
    """A worker process failed on a pound: its traceback, as text, for the parent to show (the
    exception itself may not survive the trip between processes)."""


@dataclass
class Summary:
    counts: Counter
    pounds: int
    districts: int
    seconds: float
    years: int = plan.YEARS

    def line(self):
        c = self.counts
        return (
            f"Scale data set: {c['entries']} register entries, {c['animals']} animals, "
            f"{c['receipts']} receipts, {c['sales']} sales, {c['remittances']} remittances, "
            f"{c['transactions']} ledger transactions, "
            f"{c['events']} events, over {self.pounds} pounds in {self.districts} districts "
            f"and {self.years} year{'s' if self.years != 1 else ''}, "
            f"in {self.seconds:.1f} s."
        )


def _check(append, jobs):
    if connection.vendor != "postgresql":
        raise ScaleRefused("seed_scale writes with PostgreSQL's COPY: run it on PostgreSQL.")
    if not append and Impoundment.objects.exists():
        raise ScaleRefused(
            "The database already holds register entries: pass --append to add to them."
        )
    if jobs > 1 and connection.in_atomic_block:
        # The workers' own connections would not see the master rows written in it.
        raise ScaleRefused("Worker processes cannot see a transaction's rows: inside one, jobs=1.")


def _shares(rng, entries, pounds):
    """Entries per pound: busy pounds take up to three times a quiet one's share."""
    weights = [1 + 2 * rng.random() for _ in range(pounds)]
    total = sum(weights)
    shares = [int(entries * w / total) for w in weights]
    for i in range(entries - sum(shares)):
        shares[i % pounds] += 1
    return shares


@dataclass(frozen=True)
class Shape:
    pounds: int
    districts: int
    years: int


# The State of every size up to a million entries: 40 pounds in 4 districts, each pound taking
# about 6.8 entries a day (a busy district's town pound). A larger data set is a deeper history
# of the same State, a year for each 100,000 entries, so that what a page reads of one day, one
# month or the open business is the same at every size, and only the history grows: a page that
# slows from 100k to 1M reads the history. Past ten years the State grows instead.
POUNDS, DISTRICTS, PER_YEAR, MAX_YEARS = 40, 4, 100_000, 10


def shape(entries):
    """The pounds, districts and years of a data set of `entries` register entries."""
    years = min(MAX_YEARS, max(1, round(entries / PER_YEAR)))
    pounds = max(POUNDS, round(POUNDS * entries / (PER_YEAR * MAX_YEARS)))
    return Shape(pounds=pounds, districts=max(DISTRICTS, -(-pounds // 10)), years=years)


def _anchor():
    """The data set ends at the start of this hour: the same seed gives the same rows all day
    long, bar the hour of the newest entries."""
    return timezone.now().replace(minute=0, second=0, microsecond=0)


@dataclass
class Work:
    """What every pound's seeding reads: made before the workers start, which inherit it."""

    infos: list
    shares: list
    seed: int
    round_: int  # the entries already written: an appended round draws new rows
    now: object
    counters: dict  # {counter key: last serial}; a pound uses and saves its own keys only
    heads: dict  # {chain: (seq, hash)}; a pound continues and saves its own chain only
    system_id: int
    scan: str
    years: int = plan.YEARS


def seed(*, entries, seed=1, pounds=POUNDS, districts=DISTRICTS, years=plan.YEARS, append=False,
         now=None, jobs=1):  # fmt: skip
    """Write `entries` register entries over `pounds` pounds in `districts` districts and the
    last `years` years, `jobs` pounds at a time (each in a worker process of its own when more
    than one)."""
    _check(append, jobs)
    started = time.monotonic()
    infos = master.build(districts=districts, pounds=pounds, years=years)
    now = now or _anchor()
    counters = {}
    for prefix in SERIES:
        counters |= write.counter_values(prefix)
    shares = _shares(random.Random(seed), entries, len(infos))
    gaushalas.apportion(infos, shares)
    work = Work(
        infos=infos,
        shares=shares,
        seed=seed,
        round_=Impoundment.objects.count(),
        now=now,
        counters=counters,
        heads=write.chain_heads(),
        system_id=system_actor().pk,
        scan=_scan(),
        years=years,
    )
    ids = IdPool()
    if jobs > 1:
        counts = _in_workers(work, jobs)
    else:
        counts = sum((_pound(work, ids, i) for i in range(len(infos))), Counter())
    # Each body's upkeep, once every pound of its district has handed cattle to it; the heads
    # as the pounds left them in the database (a worker's are not this process's).
    gaushalas.claims(infos, now, write.chain_heads(), ids)
    # The postings went in by COPY, past ledger.post(): set the month totals from them
    # (docs/decisions/0006).
    with transaction.atomic():
        rebuild_months()
        register_months.rebuild_months()  # the returns' animal totals (docs/decisions/0066)
    # Fresh statistics: the planner otherwise estimates the bulk-loaded tables as nearly empty
    # and picks nested loops over tens of thousands of rows (the board's plan, seen at 100k).
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    seconds = time.monotonic() - started
    return Summary(counts, len(infos), len({i.district_id for i in infos}), seconds, years)


def _pound(work, ids, index):
    """One pound's share, in its own transaction, from its own seeded generator."""
    info = work.infos[index]
    rng = random.Random(f"{work.seed}:{info.code}:{work.round_}")
    with transaction.atomic():
        return _seed_pound(
            info,
            work.shares[index],
            rng,
            work.now,
            work.counters,
            work.heads,
            ids,
            keep_open=3 if index == 0 else 0,
            system_id=work.system_id,
            scan=work.scan,
            years=work.years,
        )


def _in_workers(work, jobs):
    """Seed the pounds in `jobs` forked worker processes, the largest shares first so that no
    worker is left with a big pound at the end; their counts summed. The master rows are
    committed by now, and each worker opens its own connection: a connection shared across a
    fork would mix the processes' replies. The first failure stops the rest: the pounds not yet
    started are cancelled, those running finished, and the failure raised here."""
    connections.close_all()
    order = sorted(range(len(work.infos)), key=lambda i: -work.shares[i])
    context = multiprocessing.get_context("fork")
    counts = Counter()
    with ProcessPoolExecutor(
        jobs, mp_context=context, initializer=_start_worker, initargs=(work,)
    ) as pool:
        futures = [pool.submit(_worker_pound, index) for index in order]
        try:
            for done in as_completed(futures):
                counts += done.result()
        except BaseException:
            pool.shutdown(cancel_futures=True)
            raise
    return counts


_worker = {}  # in a worker process: its Work and its own IdPool (blocks of ids are not shared)


def _start_worker(work):
    _worker.update(work=work, ids=IdPool())


def _worker_pound(index):
    try:
        return _pound(_worker["work"], _worker["ids"], index)
    except Exception:
        code = _worker["work"].infos[index].code
        raise WorkerFailed(f"pound {code}:\n{traceback.format_exc()}") from None
    finally:
        connections.close_all()  # a worker ends without closing its connection otherwise


def _scan():
    """One stored scan of a court's order, which the data set's orders all point to."""
    return default_storage.save("orders/scale-court-order.pdf", ContentFile(DEMO_SCAN))


def _seed_pound(info, count, rng, now, counters, heads, ids, *, keep_open, system_id, scan,
                years):  # fmt: skip
    rows = Rows(
        info=info, ids=ids, rng=rng, counters=counters, now=now, system_id=system_id, scan=scan
    )
    entries = [
        plan.plan_entry(rng, at, now)
        for at in plan.arrivals(rng, count, now, keep_open=min(keep_open, count), years=years)
    ]
    for entry in entries:
        register(rows, entry, rng)
    for entry in sorted((e for e in entries if e.claimed_at), key=lambda e: e.claimed_at):
        books.release(rows, entry, rng)
    sales.unclaimed(rows, entries)
    office.surplus(rows)
    office.remittances(rows)
    office.feeding_logs(rows, entries)
    for entry in entries:
        animal_rows(rows, entry)
    reports_in_pound(rows)
    events = chain.link(rows, heads)
    write.copy_rows(IssuedDocument, rows.tables[IssuedDocument])
    for model in TABLES:
        write.copy_rows(model, rows.tables[model])
    write.copy_links(Report.animals.through, "report_id", "animal_id", rows.report_animals)
    write.copy_links(
        DisposalOrder.animals.through, "disposalorder_id", "animal_id", rows.disposal_animals
    )
    write.copy_links(
        CourtOrder.animals_named.through, "courtorder_id", "animal_id", rows.court_order_animals
    )
    write.copy_links(S16Case.animals.through, "s16case_id", "animal_id", rows.s16_animals)
    write.copy_links(S16Case.returned_animals.through, "s16case_id", "animal_id", rows.s16_returned)
    write.copy_rows(Animal, rows.tables[Animal])
    write.copy_rows(Event, events)
    mine = f":{info.pk}:"
    write.save_counters({k: v for k, v in counters.items() if mine in k})
    write.save_heads({k: v for k, v in heads.items() if k == f"pound:{info.pk}"})
    counts = Counter({name: len(rows.tables[model]) for name, model in COUNTED.items()})
    counts["transactions"] = len(rows.tables[Transaction])
    counts["events"] = len(events)
    counts["sales"] = len(rows.tables[Sale])
    counts["remittances"] = len(rows.tables[Remittance])
    return counts


__all__ = ["seed", "ScaleRefused", "Summary", "WorkerFailed"]
