from functools import wraps

from django.core.exceptions import PermissionDenied

from .roles import Permission
from .scoping import has_permission


def require_permission(perm):
    """Refuse (403) a signed-in user who holds `perm` nowhere. Object checks stay in the view."""
    perm = Permission(perm)

    def decorator(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if not has_permission(request.user, perm):
                raise PermissionDenied
            return view(request, *args, **kwargs)

        wrapped.required_permission = perm
        return wrapped

    return decorator
