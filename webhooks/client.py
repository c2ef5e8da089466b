"""Sending one webhook request, and the guard on where it may go (docs/webhooks.md).

The address is a State system's, typed by an administrator: it must not become a way to reach
what only the server can, such as the database, the object store or a cloud's metadata address.
So its host is resolved once, every address it names must be a public one (or in a network
the deployment lists in WEBHOOK_ALLOWED_NETWORKS, such as a State data centre's), and the
request goes to the address that was checked, never to a second lookup, so a name that
changes its answer between the check and the call (DNS rebinding) gets nowhere. Redirects are
not followed. An IPv6 address that carries an IPv4 one (mapped, compatible, NAT64, 6to4) is
judged by the IPv4 address it reaches, and Teredo is refused. Only the ports in
WEBHOOK_ALLOWED_PORTS (443 and 8443) are called, so a webhook cannot knock on other services.
A try has a deadline of WEBHOOK_TIMEOUT_SECONDS as a whole, not per read, so a receiver that
drips its answer cannot hold the sender past its lease. The standard library's http.client does
the sending: it lets the connection go to a checked address while TLS still verifies the host's
own name.
"""

import http.client
import ipaddress
import socket
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext_lazy as _

# The most of a receiver's answer that is read, and kept in the log.
READ_LIMIT = 64 * 1024
KEPT = 500


class AddressRefused(Exception):
    """The address may not be called; the message says why, for the administrator."""


@dataclass(frozen=True)
class Answer:
    status_code: int | None
    error: str
    response: str
    duration_ms: int

    @property
    def ok(self):
        return self.status_code is not None and 200 <= self.status_code < 300


def _allowed_networks():
    return [ipaddress.ip_network(n, strict=False) for n in settings.WEBHOOK_ALLOWED_NETWORKS]


_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_COMPATIBLE = ipaddress.ip_network("::/96")


def _reached(ip):
    """The address a connection to `ip` reaches: the IPv4 address inside an IPv6 one that
    carries it, else `ip`; None for Teredo, whose far end cannot be told."""
    if ip.version == 4:
        return ip
    if ip.teredo is not None:
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64 or (ip in _COMPATIBLE and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def allowed_ip(ip, networks):
    """May a webhook connect to `ip`: a public address, or one in a listed network?"""
    reached = _reached(ip)
    if reached is None:
        return False
    return reached.is_global or any(ip in net or reached in net for net in networks)


def checked_address(url):
    """(scheme, host, port, path, ip) for `url`, with `ip` the address to connect to; raises
    AddressRefused if the scheme, the host or any address it resolves to is not allowed."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme != "https" and not (scheme == "http" and settings.WEBHOOK_ALLOW_HTTP):
        raise AddressRefused(_("The address must begin with https://."))
    if not parts.hostname or parts.username or parts.password:
        raise AddressRefused(_("Give the address as https://host/path, with no name or password."))
    try:
        port = parts.port or (443 if scheme == "https" else 80)
    except ValueError:
        raise AddressRefused(_("The port of the address is not a number.")) from None
    if port not in settings.WEBHOOK_ALLOWED_PORTS:
        raise AddressRefused(_("Webhooks may not call this port: use https on port 443."))
    try:
        found = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise AddressRefused(_("No such host could be found.")) from None
    networks = _allowed_networks()
    ips = []
    for *_rest, sockaddr in found:
        ip = ipaddress.ip_address(sockaddr[0].split("%")[0])
        if not allowed_ip(ip, networks):
            raise AddressRefused(
                _("The host is on a private or reserved network, which webhooks may not call.")
            )
        if str(ip) not in ips:
            ips.append(str(ip))
    path = parts.path or "/"
    if parts.query:
        path += f"?{parts.query}"
    return scheme, parts.hostname, port, path, ips


def _connect(ips, port, timeout):
    """A socket to the first of the checked addresses that answers, as create_connection tries
    a name's addresses in turn, but never to an address that was not checked."""
    failure = None
    for ip in ips:
        try:
            return socket.create_connection((ip, port), timeout)
        except OSError as exc:
            failure = exc
    raise failure


class _PinnedHTTPConnection(http.client.HTTPConnection):
    def __init__(self, host, port, ips, timeout):
        super().__init__(host, port, timeout=timeout)
        self._ips = ips

    def connect(self):
        self.sock = _connect(self._ips, self.port, self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    def __init__(self, host, port, ips, timeout):
        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._ips = ips

    def connect(self):
        sock = _connect(self._ips, self.port, self.timeout)
        # The certificate is checked against the host's name, not the address connected to.
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


class _Late(Exception):
    pass


def _read(reply, deadline):
    """The start of the answer's body, read in pieces until READ_LIMIT or the deadline."""
    pieces, size = [], 0
    while size < READ_LIMIT:
        if time.monotonic() > deadline:
            raise _Late
        piece = reply.read1(min(4096, READ_LIMIT - size))
        if not piece:
            break
        pieces.append(piece)
        size += len(piece)
    return b"".join(pieces).decode("utf-8", "replace")


def post(url, body, headers):
    """POST `body` (bytes) to `url`; never raises for what the network or the receiver does."""
    started = time.monotonic()

    def answer(status_code=None, error="", response=""):
        elapsed = int((time.monotonic() - started) * 1000)
        return Answer(status_code, str(error)[:200], response[:KEPT], elapsed)

    try:
        scheme, host, port, path, ips = checked_address(url)
    except AddressRefused as refused:
        return answer(error=refused)
    timeout = settings.WEBHOOK_TIMEOUT_SECONDS
    kind = _PinnedHTTPSConnection if scheme == "https" else _PinnedHTTPConnection
    connection = kind(host, port, ips, timeout=timeout)
    try:
        connection.request("POST", path, body=body, headers=headers)
        reply = connection.getresponse()
        text = _read(reply, started + timeout)
    except _Late:
        return answer(error=f"No whole answer within {timeout} seconds")
    except (OSError, http.client.HTTPException) as exc:
        return answer(error=f"{type(exc).__name__}: {exc}")
    finally:
        connection.close()
    error = ""
    if 300 <= reply.status < 400:
        error = "Redirect not followed"
    return answer(status_code=reply.status, error=error, response=text)
