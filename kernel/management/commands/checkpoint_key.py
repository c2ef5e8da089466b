import os
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from django.core.management.base import BaseCommand, CommandError

from kernel import anchors


class Command(BaseCommand):
    help = (
        "Write a new Ed25519 key for signing the event log's checkpoints to PATH (readable by "
        "its owner only) and print the public key for CHECKPOINT_PUBLIC_KEY. Keep the private "
        "key off the database server."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="where to write the private key (PEM); must not exist")

    def handle(self, *args, path, **options):
        target = Path(path)
        if target.exists():
            raise CommandError(f"{target} exists: a key is never overwritten")
        pem = anchors.new_key_pem()
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(pem)
        key = serialization.load_pem_private_key(pem.encode(), password=None).public_key()
        public = anchors.base64.b64encode(anchors.raw_public(key)).decode()
        self.stdout.write(f"CHECKPOINT_SIGNING_KEY_FILE={target}")
        self.stdout.write(f"CHECKPOINT_PUBLIC_KEY={public}")
        self.stdout.write(f"key id {anchors.key_id(key)}")
