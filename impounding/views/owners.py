"""The owner the ear-tag registry suggests at intake, and the repeat-seizure history, on the
check-your-answers page and the entry's page (ADR 0078).

The registry is asked while the check page is made, within its short timeout, and no longer
than that timeout in all: the tags not asked by then are answered from the cache only. What it
suggests is shown with the phone masked; only the keeper's "Use this owner" puts it in the
entry's owner answers, and the entry records that the keeper confirmed it.
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.decorators import require_permission
from accounts.roles import Permission
from accounts.scoping import has_permission

from .. import services
from ..registry import cached_owner, suggested_owners
from ..repeats import history
from ..tags import normalise_tag
from .common import get_entry


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
    data = form.cleaned_data
    return suggested_owners(_tags(formset), known=(data.get("owner_name"), data.get("owner_phone")))


def entry_suggestions(entry, in_pound, user):
    """On the entry's page, to its keeper: the owners the registry named (from the cache: the
    entry's intake asked it) for the tags of its animals still in the pound, but the entry's
    owner. The field app's entries reach the registry only this way (ADR 0078, addendum)."""
    if not in_pound or not has_permission(user, Permission.RECORD_IMPOUNDMENT, entry.pound):
        return []
    return suggested_owners(
        [a.ear_tag for a in in_pound if a.ear_tag],
        known=(entry.owner_name, entry.owner_phone),
        ask=False,
    )


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


@require_POST
@require_permission(Permission.RECORD_IMPOUNDMENT)
def entry_owner_from_tag(request, pk):
    """The keeper's "Use this owner for the entry" on the entry's page (ADR 0078, addendum)."""
    entry = get_entry(request, pk, Permission.RECORD_IMPOUNDMENT)
    try:
        done = services.confirm_owner_from_tag(
            entry=entry, by=request.user, tag=request.POST.get("use_owner", "")
        )
    except ValidationError as exc:
        messages.error(request, exc.messages[0])
    else:
        if done:
            messages.success(request, _("The owner the registry names is the entry's owner now."))
    return redirect(entry)
