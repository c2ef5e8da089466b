"""The write-once copy of each signed checkpoint: an object-store bucket with Object Lock.

Whoever holds the database owner's power, and with it often the file storage's credentials, can
delete the latest checkpoint files from the storage, and `verify_chain` would then hold the
chains to an older one. So each checkpoint is also written to CHECKPOINT_LOCK_BUCKET (versioned,
Object Lock on) with a retention of CHECKPOINT_LOCK_DAYS in CHECKPOINT_LOCK_MODE: in COMPLIANCE
mode no credential, not even the account's root, deletes or overwrites that version before its
retain-until date. A later version or a delete marker put over a key does not hide it either:
the newest checkpoint is found among every version, and read from the first version of its key,
the one the signer wrote (docs/decisions/0058-hourly-checkpoints.md).
"""

import base64
import hashlib
from datetime import timedelta

from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError
from django.conf import settings
from django.utils import timezone


class LockedCopyProblem(Exception):
    """The write-once copy could not be written or read."""


def configured():
    return bool(settings.CHECKPOINT_LOCK_BUCKET)


def client():
    """A client of the lock bucket's store, with the object store's timeouts."""
    import boto3  # only where a lock bucket is configured

    s3 = settings.CHECKPOINT_LOCK_S3
    return boto3.client(
        "s3",
        endpoint_url=s3["endpoint_url"] or None,
        region_name=s3["region_name"] or None,
        aws_access_key_id=s3["access_key"] or None,
        aws_secret_access_key=s3["secret_key"] or None,
        config=Config(
            s3={"addressing_style": s3["addressing_style"]},
            signature_version="s3v4",
            connect_timeout=settings.S3_CONNECT_TIMEOUT,
            read_timeout=settings.S3_READ_TIMEOUT,
            retries={"max_attempts": settings.S3_MAX_ATTEMPTS, "mode": "standard"},
        ),
    )


def put(name, text):
    """Write `text` under `name`, retained until CHECKPOINT_LOCK_DAYS from now."""
    body = text.encode()
    try:
        client().put_object(
            Bucket=settings.CHECKPOINT_LOCK_BUCKET,
            Key=name,
            Body=body,
            ContentType="application/json",
            ContentMD5=base64.b64encode(hashlib.md5(body).digest()).decode(),  # noqa: S324
            ObjectLockMode=settings.CHECKPOINT_LOCK_MODE,
            ObjectLockRetainUntilDate=timezone.now()
            + timedelta(days=settings.CHECKPOINT_LOCK_DAYS),
        )
    except (BotoCoreError, ClientError) as error:
        raise LockedCopyProblem(f"{name} not written to the lock bucket: {error}") from error


def has(name):
    try:
        client().head_object(Bucket=settings.CHECKPOINT_LOCK_BUCKET, Key=name)
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
            return False
        raise LockedCopyProblem(f"{name}: the lock bucket cannot be read: {error}") from error
    except BotoCoreError as error:
        raise LockedCopyProblem(f"{name}: the lock bucket cannot be read: {error}") from error
    return True


def first_versions(folder, after=""):
    """{name: version id of its first version} of the checkpoints under `folder` whose names
    sort after `after`, delete markers and later versions ignored."""
    pages = client().get_paginator("list_object_versions")
    first, where = {}, {"Bucket": settings.CHECKPOINT_LOCK_BUCKET, "Prefix": f"{folder}/"}
    try:
        for page in pages.paginate(**where, **({"KeyMarker": after} if after else {})):
            # A key's versions are listed newest first: the last listed is the first written.
            for version in page.get("Versions", []):
                name, seen = version["Key"], first.get(version["Key"])
                if seen is None or version["LastModified"] <= seen[0]:
                    first[name] = (version["LastModified"], version["VersionId"])
    except (BotoCoreError, ClientError) as error:
        raise LockedCopyProblem(f"the lock bucket cannot be listed: {error}") from error
    return {name: version for name, (_when, version) in first.items() if name.endswith(".json")}


def read(name, version):
    try:
        answer = client().get_object(
            Bucket=settings.CHECKPOINT_LOCK_BUCKET, Key=name, VersionId=version
        )
        return answer["Body"].read().decode()
    except (BotoCoreError, ClientError) as error:
        raise LockedCopyProblem(f"{name}: the lock bucket cannot be read: {error}") from error
