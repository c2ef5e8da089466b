"""The event log of a scale data set: each pound's events in time order, linked and hashed as
`kernel.events.record_event` links them, so that `verify_chain` walks them clean."""

import json

from django.core.serializers.json import DjangoJSONEncoder

from kernel.models import GENESIS, Event, EventPersonal, new_salt, personal_digest

from .write import copy_rows


def _normalised(value):
    # As the JSON column gives it back, so the hash can be checked later.
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def link(rows, heads, chain=None):
    """Give the pound's events their chain, seq, links and ids, continuing the chain's head;
    return the event rows and leave the new head in `heads`.

    An event's personal fields go, with their salt, to their own table, as record_event puts
    them; the link hashes their digest. They are written here, before their events: the
    foreign key is checked when the pound's transaction commits."""
    chain = chain or f"pound:{rows.info.pk}"  # or the district's, for district-wide changes
    seq, prev = heads.get(chain, (0, GENESIS))
    out, personal_rows = [], []
    for _at, _order, fields in sorted(rows.events, key=lambda e: (e[0], e[1])):
        seq += 1
        fields = dict(fields)
        personal = fields.pop("personal", None)
        data = _normalised(fields["data"])
        event = Event(chain=chain, seq=seq, prev_hash=prev, **{**fields, "data": data})
        if personal:
            personal, salt = _normalised(personal), new_salt()
            event.personal_digest = personal_digest(salt, personal)
        event.hash = prev = event.compute_hash()
        row = {f.attname: getattr(event, f.attname) for f in Event._meta.concrete_fields}
        row["id"] = rows.ids.next(Event)
        out.append(row)
        if personal:
            personal_rows.append({"event_id": row["id"], "fields": personal, "salt": salt})
    copy_rows(EventPersonal, personal_rows)
    if out:
        heads[chain] = (seq, prev)
    return out
