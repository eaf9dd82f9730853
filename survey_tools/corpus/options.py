"""Command-line option names of controlled fields (``survey add --category``, the short names
of ``taxonomy/commands.yaml`` ``flags``)."""

from __future__ import annotations

from survey_tools.corpus.taxonomy import Collection, ControlledField, Taxonomy, commands_config


def option_names(tax: Taxonomy, coll: Collection) -> dict[str, ControlledField]:
    """Option name (without dashes) -> the controlled field of ``coll`` it sets: every field's
    own name with dashes, and the short names of ``taxonomy/commands.yaml`` (``flags``)."""
    out = {c.name.replace("_", "-"): c for c in coll.controlled}
    for flag, fname in (commands_config(tax).get("flags") or {}).items():
        cf = coll.controlled_field(str(fname))
        if cf is not None:
            out[str(flag)] = cf
    return out


def short_option(tax: Taxonomy, coll: Collection, cf: ControlledField) -> str:
    """The shortest option name that sets ``cf`` (what examples show)."""
    names = [n for n, c in option_names(tax, coll).items() if c.name == cf.name]
    return min(names, key=lambda n: (len(n), n))
