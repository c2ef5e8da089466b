"""The owner the ear-tag registry suggests at intake, and the repeat-seizure history, on the
check-your-answers page and the entry's page (ADR 0078).

The registry is asked while the check page is made, within its short timeout, and no longer
than that timeout in all: the tags not asked by then are answered from the cache only. What it
suggests is shown with the phone masked; only the keeper's "Use this owner" puts it in the
entry's owner answers, and the entry records that the keeper confirmed it.
"""

import time

from django.conf import settings

from accounts.roles import Permission
from accounts.scoping import has_permission
from kernel.formatting import mask_phone

from ..registry import cached_owner, look_up, registry
from ..repeats import history
from ..tags import is_pashu_aadhaar, normalise_tag


def use_suggested_owner(data):
    """The form's data with the owner the registry named for the tag in `use_owner`, when the
    keeper chose it (the answer comes from the cache: it was shown a moment ago)."""
    tag = normalise_tag(data.get("use_owner", ""))
    owner = cached_owner(tag) if tag else None
    if owner is not None:
        data["owner_name"], data["owner_residence"] = owner.name, owner.village
        data["owner_phone"], data["owner_from_tag"] = owner.phone, tag
    return data


def _tags(formset):
    tags = (normalise_tag(f.cleaned_data.get("ear_tag") or "") for f in formset.forms)
    return list(dict.fromkeys(t for t in tags if t))


def suggestions(form, formset):
    """[{tag, name, phone (masked), village}] for the tags whose registered owner is not the
    entry's owner already."""
    source, started = registry(), time.monotonic()
    shown, owners = [], set()
    for tag in _tags(formset):
        if not is_pashu_aadhaar(tag):
            continue
        if time.monotonic() - started < settings.EAR_TAG_REGISTRY_TIMEOUT:
            owner = look_up(tag, source=source)
        else:
            owner = cached_owner(tag) if source.name != "none" else None
        data = form.cleaned_data
        if owner is None or (owner.name, owner.phone) in owners:
            continue
        owners.add((owner.name, owner.phone))
        if (owner.name, owner.phone) == (data.get("owner_name"), data.get("owner_phone")):
            continue
        shown.append(
            {
                "tag": tag,
                "name": owner.name,
                "phone": mask_phone(owner.phone),
                "village": owner.village,
            }
        )
    return shown


def intake_history(form, formset):
    data = form.cleaned_data
    return history(
        district=data["pound"].district,
        tags=_tags(formset),
        phone=data.get("owner_phone", ""),
        owner_name=data.get("owner_name", ""),
    )


def entry_history(entry, animals):
    return history(
        district=entry.pound.district,
        tags=[a.ear_tag for a in animals],
        phone=entry.owner_phone,
        owner_name=entry.owner_name,
        entry=entry,
    )


def sees_phones(user, pound):
    """Whether `user` sees the phones of the owner and the seizer in full at `pound`: its keeper
    (who records the entry) and the clerk who releases the cattle, who must call them. Everyone
    else sees them masked (ADR 0078)."""
    return has_permission(user, Permission.RECORD_IMPOUNDMENT, pound) or has_permission(
        user, Permission.RELEASE_ANIMAL, pound
    )
