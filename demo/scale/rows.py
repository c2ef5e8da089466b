"""The rows of one pound's share of a scale data set, built in memory with their ids, as the
services would have written them: register entries and animals, deaths and escapes, reports of
unclaimed cattle (s.14), releases on payment (s.13) and on deposit (s.15) with their receipts,
issued documents and ledger transactions."""

import base64
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from accounts.models import IssuedDocument
from auctions.actions import Action as SalesAction
from auctions.models import Report
from impounding.actions import Action
from impounding.models import (
    Animal,
    AnimalState,
    CustodyEvent,
    Impoundment,
    SeizerCapacity,
    SeizureBasis,
)
from ledger.models import Posting, Transaction

from . import plan
from .write import take_ids

BLOCK = 5000


class IdPool:
    """Primary keys drawn from each table's sequence a block at a time."""

    def __init__(self):
        self._free = defaultdict(list)

    def next(self, model):
        free = self._free[model]
        if not free:
            free.extend(reversed(take_ids(model, BLOCK)))
        return free.pop()


@dataclass
class Rows:
    info: object
    ids: IdPool
    rng: object
    tables: dict = field(default_factory=lambda: defaultdict(list))
    report_animals: list = field(default_factory=list)
    disposal_animals: list = field(default_factory=list)  # (order id, animal id)
    court_order_animals: list = field(default_factory=list)  # (order id, animal id)
    s16_animals: list = field(default_factory=list)  # (case id, animal id)
    s16_returned: list = field(default_factory=list)  # (case id, animal id)
    scan: str = ""  # the stored scan the court orders point to
    sales: list = field(default_factory=list)  # the s.14 sales, for the office's surplus
    events: list = field(default_factory=list)  # (at, order, fields), chained later
    counters: dict = field(default_factory=dict)  # {counter key: last serial}
    now: object = None  # the data set's end: what is older has been worked through
    system_id: int = 0  # the daily run's user (accounts.scoping.system_actor)

    def add(self, model, **values):
        values["id"] = self.ids.next(model)
        self.tables[model].append(values)
        return values["id"]

    def event(
        self,
        *,
        at,
        action,
        section,
        summary,
        impoundment_id,
        data,
        animal_id=None,
        by_id=None,
        personal=None,
    ):
        fields = {
            "at": at,
            "by_id": by_id or self.info.keeper_id,
            "action": str(action),
            "section": section,
            "summary": summary[:300],
            "district_id": self.info.district_id,
            "pound_id": self.info.pk,
            "impoundment_id": impoundment_id,
            "animal_id": animal_id,
            "data": data,
            "personal": personal,  # kept apart from the link, as record_event keeps them
        }
        self.events.append((at, len(self.events), fields))

    def serial(self, key):
        self.counters[key] = self.counters.get(key, 0) + 1
        return self.counters[key]

    def document(self, *, kind, number, at, subject_type, subject_id, by_id=None):
        info = self.info
        return self.add(
            IssuedDocument,
            token=base64.urlsafe_b64encode(self.rng.randbytes(16)).decode().rstrip("="),
            kind=kind,
            number=number,
            issued_at=at,
            issued_by_id=by_id or info.keeper_id,
            district_id=info.district_id,
            pound_id=info.pk,
            issuing_office=info.name,
            issuing_office_hi=info.name_hi or info.name,
            subject_type=subject_type,
            subject_id=subject_id,
        )

    def post(
        self,
        *,
        kind,
        at,
        memo,
        source,
        section,
        lines,
        by_id=None,
        impoundment_id=None,
        reverses_id=None,
    ):
        """A balanced ledger transaction of the pound: `lines` are ((pound id or None, account
        kind), amount); lines of nothing are left out, as ledger.post leaves them."""
        info = self.info
        assert sum(amount for _account, amount in lines) == 0, lines
        txn = self.add(
            Transaction,
            district_id=info.district_id,
            pound_id=info.pk,
            kind=kind,
            at=at,
            by_id=by_id or info.keeper_id,
            memo=memo[:300],
            section=section,
            source=source,
            impoundment_id=impoundment_id,
            reverses_id=reverses_id,
        )
        for account, amount in lines:
            if amount:
                self.add(
                    Posting, transaction_id=txn, account_id=info.accounts[account], amount=amount
                )
        return txn


def _entry_row(rows, entry, rng):
    info = rows.info
    year = plan.local_date(entry.arrived_at).year
    serial = rows.serial(f"register:{info.pk}:{year}")
    s11 = rng.random() < 0.15
    entry.extras["number"] = f"{info.code.upper()}/{year}/{serial:05d}"
    entry.extras["id"] = rows.add(
        Impoundment,
        pound_id=info.pk,
        register_year=year,
        register_serial=serial,
        register_number=entry.extras["number"],
        arrived_at=entry.arrived_at,
        seized_at=entry.seized_at,
        seizure_place="public road by the canal bridge" if s11 else entry.place,
        seizure_village_id=rng.choice(info.village_ids) if info.village_ids else None,
        basis=SeizureBasis.S11_PUBLIC if s11 else SeizureBasis.S10_LAND,
        s11_site="road" if s11 else "",
        s11_ground="straying" if s11 else "",
        damage_description="" if s11 else "crop grazed and trampled",
        seizer_name=entry.seizer,
        seizer_phone=entry.seizer_phone,
        seizer_residence="the village of seizure",
        seizer_capacity=SeizerCapacity.VILLAGE_WATCHMAN if s11 else SeizerCapacity.CULTIVATOR,
        owner_name=entry.owner,
        owner_residence="the same village" if entry.owner else "",
        recorded_at=entry.arrived_at,
        recorded_by_id=info.keeper_id,
        warnings=[],
    )
    return entry.extras["id"]


def _entered_event(rows, entry, impoundment):
    number = entry.extras["number"]
    rows.event(
        at=entry.arrived_at,
        action=Action.REGISTER_ENTERED,
        section="s.8",
        summary=f"{number}: {len(entry.animals)} animal(s) entered",
        impoundment_id=impoundment["id"],
        data={
            "register_number": number,
            "arrived_at": entry.arrived_at,
            "seized_at": entry.seized_at,
            "seizure_place": impoundment["seizure_place"],
            "basis": impoundment["basis"],
            "seizer_capacity": impoundment["seizer_capacity"],
            "animals": [_animal_data(a) for a in entry.animals],
            "warnings": [],
        },
        personal={
            "seizer": [entry.seizer, impoundment["seizer_residence"], entry.seizer_phone],
            "owner": [entry.owner, impoundment["owner_residence"]],
        },
    )


def _animal_data(animal):
    fields = ("species", "sex", "age_class", "colour", "marks")
    return {f: getattr(animal, f) for f in fields} | {
        "ear_tag": animal.ear_tag,
        "number": animal.number,
    }


def register(rows, entry, rng):
    """The entry, its animals (their state written at the end), and what befell them."""
    pk = _entry_row(rows, entry, rng)
    _entered_event(rows, entry, rows.tables[Impoundment][-1])
    for animal in entry.animals:
        animal.id = rows.ids.next(Animal)
        if animal.end_at is not None:
            _custody_end(rows, entry, animal, pk)
    if entry.reported_at is not None:
        _report(rows, entry, pk)


def _custody_end(rows, entry, animal, impoundment_id):
    reference = f"{entry.extras['number']}/{animal.number}"
    died = animal.state == AnimalState.DIED
    details = (
        {"cause": "old age and weakness", "vet_name": "Dr. A. K. Verma", "certificate": "",
         "carcass_disposal": "buried by the village panchayat"}
        if died
        else {"police_reference": "", "notes": "broke through the fence at night"}
    )  # fmt: skip
    rows.add(
        CustodyEvent,
        animal_id=animal.id,
        kind=CustodyEvent.Kind.DIED if died else CustodyEvent.Kind.ESCAPED,
        at=animal.end_at,
        recorded_at=animal.end_at,
        recorded_by_id=rows.info.keeper_id,
        **details,
    )
    rows.event(
        at=animal.end_at,
        action=Action.CUSTODY_DIED if died else Action.CUSTODY_ESCAPED,
        section="s.9",
        summary=f"{reference} died: {details['cause']}" if died else f"{reference} escaped",
        impoundment_id=impoundment_id,
        animal_id=animal.id,
        data={"from": AnimalState.IMPOUNDED, "to": animal.state, "at": animal.end_at, **details},
    )


def _report(rows, entry, impoundment_id):
    at = entry.reported_at
    animals = [a for a in entry.animals if a.end_at is None or a.end_at > at]
    if not animals:
        return
    info = rows.info
    day = plan.local_date(at)
    serial = rows.serial(f"rep:{info.pk}:{day.year}")
    number = f"REP/{info.code.upper()}/{day.year}/{serial:05d}"
    report_id = rows.ids.next(Report)
    document = rows.document(
        kind=IssuedDocument.Kind.S14_REPORT,
        number=number,
        at=at,
        subject_type="auctions.report",
        subject_id=report_id,
    )
    rows.tables[Report].append(
        {
            "id": report_id,
            "pound_id": info.pk,
            "impoundment_id": impoundment_id,
            "number": number,
            "police_station_id": info.station_id,
            "due_on": plan.report_day(entry),
            "sent_at": at,
            "sent_by_id": info.keeper_id,
            "document_id": document,
        }
    )
    rows.report_animals.extend((report_id, a.id) for a in animals)
    entry.extras["report"] = (report_id, number)
    entry.extras["reported"] = animals
    rows.event(
        at=at,
        action=SalesAction.S14_REPORTED,
        section="s.14",
        summary=f"{number}: {len(animals)} unclaimed animal(s) reported to {info.station}",
        impoundment_id=impoundment_id,
        data={
            "report": number,
            "animals": [f"{entry.extras['number']}/{a.number}" for a in animals],
            "due_on": plan.report_day(entry),
            "days_late": max(0, (day - plan.report_day(entry)).days),
        },
    )


def animal_rows(rows, entry):
    """The animals as they stand at the end: their state, release and end of custody."""
    for animal in entry.animals:
        rows.tables[Animal].append(
            {
                "id": animal.id,
                "impoundment_id": entry.extras["id"],
                "pound_id": rows.info.pk,
                "number": animal.number,
                "species": animal.species,
                "sex": animal.sex,
                "age_class": animal.age_class,
                "colour": animal.colour,
                "marks": animal.marks,
                "ear_tag": animal.ear_tag,
                "state": animal.state,
                "custody_ended_at": animal.custody_ended_at,
                "release_id": animal.release_id,
                "court_order_id": animal.court_order_id,
                "notice_posted_on": animal.notice_posted_on,
            }
        )


def reports_in_pound(rows):
    """Each report's count of its animals still in the pound (Report.in_pound), as the
    database's triggers keep it for the services: the links and the animals are copied after
    the reports, the links before their animals, so the triggers count none of them here."""
    impounded = {a["id"] for a in rows.tables[Animal] if a["state"] == AnimalState.IMPOUNDED}
    counts = Counter(report for report, animal in rows.report_animals if animal in impounded)
    for report in rows.tables[Report]:
        report["in_pound"] = counts[report["id"]]


def idempotency_key(rng):
    return uuid.UUID(int=rng.getrandbits(128), version=4)
