"""View helpers every app uses."""

from django.core.exceptions import ValidationError


def add_service_errors(form, error: ValidationError):
    """Put a service's ValidationError beside the fields it names (or at the top of the form)."""
    if hasattr(error, "error_dict"):
        for field, messages in error.message_dict.items():
            target = field if field in form.fields else None
            for message in messages:
                form.add_error(target, message)
    else:
        for message in error.messages:
            form.add_error(None, message)
