"""The pack format: every shipped file passes the schema, and a bad file is refused with what is
wrong (docs/decisions/0068)."""

import tomllib

import pytest
from django.core.management import CommandError, call_command

from impounding.models import AgeClass, Species
from rulepacks import services
from rulepacks.models import SPECIES_LABELS, RulePack
from rulepacks.schema import AGE_CLASSES, SPECIES, PackInvalid

CENTRAL = services.PACKS_DIR / "central" / "2026.1.toml"


def _write(tmp_path, text, code="central", version="2026.1"):
    path = tmp_path / code / f"{version}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_pack_species_are_the_registers():
    assert SPECIES == tuple(Species.values)
    assert AGE_CLASSES == tuple(AgeClass.values)
    assert {k: str(v) for k, v in SPECIES_LABELS.items()} == {
        s.value: str(s.label) for s in Species
    }


@pytest.mark.parametrize("path", services.shipped_files(), ids=lambda p: f"{p.parent.name}")
def test_every_shipped_pack_passes_the_schema(path):
    pack, digest = services.read_file(path)
    assert (pack.code, pack.version) == (path.parent.name, path.stem)
    assert len(digest) == 64


def test_the_central_pack_is_the_default_and_verified():
    central = RulePack.objects.get(pk=services.pack_of(None).id)
    assert central.verified and central.version == "2026.1"
    assert central.pack.clocks.claim_days == 7 and central.pack.clocks.notice_days == 7
    assert central.pack.clocks.surplus_hold_months == 3


def test_a_figure_of_the_wrong_kind_is_refused_naming_the_field(tmp_path):
    text = CENTRAL.read_text().replace("claim_days = 7", 'claim_days = "seven"')
    with pytest.raises(PackInvalid, match=r"clocks\.claim_days"):
        services.read_file(_write(tmp_path, text))


def test_a_species_left_without_a_disposal_rule_is_refused(tmp_path):
    text = CENTRAL.read_text().replace('"goat", "other"]', '"goat"]')
    with pytest.raises(PackInvalid, match="missing: other"):
        services.read_file(_write(tmp_path, text))


def test_an_unknown_key_is_refused(tmp_path):
    text = CENTRAL.read_text().replace("[clocks]", "[clocks]\nclaim_weeks = 1")
    with pytest.raises(PackInvalid, match=r"clocks\.claim_weeks"):
        services.read_file(_write(tmp_path, text))


def test_a_file_not_at_its_code_and_version_is_refused(tmp_path):
    with pytest.raises(PackInvalid, match="packs/central/2026.1.toml"):
        services.read_file(_write(tmp_path, CENTRAL.read_text(), version="2026.2"))


def test_broken_toml_is_refused(tmp_path):
    with pytest.raises(PackInvalid, match="not valid TOML"):
        services.read_file(_write(tmp_path, "code = "))


def test_a_loaded_version_is_never_rewritten_from_a_changed_file(tmp_path):
    services.load_file(CENTRAL)
    text = CENTRAL.read_text().replace("claim_days = 7", "claim_days = 8")
    with pytest.raises(PackInvalid, match="new version"):
        services.load_file(_write(tmp_path, text))
    assert RulePack.objects.get(code="central").pack.clocks.claim_days == 7


def test_loading_the_same_file_again_changes_nothing():
    services.load_file(CENTRAL)
    row, created = services.load_file(CENTRAL)
    assert not created and RulePack.objects.filter(code="central").count() == 1


def test_the_command_loads_the_shipped_packs_once(capsys):
    call_command("load_rulepacks")
    call_command("load_rulepacks")
    assert set(RulePack.objects.values_list("code", flat=True)) == {
        "central",
        "up",
        "mh",
        "kl",
        "tn",
    }
    assert "0 pack version(s) loaded, 5 already in" in capsys.readouterr().out


def test_the_command_refuses_a_bad_file_and_loads_nothing(tmp_path):
    good = _write(tmp_path, (services.PACKS_DIR / "up" / "0.1.toml").read_text(), "up", "0.1")
    bad = _write(tmp_path, CENTRAL.read_text().replace("status = ", "state_of = "), "xx", "1")
    with pytest.raises(CommandError, match="status"):
        call_command("load_rulepacks", str(good), str(bad))
    assert not RulePack.objects.filter(code="up").exists()


def test_the_drafts_are_unverified_and_invent_no_amount():
    for code in ("up", "mh", "kl", "tn"):
        (path,) = services.shipped_files(code)
        data = tomllib.loads(path.read_text())
        pack, _digest = services.read_file(path)
        assert pack.status == "unverified"
        assert pack.feeding.gaushala_daily is None and pack.feeding.infirmary_daily is None
        assert pack.fines.rows == [] and pack.fines.source == "district"
        assert pack.revenue.head_of_account is None
        assert "amount" not in path.read_text() and data["state"] == code
