"""Fake NIC (HttpLink) and C-DAC Mobile Seva gateways on loopback, real HTTP servers in threads.

Each checks the real parameter names (no more, no fewer), the account, the DLT template id it
knows and that the text matches that template as an operator would (each {#var#} up to 30
characters), decodes Unicode as its gateway sends it (NIC: hex UTF-16 with msgType=UC; Mobile
Seva: &#NNNN; references), and can fail (HTTP 503), drop (close the connection unanswered) or
delay its answer. What it accepted is kept, with the provider's id it gave.

Each also pushes delivery reports back, as its gateway would to the DLR URL a State configures
(ADR 0084): `report(url, provider_id, status)`, in its own parameter names (NIC by GET, Mobile Seva
by POST), as many times and in whatever order a test asks (a duplicate, a late "delivered")."""

import hashlib
import html
import itertools
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

from messaging import dlt

USERNAME, PIN, SECURE_KEY, SENDER, ENTITY = "pound.up", "8xYz2", "sk-test", "UPPOND", "1101000000"
NIC_PARAMS = {
    "username",
    "pin",
    "message",
    "mnumber",
    "signature",
    "dlt_entity_id",
    "dlt_template_id",
}
SEVA_PARAMS = {
    "username",
    "password",
    "senderid",
    "content",
    "smsservicetype",
    "mobileno",
    "templateid",
    "key",
}
SEVA_TYPES = {"singlemsg", "unicodemsg", "otpmsg", "unicodeotpmsg"}
# The delivery report's names (the message's id, the SMPP status, the handset's time): the
# gateways do not publish them, so these are the ones a State confirms (ADR 0084).
NIC_DLR = ("requestid", "status", "donetime")
SEVA_DLR = ("msgid", "status", "deliverytime")


class FakeGateway:
    path = ""

    def __init__(self, templates):
        self.templates = dict(templates)  # DLT template id -> registered text
        self.accepted, self.refused, self.requests = [], [], 0
        self.fail, self.drop, self.delay = 0, 0, 0.0  # the next N tries fail / are dropped
        self.ids = itertools.count(1001)
        self.lock = threading.Lock()
        gateway = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                gateway.handle(self, parse_qs(urlsplit(self.path).query, keep_blank_values=True))

            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"])).decode()
                gateway.handle(self, parse_qs(body, keep_blank_values=True))

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}{self.path}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()

    def handle(self, handler, query):
        with self.lock:
            self.requests += 1
            fail, drop = self.fail > 0, self.drop > 0 and self.fail == 0
            self.fail -= fail
            self.drop -= drop
        if self.delay:
            time.sleep(self.delay)
        if urlsplit(handler.path).path != self.path:
            return self.answer(handler, 404, "Not found")
        if drop:
            handler.close_connection = True
            handler.connection.close()
            return None
        if fail:
            return self.answer(handler, 503, "Service unavailable")
        params = {k: v[0] for k, v in query.items()}
        with self.lock:
            text = self.check(params)
        return self.answer(handler, 200, text)

    def answer(self, handler, status, text):
        body = text.encode()
        handler.send_response(status)
        handler.send_header("Content-Type", "text/plain; charset=utf-8")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    def judge(self, template_id, text):
        """None if the DLT would let it through, else why not."""
        registered = self.templates.get(template_id)
        if registered is None:
            return "template id not registered"
        if not dlt.matches(registered, text):
            return "text does not match the template"
        return None

    def texts(self):
        return [m["text"] for m in self.accepted]

    dlr_names: tuple[str, str, str] = ("", "", "")
    dlr_method = "GET"

    def report(self, url, provider_id, status, *, at=None, headers=None):
        """Push a delivery report to `url` (the DLR URL as configured, its token in it); the
        HTTP status of the answer."""
        at = at or time.strftime("%Y-%m-%d %H:%M:%S")
        params = urlencode(dict(zip(self.dlr_names, (provider_id, status, at), strict=True)))
        if self.dlr_method == "GET":
            joined = "&" if "?" in url else "?"
            request = urllib.request.Request(url + joined + params, headers=headers or {})
        else:
            request = urllib.request.Request(
                url, data=params.encode(), method="POST", headers=headers or {}
            )
            request.add_header("Content-Type", "application/x-www-form-urlencoded")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:  # noqa: S310
                return response.status
        except urllib.error.HTTPError as error:
            return error.code


class FakeNic(FakeGateway):
    path = "/failsafe/HttpLink"
    dlr_names = NIC_DLR

    def check(self, p):
        extra = set(p) - NIC_PARAMS - {"msgType"}
        if NIC_PARAMS - set(p) or extra:
            return self.refuse(p, "API400", f"parameters {sorted(NIC_PARAMS ^ set(p))}")
        if (p["username"], p["pin"]) != (USERNAME, PIN):
            return self.refuse(p, "API401", "invalid credentials")
        if (p["signature"], p["dlt_entity_id"]) != (SENDER, ENTITY):
            return self.refuse(p, "API402", "sender or entity not registered")
        text = p["message"]
        if p.get("msgType") == "UC":
            text = bytes.fromhex(text).decode("utf-16-be")
        elif not dlt.is_gsm7(text):
            return self.refuse(p, "API405", "Unicode text without msgType=UC")
        if not (p["mnumber"].startswith("91") and len(p["mnumber"]) == 12):
            return self.refuse(p, "API403", "invalid mobile number")
        why = self.judge(p["dlt_template_id"], text)
        if why:
            return self.refuse(p, "API110", why)
        request_id = str(next(self.ids))
        self.accepted.append(
            {"id": request_id, "to": p["mnumber"], "text": text, "template": p["dlt_template_id"]}
        )
        return (
            f"Message Accepted for Request ID={request_id}~code=API000 & info=Platform Accepted "
            f"& Time = {time.strftime('%Y/%m/%d/%H/%M')}"
        )

    def refuse(self, p, code, info):
        self.refused.append({"params": p, "code": code, "info": info})
        return f"Message Rejected~code={code} & info={info}"


class FakeMobileSeva(FakeGateway):
    path = "/esms/sendsmsrequestDLT"
    dlr_names = SEVA_DLR
    dlr_method = "POST"

    def check(self, p):
        if set(p) != SEVA_PARAMS:
            return self.refuse(p, f"407,parameters {sorted(SEVA_PARAMS ^ set(p))}")
        if (p["username"], p["password"], p["senderid"]) != (USERNAME, PIN, SENDER):
            return self.refuse(p, "401,Credentials Error")
        signed = p["username"] + p["senderid"] + p["content"].strip() + SECURE_KEY
        if hashlib.sha512(signed.encode()).hexdigest() != p["key"]:
            return self.refuse(p, "416,Hash key mismatch")
        if p["smsservicetype"] not in SEVA_TYPES:
            return self.refuse(p, "408,Invalid smsservicetype")
        text = p["content"]
        if p["smsservicetype"].startswith("unicode"):
            text = html.unescape(text)
        if len(p["mobileno"]) != 10:
            return self.refuse(p, "409,Invalid mobile number")
        why = self.judge(p["templateid"], text)
        if why:
            return self.refuse(p, f"410,{why}")
        msg_id = f"{next(self.ids)}upgovt-pound"
        self.accepted.append(
            {"id": msg_id, "to": p["mobileno"], "text": text, "template": p["templateid"]}
        )
        return f"402,MsgID = {msg_id}"

    def refuse(self, p, text):
        self.refused.append({"params": p, "info": text})
        return text
