"""The gateways' adapters: one class per gateway, the same four operations (docs/decisions/0075).

`SbiePayLike` speaks the shape SBIePay and PayGov India share: the order goes to the gateway in
the browser's form as an encrypted payload; the gateway calls us back server to server, either
with an HMAC-SHA256 signed message or with an encrypted one; a status query and a refund are
signed requests answered by signed messages. Messages are `key=value` pairs joined by `|`.
"""

import base64
import hashlib
import hmac
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from django.conf import settings


class GatewayError(Exception):
    """The gateway could not be reached or answered nothing we can read: nothing is settled."""


class BadMessage(Exception):
    """A message whose signature, encryption or fields do not hold: refused, nothing changes."""


SUCCESS, FAILURE, PENDING = "SUCCESS", "FAILURE", "PENDING"


@dataclass(frozen=True)
class Order:
    """Where the browser goes to pay: a form POSTed to `url` with `fields`."""

    url: str
    fields: dict


@dataclass(frozen=True)
class Outcome:
    """What the gateway says of a payment, by our reference."""

    reference: str
    gateway_reference: str
    status: str  # SUCCESS, FAILURE or PENDING
    amount: Decimal


def encode(pairs):
    return "|".join(f"{k}={v}" for k, v in pairs.items())


def decode(text):
    try:
        return dict(part.split("=", 1) for part in text.split("|") if part)
    except ValueError:
        raise BadMessage("not a message of key=value pairs") from None


def _outcome(pairs):
    try:
        status = pairs["status"]
        amount = Decimal(pairs["amount"])
        if status not in (SUCCESS, FAILURE, PENDING) or amount != amount.quantize(Decimal("0.01")):
            raise BadMessage("unknown status or amount")
        return Outcome(
            reference=pairs["ref"],
            gateway_reference=pairs.get("gwref", ""),
            status=status,
            amount=amount,
        )
    except (KeyError, InvalidOperation):
        raise BadMessage("a field is missing or unreadable") from None


class SbiePayLike:
    name = "sbiepay"

    def __init__(self, *, url, merchant_id, key):
        self.url = url.rstrip("/")
        self.merchant_id = merchant_id
        self.key = base64.b64decode(key) if key else b""

    # --- the two message formats ---------------------------------------------------------

    def sign(self, text):
        return hmac.new(self.key, text.encode(), hashlib.sha256).hexdigest()

    def encrypt(self, text):
        nonce = os.urandom(12)
        sealed = AESGCM(self.key).encrypt(nonce, text.encode(), self.merchant_id.encode())
        return base64.b64encode(nonce + sealed).decode()

    def decrypt(self, blob):
        try:
            raw = base64.b64decode(blob, validate=True)
            text = AESGCM(self.key).decrypt(raw[:12], raw[12:], self.merchant_id.encode())
            return text.decode()
        except (InvalidTag, ValueError):
            raise BadMessage("the payload does not decrypt with our key") from None

    # --- the four operations -------------------------------------------------------------

    def create_order(self, *, reference, amount, return_url, callback_url):
        payload = encode(
            {
                "ref": reference,
                "amount": f"{amount:.2f}",
                "currency": "INR",
                "return": return_url,
                "callback": callback_url,
            }
        )
        fields = {"merchantId": self.merchant_id, "encryptTrans": self.encrypt(payload)}
        return Order(url=f"{self.url}/pay", fields=fields)

    def verify_callback(self, form):
        """The callback's outcome, from the form the gateway POSTed: `encData` (encrypted) or
        `msg` with its `checksum` (signed). Refused (BadMessage) when neither holds."""
        if form.get("encData"):
            return _outcome(decode(self.decrypt(form["encData"])))
        msg, checksum = form.get("msg", ""), form.get("checksum", "")
        if not msg or not hmac.compare_digest(self.sign(msg), checksum):
            raise BadMessage("the checksum does not match")
        return _outcome(decode(msg))

    def _call(self, path, pairs):
        msg = encode({"merchantId": self.merchant_id, **pairs})
        body = urllib.parse.urlencode({"msg": msg, "checksum": self.sign(msg)}).encode()
        try:
            with urllib.request.urlopen(
                f"{self.url}/{path}", data=body, timeout=settings.PAYMENT_GATEWAY_TIMEOUT
            ) as response:
                answer = json.loads(response.read())
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise GatewayError(str(exc)) from exc
        return self.verify_callback(answer)

    def query_status(self, reference):
        return self._call("status", {"ref": reference})

    def refund(self, *, reference, amount, refund_reference=""):
        """Refund `amount` of the payment `reference`. The gateway refunds one
        `refund_reference` once: asking again returns the first answer (docs/decisions/0083)."""
        pairs = {"ref": reference, "amount": f"{amount:.2f}"}
        if refund_reference:
            pairs["refundRef"] = refund_reference
        return self._call("refund", pairs)


def gateway(name=None):
    """The adapter of the gateway `name` (default: the configured one)."""
    name = name or settings.PAYMENT_GATEWAY
    if name != SbiePayLike.name:
        raise GatewayError(f"no adapter for gateway {name!r}")
    return SbiePayLike(
        url=settings.PAYMENT_GATEWAY_URL,
        merchant_id=settings.PAYMENT_GATEWAY_MERCHANT_ID,
        key=settings.PAYMENT_GATEWAY_KEY,
    )
