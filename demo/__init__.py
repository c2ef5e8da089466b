"""The demo and the scale data set, apart from the product (ADR 0049).

`staff` (jurisdictions and one user per role), `tariffs`, `register`, `unclaimed` and `history`
write the demo that `manage.py seed_demo` loads; `scale` writes the benchmark data set of
`manage.py seed_scale`. The app is installed only with DEBUG on or DEMO=true.
"""
