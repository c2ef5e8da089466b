"""Files of a folder of the store removed once old: the photos held for an abandoned form
(`held/`, a day: kernel.held_uploads) and the documents kept by what they say (`kept/`,
RETENTION_KEPT_DAYS: docs/decisions/0072, docs/retention.md).

On an S3 store the listing's pages give each file's age, a thousand at a time, and each page's
old files go in one request, where the storage API would ask for each file's age in a request of
its own; on a file system, a walk of the folder. Neither holds more than a page of names at once,
and nothing outside the folder is read or touched. Two sweeps at once only find each other's
files gone."""

import os

from django.core.files.storage import default_storage

PAGE = 1000


def remove_older(folder, before, *, storage=None):
    """Remove the files under `folder` (and its subfolders) last written before `before`, an
    aware datetime; returns how many were removed."""
    storage = storage or default_storage
    folder = folder.strip("/")
    if hasattr(storage, "bucket"):  # django-storages' S3 store
        return _from_bucket(storage, folder, before)
    return _from_directory(storage.path(folder), before.timestamp())


def _from_bucket(storage, folder, before):
    location = storage.location.strip("/")
    prefix = f"{location}/{folder}/" if location else f"{folder}/"
    removed = 0
    for page in storage.bucket.objects.filter(Prefix=prefix).page_size(PAGE).pages():
        old = [{"Key": item.key} for item in page if item.last_modified < before]
        if old:
            storage.bucket.delete_objects(Delete={"Objects": old, "Quiet": True})
            removed += len(old)
    return removed


def _from_directory(root, before):
    removed = 0
    for folder, _folders, names in os.walk(root):  # nothing when the folder was never made
        for name in names:
            path = os.path.join(folder, name)
            try:
                if os.stat(path).st_mtime < before:
                    os.remove(path)
                    removed += 1
            except FileNotFoundError:  # taken back, or swept by another run, meanwhile
                continue
    return removed
