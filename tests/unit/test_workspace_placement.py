"""A replayed cell's workspace is made where it was recorded (`WorkspaceFactory(placed=...)`): only at an
absolute, normal `cell-*` path that does not exist yet; anything else gets a fresh workspace in the run's
folder. The folders made for it are unlisted (0711) and removed with it when the run closes; folders that
were there before are left."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from assay_runner.agents.workspace import UNLISTED_DIR, WorkspaceFactory, placeable
from assay_runner.gateway.metering.exchanges import Exchanges
from assay_runner.suite.models import Ticket

TICKET = Ticket(id="T-1", split="validation", question="q")


def factory(tmp_path: Path, place: Path | None) -> WorkspaceFactory:
    return WorkspaceFactory(tmp_path / "runs", None, {"KB-1": "article"}, placed=lambda _t, _r: place)


def test_a_placed_workspace_is_made_where_recorded_and_removed_with_the_folders_made_for_it(
    tmp_path: Path,
) -> None:
    kept = tmp_path / "there"
    kept.mkdir()
    place = kept / "assay-run-old" / "cell-abc"
    workspaces = factory(tmp_path, place)
    workspace = workspaces.create(TICKET, 1)
    assert workspace.root == place and (place / "kb" / "KB-1.md").read_text() == "article"
    assert stat.S_IMODE(place.parent.stat().st_mode) == UNLISTED_DIR
    assert stat.S_IMODE(place.stat().st_mode) == stat.S_IRWXU
    workspaces.close()  # a stopped run: the workspace was not discarded
    assert not place.parent.exists() and kept.is_dir()


def test_a_discarded_placed_workspace_leaves_no_folder_behind_once_the_run_closes(tmp_path: Path) -> None:
    place = tmp_path / "a" / "b" / "cell-abc"
    workspaces = factory(tmp_path, place)
    workspaces.discard(workspaces.create(TICKET, 1))
    workspaces.close()
    assert not (tmp_path / "a").exists()


@pytest.mark.parametrize(
    "place",
    ["relative/cell-abc", "{tmp}/x/../cell-abc", "{tmp}/not-a-cell", "{tmp}/taken/cell-abc"],
)
def test_a_place_that_is_not_a_new_cell_folder_gets_a_fresh_workspace(tmp_path: Path, place: str) -> None:
    (tmp_path / "taken" / "cell-abc").mkdir(parents=True)
    asked = Path(place.format(tmp=tmp_path))
    assert not placeable(asked)
    workspaces = factory(tmp_path, asked)
    workspace = workspaces.create(TICKET, 1)
    assert workspace.root.parent == workspaces.base and workspace.root.name.startswith("cell-")
    assert (tmp_path / "taken" / "cell-abc").is_dir() and not any((tmp_path / "taken" / "cell-abc").iterdir())
    workspaces.discard(workspace)
    workspaces.close()


def test_the_recorded_workspace_is_read_back_and_an_unreadable_record_places_nothing(tmp_path: Path) -> None:
    exchanges = Exchanges(tmp_path)
    exchanges.save_workspace("T-1/1", Path("/tmp/assay-run-x/cell-y"))
    assert exchanges.workspace_of("T-1/1") == Path("/tmp/assay-run-x/cell-y")
    assert exchanges.workspace_of("T-2/1") is None
    (tmp_path / "exchanges" / "T-3" / "1").mkdir(parents=True)
    for broken in ("not json", '{"root": 7}', "[]"):
        (tmp_path / "exchanges" / "T-3" / "1" / "workspace.json").write_text(broken)
        assert exchanges.workspace_of("T-3/1") is None
