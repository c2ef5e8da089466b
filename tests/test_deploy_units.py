"""The settings and the units agree with the README: each variable the settings read is documented
in both env examples and nothing else is; each unit in deploy/ runs a command manage.py has, with
arguments it takes, as the web unit's user, with its environment file and MEDIA_ROOT writable;
every timer has its service; and each command README.md schedules is run by a timer."""

import ast
import re
import shlex
from pathlib import Path

import pytest
from django.core.management import get_commands, load_command_class

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"
README = (ROOT / "README.md").read_text()
EXAMPLES = [ROOT / ".env.example", DEPLOY / "env.example"]
# The modules that read the environment: the settings (with the outside services' module), and
# gunicorn's (the web unit's) config.
READERS = [
    ROOT / "poundadmin" / "settings.py",
    ROOT / "poundadmin" / "outside.py",
    ROOT / "gunicorn.conf.py",
]
VARIABLE = re.compile(r"^(?:# )?([A-Z][A-Z0-9_]*)=")
# Writable besides MEDIA_ROOT: the backups' folder, for the backup unit alone.
EXTRA_WRITABLE = {"poundadmin-backup.service": ["/var/backups/poundadmin"]}


# --- what the code reads --------------------------------------------------------------------


def _reads_environment(func, helpers):
    """env(...), env.str/bool/int/db/...(...), os.environ.get(...), os.getenv(...), or a helper
    of the module that passes its parameter to one of them (settings' `_required`)."""
    if isinstance(func, ast.Name):
        return func.id == "env" or func.id in helpers
    if not isinstance(func, ast.Attribute):
        return False
    owner = func.value
    if isinstance(owner, ast.Name) and owner.id == "env":
        return func.attr != "read_env"
    if func.attr == "getenv":
        return True
    return func.attr == "get" and isinstance(owner, ast.Attribute) and owner.attr == "environ"


def _helpers(tree):
    found = set()
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        params = {arg.arg for arg in node.args.args + node.args.kwonlyargs}
        for call in ast.walk(node):
            if (
                isinstance(call, ast.Call)
                and _reads_environment(call.func, set())
                and call.args
                and isinstance(call.args[0], ast.Name)
                and call.args[0].id in params
            ):
                found.add(node.name)
    return found


def variables_read(path):
    tree = ast.parse(path.read_text())
    helpers = _helpers(tree)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and _reads_environment(node.func, helpers):
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Constant) and isinstance(first.value, str):
                names.add(first.value)
        elif (  # os.environ["NAME"]
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Attribute)
            and node.value.attr == "environ"
            and isinstance(node.slice, ast.Constant)
        ):
            names.add(node.slice.value)
    return names


def test_the_parser_finds_each_way_of_reading_the_environment(tmp_path):
    source = (
        "import os\nimport environ\nenv = environ.Env()\n"
        "def _required(name, help_text):\n    return env.str(name, default='')\n"
        "env.read_env('.env')\nA = env('A')\nB = env.bool('B', default=False)\n"
        "C = env.db('C')\nD = os.environ.get('D')\nE = os.getenv('E')\nF = os.environ['F']\n"
        "G = _required('G', 'text')\nH = env.list('H', cast=int, default=[])\n"
    )
    path = tmp_path / "settings.py"
    path.write_text(source)
    assert variables_read(path) == set("ABCDEFGH")


# --- what the examples document -------------------------------------------------------------


def documented(path):
    """{name: its comment}: each variable, set or "# NAME=", and the prose comment above it."""
    names, comment = {}, []
    for line in path.read_text().splitlines():
        match = VARIABLE.match(line)
        if match:
            assert match[1] not in names, f"{path.name} names {match[1]} twice"
            names[match[1]] = " ".join(comment)
            comment = []
        elif line.startswith("#"):
            comment.append(line.lstrip("# ").strip())
        elif not line.strip():
            comment = []
        else:
            pytest.fail(f"{path.name}: neither a variable nor a comment: {line!r}")
    return names


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_env_example_names_every_variable_read_and_nothing_else(example):
    read = set().union(*(variables_read(path) for path in READERS))
    names = set(documented(example))

    assert sorted(read - names) == [], f"read but not documented in {example.name}"
    assert sorted(names - read) == [], f"documented in {example.name} but read nowhere"
    assert len(read) > 70  # the parser found the settings' reads, not a few of them


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_each_variable_has_a_comment_of_its_own(example):
    bare = [name for name, comment in documented(example).items() if len(comment) < 10]
    assert bare == [], f"{example.name}: write a sentence above each of these"


# --- the units ------------------------------------------------------------------------------


def unit(path):
    """{key: [values]} of a systemd unit, every section together (keys repeat: ExecStart)."""
    keys = {}
    for line in path.read_text().splitlines():
        if "=" in line and not line.startswith(("#", ";", "[")):
            key, value = line.split("=", 1)
            keys.setdefault(key.strip(), []).append(value.strip())
    return keys


def services():
    return sorted(DEPLOY.glob("*.service"))


def managepy(command_line):
    """The manage.py argv of an Exec line, None when it runs no manage.py; `$$(date +%%u)` (the
    backup's weekday, through the shell) reads as N, as README.md writes it."""
    if " manage.py " not in command_line:
        return None
    rest = command_line.split(" manage.py ", 1)[1].rstrip("'\"")
    return shlex.split(re.sub(r"\$\$\([^)]*\)", "N", rest))


def timer_commands(service):
    return [
        " ".join(argv) for line in unit(service).get("ExecStart", []) if (argv := managepy(line))
    ]


def media_root():
    return {
        path.name: next(
            line.split("=", 1)[1]
            for line in path.read_text().splitlines()
            if line.startswith("MEDIA_ROOT=")
        )
        for path in EXAMPLES
    }


def test_every_command_a_unit_runs_is_a_manage_py_command_with_arguments_it_takes():
    commands = get_commands()
    ran = 0
    for path in services():
        for key in ("ExecStartPre", "ExecStart", "ExecStartPost"):
            for line in unit(path).get(key, []):
                argv = managepy(line)
                if argv is None:
                    assert path.name == "poundadmin-web.service" and "gunicorn" in line, line
                    continue
                name, *args = argv
                # The owner connection exists only where DATABASE_MIGRATE_URL is set.
                args = ["default" if arg == "owner" else arg for arg in args]
                assert name in commands, f"{path.name}: manage.py has no {name}"
                command = load_command_class(commands[name], name)
                command.create_parser("manage.py", name).parse_args(args)  # CommandError if not
                ran += 1
    assert ran >= 12


def test_every_timer_has_its_service_and_every_scheduled_service_its_timer():
    timers = {path.stem for path in DEPLOY.glob("*.timer")}
    oneshots = {path.stem for path in services() if unit(path).get("Type") == ["oneshot"]}

    assert {"daily", "weekly", "retention", "backup"} <= {t.split("-", 1)[1] for t in timers}
    assert timers - oneshots == set(), "a timer without its oneshot service"
    # The release step alone is started by hand (README.md, "Database roles").
    assert oneshots - timers == {"poundadmin-migrate"}
    for name in timers:
        timer = unit(DEPLOY / f"{name}.timer")
        assert timer["OnCalendar"] and timer["Persistent"] == ["true"], name
        assert "Unit" not in timer, "a timer starts the service of its own name"


def test_every_unit_runs_as_the_web_unit_with_media_root_writable():
    web = unit(DEPLOY / "poundadmin-web.service")
    examples = media_root()
    assert len(set(examples.values())) == 1, f"the examples' MEDIA_ROOT differ: {examples}"
    media = examples["env.example"]

    assert web["ReadWritePaths"] == [media]
    for path in services():
        keys = unit(path)
        for key in ("User", "Group", "EnvironmentFile", "WorkingDirectory"):
            assert keys.get(key) == web[key], f"{path.name}'s {key}"
        assert keys.get("ProtectSystem") == ["strict"], path.name
        writable = keys["ReadWritePaths"][0].split()
        assert writable == [media, *EXTRA_WRITABLE.get(path.name, [])], path.name
    for name, extra in EXTRA_WRITABLE.items():  # and the command writes there
        target = timer_commands(DEPLOY / name)[0].split()[-1]
        assert any(target.startswith(folder + "/") for folder in extra), target


# --- the README -----------------------------------------------------------------------------


def readme_timers():
    """{timer: [commands]} of the table in README.md's "In production"."""
    section = README.split("\n## In production\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(poundadmin-[\w-]+\.timer)` \|.*\| (.*) \|$", section, re.M)
    return {timer: re.findall(r"`([^`]+)`", runs) for timer, runs in rows}


def test_the_readmes_timers_are_the_units_and_run_what_it_says():
    table = readme_timers()

    assert sorted(table) == sorted(path.name for path in DEPLOY.glob("*.timer"))
    for timer, commands in table.items():
        assert commands == timer_commands(DEPLOY / timer.replace(".timer", ".service")), timer


def test_every_command_the_readme_schedules_is_run_by_a_timer():
    run = {
        command
        for path in DEPLOY.glob("*.timer")
        for command in timer_commands(path.with_suffix(".service"))
    }
    blocks = re.findall(r"^```crontab\n(.*?)^```$", README, re.S | re.M)
    scheduled = {
        " ".join(shlex.split(part.split("manage.py", 1)[1]))
        for line in "".join(blocks).splitlines()
        for part in line.split("&&")
        if "manage.py" in part
    }
    scheduled |= {command for commands in readme_timers().values() for command in commands}

    assert len(scheduled) >= 8
    assert sorted(scheduled - run) == []
