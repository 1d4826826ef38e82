"""`ftopt serve`: the presales workbench, bids with a history that is never lost, in the browser.

One concept per module: `store` (SQLite: bids, versions, solves), `jobs` (solves in worker
processes), `workloads` (text and form fields into validated workloads), `quotes` (a stored plan in
each download format), `diff` (two versions compared), `security` (token, CSRF, limits), `api` (the
JSON API under /api), `pages` (the server-rendered pages) and `app` (which wires them together).
"""
