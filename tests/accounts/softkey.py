"""A software passkey for the tests: an ECDSA P-256 key that answers WebAuthn challenges as an
authenticator does (attestation "none"), so the server's ceremonies are checked by the
`webauthn` package itself, not by a mock."""

import hashlib
import json
import os
import struct

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from webauthn.helpers import bytes_to_base64url

UP, UV, AT = 0x01, 0x04, 0x40  # user present, user verified, attested credential data


class SoftPasskey:
    def __init__(self, *, rp_id="pounds.example.gov.in", origin="https://pounds.example.gov.in"):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.credential_id = os.urandom(16)
        self.rp_id, self.origin = rp_id, origin
        self.sign_count = 0

    def _public_key(self):
        numbers = self.key.public_key().public_numbers()
        cose = {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big")}
        cose[-3] = numbers.y.to_bytes(32, "big")
        return cbor2.dumps(cose)

    def _client_data(self, kind, options, origin):
        data = {"type": kind, "challenge": options["challenge"], "origin": origin or self.origin}
        return json.dumps({**data, "crossOrigin": False}).encode()

    def _auth_data(self, flags, extra=b""):
        rp_hash = hashlib.sha256(self.rp_id.encode()).digest()
        return rp_hash + bytes([flags]) + struct.pack(">I", self.sign_count) + extra

    def _credential(self, response):
        cid = bytes_to_base64url(self.credential_id)
        return json.dumps(
            {"id": cid, "rawId": cid, "type": "public-key", "response": response}
            | {"clientExtensionResults": {}}
        )

    def register(self, options, *, origin=None):
        """The browser's answer to registration `options` (as the server drew them)."""
        attested = bytes(16) + struct.pack(">H", len(self.credential_id)) + self.credential_id
        auth_data = self._auth_data(UP | UV | AT, attested + self._public_key())
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client_data = self._client_data("webauthn.create", options, origin)
        response = {
            "clientDataJSON": bytes_to_base64url(client_data),
            "attestationObject": bytes_to_base64url(attestation),
            "transports": ["internal"],
        }
        return self._credential(response)

    def sign(self, options, *, origin=None, sign_count=None):
        """The answer to sign-in `options`; the counter moves on by one unless given."""
        self.sign_count = self.sign_count + 1 if sign_count is None else sign_count
        auth_data = self._auth_data(UP | UV)
        client_data = self._client_data("webauthn.get", options, origin)
        signed = auth_data + hashlib.sha256(client_data).digest()
        signature = self.key.sign(signed, ec.ECDSA(hashes.SHA256()))
        response = {
            "clientDataJSON": bytes_to_base64url(client_data),
            "authenticatorData": bytes_to_base64url(auth_data),
            "signature": bytes_to_base64url(signature),
        }
        return self._credential(response)
