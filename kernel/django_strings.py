# ruff: noqa: E501  (Django's msgids, letter for letter: not split)
"""Django's own strings that users see (form errors, widgets, validators) whose Marathi or Tamil
translation Django does not ship, or ships incompletely: listed here so that makemessages puts
them in the project's catalogues, which Django reads before its own (ADR 0069). Never imported:
only read by makemessages. The msgids are Django's, letter for letter; a Django upgrade that
changes one leaves the old entry unused, and tests/test_i18n.py checks they are still Django's.
"""

from django.utils.translation import gettext_noop, ngettext_lazy

STRINGS = [
    gettext_noop("…"),
    gettext_noop("That page number is not an integer"),
    gettext_noop("That page number is less than 1"),
    gettext_noop("That page contains no results"),
    gettext_noop("Enter a valid value."),
    gettext_noop("Enter a valid domain name."),
    gettext_noop("Enter a valid URL."),
    gettext_noop("Enter a valid integer."),
    gettext_noop("Enter a valid email address."),
    gettext_noop("Enter a valid “slug” consisting of letters, numbers, underscores or hyphens."),
    gettext_noop(
        "Enter a valid “slug” consisting of Unicode letters, numbers, underscores, or hyphens."
    ),
    gettext_noop("Enter a valid %(protocol)s address."),
    gettext_noop("Ensure this value is %(limit_value)s (it is %(show_value)s)."),
    gettext_noop("Ensure this value is less than or equal to %(limit_value)s."),
    gettext_noop("Ensure this value is greater than or equal to %(limit_value)s."),
    gettext_noop("Ensure this value is a multiple of step size %(limit_value)s."),
    gettext_noop(
        "Ensure this value is a multiple of step size %(limit_value)s, starting from %(offset)s, e.g. %(offset)s, %(valid_value1)s, %(valid_value2)s, and so on."
    ),
    gettext_noop("Enter a number."),
    gettext_noop(
        "File extension “%(extension)s” is not allowed. Allowed extensions are: %(allowed_extensions)s."
    ),
    gettext_noop("Null characters are not allowed."),
    gettext_noop("%(model_name)s with this %(field_labels)s already exists."),
    gettext_noop("Value %(value)r is not a valid choice."),
    gettext_noop("This field cannot be blank."),
    gettext_noop("%(model_name)s with this %(field_label)s already exists."),
    gettext_noop("%(field_label)s must be unique for %(date_field_label)s %(lookup_type)s."),
    gettext_noop("“%(value)s” value must be either True or False."),
    gettext_noop("“%(value)s” value must be either True, False, or None."),
    gettext_noop("“%(value)s” value must be a decimal number."),
    gettext_noop("“%(value)s” value must be a float."),
    gettext_noop("“%(value)s” value must be an integer."),
    gettext_noop("“%(value)s” value must be either None, True or False."),
    gettext_noop("“%(value)s” is not a valid binary value."),
    gettext_noop("“%(value)s” is not a valid UUID."),
    gettext_noop("Enter a valid date."),
    gettext_noop("Enter a valid time."),
    gettext_noop("Enter a valid date/time."),
    gettext_noop("Enter a valid duration."),
    gettext_noop("The number of days must be between {min_days} and {max_days}."),
    gettext_noop("No file was submitted."),
    gettext_noop("Please either submit a file or check the clear checkbox, not both."),
    gettext_noop("Select a valid choice. %(value)s is not one of the available choices."),
    gettext_noop("Enter a list of values."),
    gettext_noop("Enter a complete value."),
    gettext_noop("Enter a valid UUID."),
    gettext_noop("Enter a valid JSON."),
    gettext_noop(
        "ManagementForm data is missing or has been tampered with. Missing fields: %(field_names)s. You may need to file a bug report if the issue persists."
    ),
    gettext_noop("Please correct the duplicate data for %(field)s."),
    gettext_noop("Please correct the duplicate data for %(field)s, which must be unique."),
    gettext_noop(
        "Please correct the duplicate data for %(field_name)s which must be unique for the %(lookup)s in %(date_field)s."
    ),
    gettext_noop("Please correct the duplicate values below."),
    gettext_noop("The inline value did not match the parent instance."),
    gettext_noop("Select a valid choice. That choice is not one of the available choices."),
    gettext_noop("“%(pk)s” is not a valid value."),
    gettext_noop(
        "%(datetime)s couldn’t be interpreted in time zone %(current_timezone)s; it may be ambiguous or it may not exist."
    ),
    gettext_noop("Currently"),
]

PLURALS = [
    ngettext_lazy(
        "Ensure this value has at least %(limit_value)d character (it has %(show_value)d).",
        "Ensure this value has at least %(limit_value)d characters (it has %(show_value)d).",
        1,
    ),
    ngettext_lazy(
        "Ensure this value has at most %(limit_value)d character (it has %(show_value)d).",
        "Ensure this value has at most %(limit_value)d characters (it has %(show_value)d).",
        1,
    ),
    ngettext_lazy(
        "Ensure that there are no more than %(max)s digit in total.",
        "Ensure that there are no more than %(max)s digits in total.",
        1,
    ),
    ngettext_lazy(
        "Ensure that there are no more than %(max)s decimal place.",
        "Ensure that there are no more than %(max)s decimal places.",
        1,
    ),
    ngettext_lazy(
        "Ensure that there are no more than %(max)s digit before the decimal point.",
        "Ensure that there are no more than %(max)s digits before the decimal point.",
        1,
    ),
    ngettext_lazy(
        "Ensure this filename has at most %(max)d character (it has %(length)d).",
        "Ensure this filename has at most %(max)d characters (it has %(length)d).",
        1,
    ),
    ngettext_lazy("Please submit at most %(num)d form.", "Please submit at most %(num)d forms.", 1),
    ngettext_lazy(
        "Please submit at least %(num)d form.", "Please submit at least %(num)d forms.", 1
    ),
]
