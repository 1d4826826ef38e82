"""The quote: every format a plan is shown in, built from the plan summary and nothing else.

Why a package of its own, apart from the command line and the workbench: both show the same quote,
and a renderer that lived in `ftopt.cli` made the workbench import the click package to show it.
Here the buyer's view of the plan (`view`: server groups, run rows, the appendix) is derived once
from `ftopt.model.summary.PlanSummary`, and a registry of formats (`formats`) lays it out as a
terminal table, Markdown, HTML, a workbook, JSON or YAML. The package sits above the solver and the
sweep (it draws their results) and below `ftopt.cli` and `ftopt.serve`, which only call it.
"""
