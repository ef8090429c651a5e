"""The four docstring sections every rule must have (the registry refuses a rule without them),
for the throwaway rules engine tests define: ``__doc__ = "Test rule: …\\n" + SECTIONS``."""

SECTIONS = """
    What it does:
        Nothing useful.
    Why is this bad?
        It is a test.
    Example:
        Prose only.
    Use instead:
        Prose only.
    """
