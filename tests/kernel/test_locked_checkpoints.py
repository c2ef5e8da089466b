"""The write-once copy of each signed checkpoint (kernel/locked.py), against moto's S3 server
with Object Lock: the copy cannot be deleted or overwritten within its retention, a later
version or a delete marker put over it does not hide it, and verify_chain still names a cut
when whoever holds the owner's power deletes the checkpoints from the storage."""

import pytest
from botocore.exceptions import ClientError
from django.utils import timezone

from kernel import anchors
from kernel.events import verify_chain
from tests.kernel.test_chain_checkpoints import feed
from tests.kernel.test_signed_checkpoints import chain, forge_as_the_owner, signing_key
from tests.kernel.test_stored_files import free_port, s3_endpoint

__all__ = ["chain", "s3_endpoint", "signing_key"]  # fixtures used here


@pytest.fixture
def lock_bucket(settings, s3_endpoint, monkeypatch):
    import boto3

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")
    bucket = f"poundadmin-locked-{free_port()}"
    client = boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1")
    client.create_bucket(Bucket=bucket, ObjectLockEnabledForBucket=True)
    settings.CHECKPOINT_LOCK_BUCKET = bucket
    settings.CHECKPOINT_LOCK_MODE = "COMPLIANCE"
    settings.CHECKPOINT_LOCK_DAYS = 30
    settings.CHECKPOINT_LOCK_S3 = {
        "endpoint_url": s3_endpoint,
        "region_name": "us-east-1",
        "access_key": "testing",
        "secret_key": "testing",
        "addressing_style": "path",
    }
    return client, bucket


def _versions(client, bucket, key):
    return client.list_object_versions(Bucket=bucket, Prefix=key).get("Versions", [])


def test_each_checkpoint_is_written_once_with_a_retention(lock_bucket, signing_key, chain):
    client, bucket = lock_bucket

    signed, problems = anchors.write_checkpoint()

    assert problems == []
    key = f"{anchors.folder()}/{signed.base_name}"
    (version,) = _versions(client, bucket, key)
    head = client.head_object(Bucket=bucket, Key=key, VersionId=version["VersionId"])
    assert head["ObjectLockMode"] == "COMPLIANCE"
    assert (head["ObjectLockRetainUntilDate"] - timezone.now()).days >= 29
    body = client.get_object(Bucket=bucket, Key=key)["Body"].read().decode()
    assert anchors.SignedCheckpoint.from_file(body) == signed


def test_the_locked_copy_cannot_be_deleted_or_overwritten(lock_bucket, signing_key, chain):
    client, bucket = lock_bucket
    signed, _problems = anchors.write_checkpoint()
    key = f"{anchors.folder()}/{signed.base_name}"
    (version,) = _versions(client, bucket, key)

    with pytest.raises(ClientError) as refused:
        client.delete_object(Bucket=bucket, Key=key, VersionId=version["VersionId"])
    assert refused.value.response["Error"]["Code"] == "AccessDenied"
    # A version is never written over in place. A new version and a delete marker over it:
    # the first version stays, and is what is read.
    client.put_object(Bucket=bucket, Key=key, Body=b'{"forged": true}')
    client.delete_object(Bucket=bucket, Key=key)

    versions = _versions(client, bucket, key)
    assert version["VersionId"] in {v["VersionId"] for v in versions}
    anchors.storage().delete(key)  # and the storage's copy gone too
    assert anchors.latest_checkpoint() == signed


def test_a_cut_is_named_from_the_lock_bucket_when_the_storage_loses_the_checkpoints(
    lock_bucket, signing_key, chain, pound, pound_keeper
):
    anchors.write_checkpoint()
    feed(pound, pound_keeper, 24)
    feed(pound, pound_keeper, 25)
    hourly, problems = anchors.write_checkpoint()
    assert problems == [] and hourly.heads[chain][0] == 7

    # The owner cuts the last hour's links and deletes the latest checkpoint from the storage.
    forge_as_the_owner(chain, cut=2)
    anchors.storage().delete(f"{anchors.folder()}/{hourly.base_name}")

    (problem,) = verify_chain()
    assert problem[:2] == (chain, 6) and problem[2].startswith(
        f"tail cut: the checkpoint signed at {hourly.when} holds links to 7"
    )


def test_after_a_restore_the_lock_buckets_earlier_checkpoints_are_set_aside(
    lock_bucket, signing_key, chain, settings
):
    signed, _problems = anchors.write_checkpoint()
    forge_as_the_owner(chain, cut=2)  # what a restore of an older backup looks like
    anchors.storage().delete(f"{anchors.folder()}/{signed.base_name}")
    assert verify_chain()[0][2].startswith("tail cut")

    settings.CHECKPOINT_LOCK_FROM = timezone.now().isoformat()

    assert verify_chain() == []
    assert anchors.write_checkpoint()[1] == []


def test_no_checkpoint_is_signed_while_the_lock_bucket_cannot_be_read(
    lock_bucket, signing_key, chain, settings
):
    """Without the lock bucket's latest, a chain cut behind it could be signed over."""
    settings.CHECKPOINT_LOCK_BUCKET = "no-such-bucket"

    checkpoint, problems = anchors.write_checkpoint()

    assert checkpoint is None and anchors.checkpoint_names() == []
    assert problems[0][0] == "checkpoints" and "lock bucket" in problems[0][2]
