"""Verifier for sales-monthly-summary."""

import csv
import json
from collections import defaultdict
from pathlib import Path

OUT = Path("/root/output/monthly_summary.json")


def expected():
    revenue = defaultdict(float)
    by_region = defaultdict(lambda: defaultdict(float))
    with open("/root/data/orders.csv") as handle:
        for row in csv.DictReader(handle):
            if row["status"] != "shipped":
                continue
            month = row["date"][:7]
            value = int(row["units"]) * float(row["unit_price"])
            revenue[month] += value
            by_region[month][row["region"]] += value
    return revenue, by_region


def test_file_exists():
    assert OUT.is_file()


def test_months_and_top_regions():
    revenue, by_region = expected()
    data = json.loads(OUT.read_text())
    assert [m["month"] for m in data["months"]] == sorted(revenue)
    for item in data["months"]:
        top = max(by_region[item["month"]].items(), key=lambda kv: kv[1])[0]
        assert item["top_region"] == top


def test_total_revenue():
    revenue, _ = expected()
    data = json.loads(OUT.read_text())
    assert abs(data["total_revenue"] - round(sum(revenue.values()), 2)) < 0.01
