"""The applications: posing a problem from what the user typed, the solve pipeline, surveys
of whole boards, batches on Dask.

May import: everything except ``cli``. Each takes one ``Deadline`` (made at the edge: by the
CLI, per batch job, per survey problem) and returns the one ``model.result.Result``.
"""
