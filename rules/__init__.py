"""memvet's built-in rules, one module per family, registered like any plugin.

=========  ==============  =============================================
family     module          asks
=========  ==============  =============================================
S          shape           does the answer parse and follow the contract?
I          identity        do scene and message ids name real things?
T          typed           are typed fields (state, metadata, times) right?
L          language        right language, self-contained, good labels?
G          gates           is it worth remembering at all? (seed 000)
G004       value_model     ... as a model trained on reviewed answers rates it
M          method          is a work_method really a method?
W          write           is the write request routed safely? (seed 004)
P          privacy         secrets, personal data, injected instructions
Q          quality         duplicates and raw dumps
E          engine_faults   crashes and unused suppressions
=========  ==============  =============================================

A newcomer finds a rule from its code alone: the letter names the module.
"""

from __future__ import annotations

import importlib

from memvet.hookspecs import hookimpl
from memvet.rule import Rule

FAMILIES = ("shape", "identity", "typed", "language", "scenes", "gates", "value_model", "method", "write", "privacy", "quality",
            "engine_faults")


def rule_classes() -> list[type[Rule]]:
    found: list[type[Rule]] = []
    for name in FAMILIES:
        module = importlib.import_module(f"{__name__}.{name}")
        for value in vars(module).values():
            if (isinstance(value, type) and issubclass(value, Rule) and value.__module__ == module.__name__
                    and "code" in value.__dict__):
                found.append(value)
    return sorted(found, key=lambda cls: cls.code)


@hookimpl
def memvet_rules() -> list[type[Rule]]:
    return rule_classes()
