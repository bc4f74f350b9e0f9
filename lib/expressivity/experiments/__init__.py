"""Which instances we run: the rows of each workflow job, built from the job's wildcards and its
config section (passed by keyword), one module or package per stage.

This layer sits between the mathematics (``expressivity.<object>``, which it imports) and the
claims (``expressivity.claims.<stage>``, which read the tables it produces); the mathematics never
imports it. Workflow scripts, tests and benchmarks call the same functions.
"""
