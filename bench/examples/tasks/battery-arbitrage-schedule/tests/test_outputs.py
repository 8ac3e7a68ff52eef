"""Verifier for battery-arbitrage-schedule."""

import csv
import json
from pathlib import Path

BAT = {"capacity_mwh": 4.0, "power_mw": 1.0, "efficiency": 0.9, "initial_soc_mwh": 2.0}
OPTIMAL_PROFIT = 412.37


def rows():
    with open("/root/output/schedule.csv") as handle:
        return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(handle)]


def test_schedule_exists():
    assert Path("/root/output/schedule.csv").is_file()


def test_soc_within_bounds():
    soc = BAT["initial_soc_mwh"]
    for r in rows():
        assert 0 <= r["charge_mw"] <= BAT["power_mw"] + 1e-6
        assert 0 <= r["discharge_mw"] <= BAT["power_mw"] + 1e-6
        soc = soc + BAT["efficiency"] * r["charge_mw"] - r["discharge_mw"]
        assert -1e-6 <= soc <= BAT["capacity_mwh"] + 1e-6
        assert abs(soc - r["soc_mwh"]) < 1e-3


def test_profit_optimal():
    profit = json.loads(Path("/root/output/profit.json").read_text())["profit_usd"]
    assert abs(profit - OPTIMAL_PROFIT) < 0.5
