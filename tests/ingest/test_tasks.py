"""The category → domain map: the bundled one is package data; a user's file overrides it."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from judge_runner.cases import Domain
from judge_runner.ingest.tasks import BUNDLED_DOMAINS, DomainMap


def test_the_bundled_map_is_package_data_read_through_importlib_resources() -> None:
    resource = resources.files("judge_runner.ingest").joinpath(BUNDLED_DOMAINS)
    assert resource.is_file()
    bundled = DomainMap.load()
    assert bundled == DomainMap.parse(resource.read_text("utf-8"), "resource")
    assert bundled.domain_for("any-task", "Security") is Domain.CYBERSECURITY
    assert bundled.domain_for("flood-risk-analysis", "research") is Domain.NATURAL_SCIENCE
    assert bundled.domain_for("any-task", "cooking") is None
    # an override wins over its (generic) category
    assert bundled.domain_for("protein-expression-analysis", "data-analysis") \
        is Domain.NATURAL_SCIENCE
    assert bundled.domain_for("any-task", "data-analysis") is Domain.OFFICE_WORKFLOWS


def test_every_domain_of_the_bundled_map_is_reachable() -> None:
    bundled = DomainMap.load()
    assert set(bundled.by_category.values()) | set(bundled.by_task.values()) == set(Domain)


def test_a_user_file_replaces_the_bundled_map(tmp_path: Path) -> None:
    path = tmp_path / "domains.toml"
    path.write_text('[categories]\n"Research" = "natural_science"\n\n'
                    '[tasks]\n"flood-risk-analysis" = "energy"\n', encoding="utf-8")
    mine = DomainMap.load(path)
    assert mine.domain_for("t", "research") is Domain.NATURAL_SCIENCE
    assert mine.domain_for("flood-risk-analysis", "research") is Domain.ENERGY
    assert mine.domain_for("t", "security") is None  # not merged with the bundled map


@pytest.mark.parametrize(("text", "expected"), [
    ('[categories]\n"x" = "cooking"\n', r"'x' = 'cooking' is not a domain"),
    ('categories = 3\n', r"\[categories\] must be a table"),
    ('[categories\n', "not valid TOML"),
])
def test_a_bad_user_file_is_refused_naming_the_file(tmp_path: Path, text: str,
                                                     expected: str) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=expected) as info:
        DomainMap.load(path)
    assert str(path) in str(info.value)


@pytest.mark.shared
def test_every_skillsbench_category_and_task_maps_to_a_domain(shared_categories: Path) -> None:
    bundled = DomainMap.load()
    rows = [line.split("\t") for line in shared_categories.read_text("utf-8").splitlines()[1:]
            if line.strip()]
    assert len(rows) > 50  # the whole task set, not a stub
    no_category = sorted({category for _, category in rows
                          if bundled.by_category.get(category.strip().lower()) is None})
    no_domain = sorted(task for task, category in rows
                       if bundled.domain_for(task, category) is None)
    assert no_category == [] and no_domain == []
    # overrides name real tasks, so a renamed task cannot leave a dead entry behind
    assert set(bundled.by_task) <= {task for task, _ in rows}
