"""The audit viewer: static pages of a run's cases with every citation linked to its evidence.

`pages.write_run_pages` (a run), `compare.write_compare_page` (two runs side by side),
`lineage.write_lineage_page` (an evolution run); `commands` is the `view` command. The package
imports nothing here, so the command line starts fast.
"""
