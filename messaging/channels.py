"""The channels a message goes by, all behind one interface (ADR 0077): `send(message)` gives an
Outcome; it never raises for the gateway's faults, which are an outcome like any other.

- **console**: writes the message to the log and keeps it in `console_outbox` (development and
  tests); delivered at once.
- **nic**: NIC's SMS gateway, `HttpLink`: `username`, `pin`, `message`, `mnumber` (with 91),
  `signature` (the DLT sender), `dlt_entity_id`, `dlt_template_id`; a text outside the GSM
  alphabet goes hex-encoded (UTF-16 big-endian) with `msgType=UC`. Its answer names a
  "Request ID" when it accepted the message.
- **mobileseva**: C-DAC's Mobile Seva, `sendsmsrequestDLT`, as C-DAC's sample clients post it:
  `username`, `password`, `senderid`, `content`, `smsservicetype` (`singlemsg`, `unicodemsg`,
  `otpmsg`, `unicodeotpmsg`), `mobileno`, `templateid`, and `key`, the SHA-512 (hex) of user
  name + sender + content + secure key. Unicode text goes as `&#NNNN;` character references.
  Its answer starts "402" when it accepted the message, with "MsgID = <id>".
- **email**: Django's mail, for a recipient that is an address.
- **whatsapp**: only to a phone whose holder recorded consent; posts the template's event,
  language and variables as JSON to the provider's URL (WhatsApp too sends only approved
  templates). Without the consent it refuses, and nothing is sent.

A gateway that cannot be reached, or answers 5xx, is tried again later; one that refuses the
message (a wrong template, a bad number) is not.
"""

import hashlib
import json
import logging
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

from django.conf import settings
from django.core.mail import send_mail

from . import dlt

logger = logging.getLogger(__name__)
console_outbox: list[dict] = []
KEPT = 200


@dataclass(frozen=True)
class Outcome:
    accepted: bool
    provider_id: str = ""
    error: str = ""
    final: bool = False  # refused: trying again would not help
    delivered: bool = False  # known to have arrived (console, email)


def mobile(number):
    """The last ten digits of an Indian mobile number."""
    digits = "".join(c for c in str(number) if c.isdigit())
    return digits[-10:]


class Channel:
    name = ""
    needs_dlt = False  # an SMS gateway: the template's DLT id must be known

    def send(self, message) -> Outcome:
        raise NotImplementedError


class Console(Channel):
    name = "console"

    def send(self, message):
        entry = {"to": message.recipient, "text": message.text, "event": message.event}
        console_outbox.append(entry)
        logger.info("Message to %s: %s", message.recipient, message.text)
        return Outcome(True, provider_id=f"console-{message.pk}", delivered=True)


def _call(request):
    """The gateway's status and the start of its answer, or an Outcome when it failed."""
    try:
        with urllib.request.urlopen(  # noqa: S310 (the configured gateway)
            request, timeout=settings.MESSAGING_TIMEOUT_SECONDS
        ) as response:
            return response.status, response.read(4096).decode("utf-8", "replace").strip()
    except urllib.error.HTTPError as error:
        return Outcome(False, error=f"HTTP {error.code}", final=error.code < 500)
    except (OSError, ValueError) as error:
        return Outcome(False, error=str(error)[:KEPT] or type(error).__name__)


class Nic(Channel):
    name = "nic"
    needs_dlt = True

    def params(self, message):
        params = {
            "username": settings.MESSAGING_USERNAME,
            "pin": settings.MESSAGING_PIN,
            "message": message.text,
            "mnumber": "91" + mobile(message.recipient),
            "signature": message.template.sender or settings.MESSAGING_SENDER,
            "dlt_entity_id": settings.MESSAGING_DLT_ENTITY_ID,
            "dlt_template_id": message.dlt_template_id,
        }
        if not dlt.is_gsm7(message.text):
            params["message"], params["msgType"] = dlt.ucs2_hex(message.text), "UC"
        return params

    def send(self, message):
        query = urllib.parse.urlencode(self.params(message))
        answer = _call(urllib.request.Request(f"{settings.MESSAGING_GATEWAY_URL}?{query}"))
        if isinstance(answer, Outcome):
            return answer
        _status, body = answer
        if "Request ID=" in body and "code=API000" in body:
            request_id = body.split("Request ID=", 1)[1].split("~", 1)[0].strip()
            return Outcome(True, provider_id=request_id)
        return Outcome(False, error=body[:KEPT] or "No answer", final=True)


class MobileSeva(Channel):
    name = "mobileseva"
    needs_dlt = True

    def params(self, message):
        username = settings.MESSAGING_USERNAME.strip()
        sender = (message.template.sender or settings.MESSAGING_SENDER).strip()
        unicode = not dlt.is_gsm7(message.text)
        content = "".join(f"&#{ord(c)};" for c in message.text) if unicode else message.text
        kind = ("unicode" if unicode else "") + ("otpmsg" if message.urgent else "msg")
        signed = username + sender + content.strip() + settings.MESSAGING_SECURE_KEY.strip()
        return {
            "username": username,
            "password": settings.MESSAGING_PIN.strip(),
            "senderid": sender,
            "content": content,
            "smsservicetype": kind if unicode or message.urgent else "singlemsg",
            "mobileno": mobile(message.recipient),
            "templateid": message.dlt_template_id,
            "key": hashlib.sha512(signed.encode()).hexdigest(),
        }

    def send(self, message):
        body = urllib.parse.urlencode(self.params(message)).encode()
        request = urllib.request.Request(settings.MESSAGING_GATEWAY_URL, data=body, method="POST")
        request.add_header("Content-Type", "application/x-www-form-urlencoded")
        answer = _call(request)
        if isinstance(answer, Outcome):
            return answer
        _status, text = answer
        if text.startswith("402"):
            return Outcome(True, provider_id=text.split("MsgID =", 1)[-1].strip()[:100])
        return Outcome(False, error=text[:KEPT] or "No answer", final=True)


class Email(Channel):
    name = "email"

    def send(self, message):
        if "@" not in message.recipient:
            return Outcome(False, error="Not an email address.", final=True)
        try:
            send_mail("PoundAdmin", message.text, None, [message.recipient])
        except OSError as error:
            return Outcome(False, error=str(error)[:KEPT])
        return Outcome(True, provider_id=f"email-{message.pk}", delivered=True)


class WhatsApp(Channel):
    name = "whatsapp"

    def send(self, message):
        from .models import Phone  # the consent is the phone holder's, read at each try

        phone = Phone.objects.filter(number=mobile(message.recipient)).first()
        if phone is None or phone.whatsapp_consent_at is None:
            return Outcome(False, error="No consent to WhatsApp recorded.", final=True)
        body = {
            "to": "91" + mobile(message.recipient),
            "template": message.event,
            "language": message.language,
            "variables": message.variables,
        }
        request = urllib.request.Request(
            settings.MESSAGING_GATEWAY_URL, data=json.dumps(body).encode(), method="POST"
        )
        request.add_header("Content-Type", "application/json")
        answer = _call(request)
        if isinstance(answer, Outcome):
            return answer
        return Outcome(True, provider_id=answer[1][:100])


CHANNELS = {c.name: c for c in (Console, Nic, MobileSeva, Email, WhatsApp)}


def channel(name=None) -> Channel:
    """The channel called `name`, or the configured one (MESSAGING_CHANNEL)."""
    return CHANNELS[name or settings.MESSAGING_CHANNEL]()
