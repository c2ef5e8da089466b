"""Files of a folder of the store removed once old: the photos held for an abandoned form
(`held/`, a day: kernel.held_uploads) and the documents kept by what they say (`kept/`,
RETENTION_KEPT_DAYS: docs/decisions/0072, docs/retention.md).

On an S3 store the listing's pages give each file's age, a thousand at a time, and each page's
old files go in one request, where the storage API would ask for each file's age in a request of
its own; on any other store, folder by folder through the storage API. Neither holds more than a
page or a folder of names at once, and nothing outside the folder is read or touched. Two sweeps
at once only find each other's files gone."""

from django.core.files.storage import default_storage

PAGE = 1000


def remove_older(folder, before, *, storage=None):
    """Remove the files under `folder` (and its subfolders) last written before `before`, an
    aware datetime; returns how many were removed."""
    storage = storage or default_storage
    folder = folder.strip("/")
    if hasattr(storage, "bucket"):  # django-storages' S3 store
        return _from_bucket(storage, folder, before)
    return _through_the_api(storage, folder, before)


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


def _through_the_api(storage, folder, before):
    """Any other store (the file system, a store without paths): folder by folder, through
    `listdir`, `get_modified_time` and `delete` alone."""
    removed = 0
    pending = [folder]
    while pending:
        current = pending.pop()
        try:
            folders, names = storage.listdir(current)
        except FileNotFoundError:  # the folder was never made
            continue
        pending += [f"{current}/{sub}" for sub in folders]
        for name in names:
            path = f"{current}/{name}"
            try:
                if storage.get_modified_time(path) < before:
                    storage.delete(path)
                    removed += 1
            except FileNotFoundError:  # taken back, or swept by another run, meanwhile
                continue
    return removed
