"""One name for a record that another floor keeps as data: a ledger transaction's source
(`"impounding.release:42"`), an issued document's subject (`"auctions.sale"` and an id).

The ledger and the register of issued documents sit below the apps whose records they name, so
they cannot point at them with a foreign key. They store a key instead: the model's
`app_label.modelname`, or, for a model that moved since its first records were written, the key
those records were written with. Keys are stored data: never rename one; add an alias here.
"""

from collections import defaultdict

from django.apps import apps

# The keys written before the model moved to another app, kept as they were first written.
STORED_KEYS = {
    "office.remittance": "ledger.remittance",
    "office.surplusdeposit": "ledger.surplusdeposit",
}
_LABELS = {stored: label for label, stored in STORED_KEYS.items()}


def key(record):
    """The stored key of a record's model (or of a model): `"auctions.sale"`."""
    label = record._meta.label_lower
    return STORED_KEYS.get(label, label)


def ref(record):
    """`"auctions.sale:42"`: the key and the primary key, as a transaction's source."""
    return f"{key(record)}:{record.pk}"


def model_of(stored_key):
    """The model a stored key names (LookupError for none)."""
    return apps.get_model(_LABELS.get(stored_key, stored_key))


def parse(reference):
    """`"auctions.sale:42"` -> ("auctions.sale", 42); a reference without a numeric id -> None."""
    stored_key, _sep, pk = reference.partition(":")
    return (stored_key, int(pk)) if pk.isdigit() else None


def resolve(references):
    """{reference: record} for the references that name a record that exists, one query per
    model, whatever the number of references."""
    wanted = defaultdict(set)
    for reference in references:
        parsed = parse(reference)
        if parsed is not None:
            wanted[parsed[0]].add(parsed[1])
    found = {}
    for stored_key, ids in wanted.items():
        try:
            model = model_of(stored_key)
        except LookupError:
            continue
        for record in model._default_manager.filter(pk__in=ids):
            found[f"{stored_key}:{record.pk}"] = record
    return found
