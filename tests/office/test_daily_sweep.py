"""The daily run removes the photos held for forms abandoned a day ago (kernel/held_uploads.py)."""

import os
import time

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from office.deadlines import run, summary


def test_the_daily_run_sweeps_the_held_files_a_day_old(media_root):
    old = default_storage.save("held/abandoned.jpg", ContentFile(b"x"))
    fresh = default_storage.save("held/on-a-form-now.jpg", ContentFile(b"x"))
    two_days_ago = time.time() - 2 * 24 * 3600
    os.utime(default_storage.path(old), (two_days_ago, two_days_ago))

    done = run()

    assert done["held_files_swept"] == 1 and "held files swept 1" in summary(done)
    assert not default_storage.exists(old) and default_storage.exists(fresh)
