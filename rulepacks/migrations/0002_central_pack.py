from django.db import migrations


def load_central(apps, schema_editor):
    """The central Act's pack, the default every district takes until it chooses another, so
    that the data already in and every entry made before packs keep their meaning."""
    from rulepacks.services import load_file, shipped_files

    RulePack = apps.get_model("rulepacks", "RulePack")
    for path in shipped_files("central"):
        load_file(path, using=schema_editor.connection.alias, model=RulePack)


class Migration(migrations.Migration):
    dependencies = [("rulepacks", "0001_rule_packs")]

    operations = [migrations.RunPython(load_central, migrations.RunPython.noop)]
