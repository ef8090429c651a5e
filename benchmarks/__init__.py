"""memvet benchmarks: a deterministic generator of batches and answers, and a runner.

``python benchmarks/run.py`` (or ``python -m benchmarks.run``) measures
memvet side by side with what a user would otherwise run (jsonschema,
pydantic) in one process and one run, and prints ratios: these machines are
noisy, ratios measured together are what can be compared across runs.
Nothing here is needed at run time by the package.
"""
