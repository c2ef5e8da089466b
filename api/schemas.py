"""The shapes the API answers with (pydantic, through ninja), which the schema publishes."""

from ninja import Schema
from pydantic import create_model


def shape(name, /, **fields):
    """A small shape declared in one line: its name, and each field with its type."""
    return create_model(name, __base__=Schema, **fields)


def page_of(item, name=None):
    """The shape of a list's page: its rows as `item`, and the next page's link (null on the
    last). Named after the item: ReceiptOut's is ReceiptPage."""
    name = name or item.__name__.removesuffix("Out") + "Page"
    return shape(name, results=list[item], next=str | None)


def stored_file(description, *types):
    """An operation's openapi_extra for a file as stored: its 200 in one of `types`."""
    binary = {"schema": {"type": "string", "format": "binary"}}
    content = {kind: binary for kind in types}
    return {"responses": {"200": {"description": description, "content": content}}}


class Problem(Schema):
    type: str
    title: str
    status: int
    detail: str
    errors: list[dict[str, str]] | None = None


class AnimalOut(Schema):
    id: int
    number: int
    species: str
    sex: str
    age_class: str
    state: str


class EventOut(Schema):
    action: str
    section: str
    at: str


class EntryOut(Schema):
    id: int
    register_number: str
    pound: int
    arrived_at: str
    animals: list[AnimalOut]


class DocumentOut(Schema):
    kind: str
    number: str
    issued_at: str
    valid: bool
    revoked: bool
    valid_until: str | None
    office: str


class BoardAnimalOut(Schema):
    reference: str
    description: str
    pound: str
    district: str
    posted_on: str
    last_day_to_claim: str
    earliest_sale: str


BoardPage = page_of(BoardAnimalOut, "BoardPage")


class RemittanceOut(Schema):
    """A remittance of fines (s.17), as the office's list and its confirmation answer it."""

    id: int
    number: str
    pound: int
    pound_name: str
    amount: str
    from_cash: bool
    challan_number: str
    treasury: str
    remitted_on: str
    status: str
    sent_by: str
    sent_at: str
    confirmed_by: str | None
    confirmed_at: str | None
