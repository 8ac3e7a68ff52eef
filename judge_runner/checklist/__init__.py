"""Checklist partial credit: frozen per-task checklists, item judgments from execution-log
evidence, the scripted outcome step, and the analyses built on them."""
