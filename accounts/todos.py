"""To-dos for each role, and the e-mail that tells people about new ones.

A to-do has a key naming its condition ("report_due:42"): creating it again does nothing, and
the daily run closes those whose condition no longer holds.

The mail is a task on the worker (`mail_todo`), enqueued when the transaction that made the
to-do commits: a daily run that opens hundreds of to-dos does not wait on the mail server, and
a mail server that is down delays the mail without undoing or stopping the run. The task marks
the to-do mailed after sending, so a retry sends nothing more (a worker killed between the two
sends it again: a mail twice rather than none).
"""

from django.core.mail import EmailMessage
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.tasks import task
from django.utils import timezone, translation

from kernel.documents import public_url
from kernel.messages import Message

from .models import StaffAssignment, ToDo, User


def recipients(role, district, pound=None):
    """Active users holding `role` over the pound (or district)."""
    assignments = StaffAssignment.objects.active().filter(role=role)
    scope = Q(district=district) | Q(state_id=district.state_id)
    if pound is not None:
        scope |= Q(pound=pound) | Q(police_station_id=pound.nearest_police_station_id)
    return User.objects.filter(pk__in=assignments.filter(scope).values("user_id"), is_active=True)


def _mail(todo, known=None):
    """Mail the to-do to the people holding its role. `known`: a dict shared by the to-dos of
    one run, so that the people are looked up once per role and place, not once per to-do."""
    known = {} if known is None else known
    key = (todo.role, todo.district_id, todo.pound_id)
    if key not in known:
        known[key] = [u for u in recipients(todo.role, todo.district, todo.pound) if u.email]
    people = known[key]
    if not people:
        return
    url = public_url(todo.url)
    with translation.override("en"):
        body = (
            f"{todo.title}\n\n"
            + (f"Due on {todo.due_on:%d-%m-%Y}.\n" if todo.due_on else "")
            + f"Open: {url}\n\nPoundAdmin"
        )
    EmailMessage(
        subject=f"[PoundAdmin] {todo.title}"[:200], body=body, to=[u.email for u in people]
    ).send()


def _fields(*, role, district, title, url, pound=None, section="", due_on=None):
    """`title` is a kernel.messages.Message (kept as its template and arguments, shown in
    the reader's language) or plain text."""
    message = title if isinstance(title, Message) else None
    return {
        "role": role,
        "district": district,
        "pound": pound,
        "title": (message.english() if message else str(title))[:250],
        "title_message": message.as_data() if message else {},
        "url": url,
        "section": section,
        "due_on": due_on,
    }


def _mail_unsent(todo_ids):
    """Mail each open, unmailed to-do of `todo_ids` once, the people of each role and place
    looked up once for them all; returns how many were mailed."""
    known, mailed = {}, 0
    unsent = ToDo.objects.select_related("district", "pound").filter(
        pk__in=todo_ids, mailed_at__isnull=True, done_at__isnull=True
    )
    for todo in unsent.order_by("pk"):
        _mail(todo, known)
        ToDo.objects.filter(pk=todo.pk).update(mailed_at=timezone.now())
        mailed += 1
    return mailed


@task()
def mail_todo(todo_id):
    """Mail the people who hold the to-do's role about it, once. Returns whether it mailed."""
    return _mail_unsent([todo_id]) == 1


@task()
def mail_todos(todo_ids):
    """The daily run's new to-dos, mailed by one task: one row on the queue for a run that
    opens hundreds, not one each."""
    return _mail_unsent(todo_ids)


def _after_commit_mail(todo):
    # robust: a queue that cannot be reached is logged, and never undoes or stops the run.
    transaction.on_commit(lambda: mail_todo.enqueue(todo.pk), robust=True)


def upsert(*, key, role, district, title, url, pound=None, section="", due_on=None, mail=True):
    """Create the to-do if it is new (and mail the people who hold the role). A closed to-do
    whose condition has come back (a lot unsold, a late complaint dismissed) is opened again,
    as new."""
    fields = _fields(
        role=role,
        district=district,
        title=title,
        url=url,
        pound=pound,
        section=section,
        due_on=due_on,
    )
    todo, created = ToDo.objects.get_or_create(key=key, defaults=fields)
    if not created and todo.done_at is not None:
        # Conditional, so that of two overlapping runs only one reopens it and mails.
        created = bool(
            ToDo.objects.filter(pk=todo.pk, done_at__isnull=False).update(
                done_at=None, created_at=timezone.now(), mailed_at=None, **fields
            )
        )
        todo.refresh_from_db()
    if created and mail:
        _after_commit_mail(todo)
    return todo, created


def _of_kinds(prefixes):
    return ToDo.objects.filter(Q(*[Q(key__startswith=p) for p in prefixes], _connector=Q.OR))


def sync(wanted, prefixes, *, mail=True, districts=None):
    """Make the open to-dos of these kinds exactly `wanted` ({key: upsert's fields}), as
    upsert() for each key and then close_all_except() would, in a fixed number of queries
    whatever the number of to-dos, plus one a to-do opened again. Returns (created, closed).
    With `districts` (ids), only those districts' open to-dos are closed."""
    open_now = _of_kinds(prefixes).filter(done_at__isnull=True)
    if districts is not None:
        open_now = open_now.filter(district_id__in=districts)
    open_now = dict(open_now.values_list("key", "pk"))
    missing = [key for key in wanted if key not in open_now]
    known = set(ToDo.objects.filter(key__in=missing).values_list("key", flat=True))
    created = 0
    for key in (k for k in missing if k in known):  # closed, and its condition has come back
        created += upsert(key=key, **wanted[key], mail=mail)[1]
    fresh = [ToDo(key=key, **_fields(**wanted[key])) for key in missing if key not in known]
    try:
        with transaction.atomic():
            ToDo.objects.bulk_create(fresh)
    except IntegrityError:
        # An overlapping run created some of them meanwhile: one at a time, as upsert does.
        created += sum(upsert(key=t.key, **wanted[t.key], mail=mail)[1] for t in fresh)
    else:
        created += len(fresh)
        if mail and fresh:
            ids = [todo.pk for todo in fresh]
            transaction.on_commit(lambda: mail_todos.enqueue(ids), robust=True)
    stale = [pk for key, pk in open_now.items() if key not in wanted]
    closed = ToDo.objects.filter(pk__in=stale, done_at__isnull=True).update(done_at=timezone.now())
    return created, closed


def close(key):
    return ToDo.objects.filter(key=key, done_at__isnull=True).update(done_at=timezone.now())


def close_all_except(keys, prefixes):
    """Close the open to-dos of these kinds whose keys the run did not produce again."""
    stale = _of_kinds(prefixes).filter(done_at__isnull=True)
    return stale.exclude(key__in=keys).update(done_at=timezone.now())


def for_user(user):
    """Open to-dos for the roles the user holds, in his jurisdiction."""
    from .scoping import grants_for, visible_district_ids, visible_pound_ids

    roles = {g.role for g in grants_for(user)}
    if not roles:
        return ToDo.objects.none()
    return (
        ToDo.objects.filter(done_at__isnull=True, role__in=roles)
        .filter(
            Q(pound_id__in=visible_pound_ids(user))
            | Q(pound__isnull=True, district_id__in=visible_district_ids(user))
        )
        .order_by("due_on", "created_at")
    )
