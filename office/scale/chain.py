"""The event log of a scale data set: each pound's events in time order, linked and hashed as
`poundadmin.events.record_event` links them, so that `verify_chain` walks them clean."""

import json

from django.core.serializers.json import DjangoJSONEncoder

from poundadmin.models import GENESIS, Event


def link(rows, heads):
    """Give the pound's events their chain, seq, links and ids, continuing the chain's head;
    return the event rows and leave the new head in `heads`."""
    chain = f"pound:{rows.info.pk}"
    seq, prev = heads.get(chain, (0, GENESIS))
    out = []
    for _at, _order, fields in sorted(rows.events, key=lambda e: (e[0], e[1])):
        seq += 1
        # Normalised as the JSON column gives it back, so the hash can be checked later.
        data = json.loads(json.dumps(fields["data"], cls=DjangoJSONEncoder))
        event = Event(chain=chain, seq=seq, prev_hash=prev, **{**fields, "data": data})
        event.hash = prev = event.compute_hash()
        row = {f.attname: getattr(event, f.attname) for f in Event._meta.concrete_fields}
        row["id"] = rows.ids.next(Event)
        out.append(row)
    if out:
        heads[chain] = (seq, prev)
    return out
