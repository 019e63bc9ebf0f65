"""What a download button hands the browser, fetched the way Streamlit serves it on a click.

A download whose content is built on click (a callable) is registered with Streamlit's media
file manager; :func:`recording_media` keeps the manager AppTest creates for each run, and
:func:`download` asks it to run the button's callable exactly as the server does on a click.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from streamlit.runtime.media_file_manager import MediaFileManager
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1 import app_test as app_test_module
from streamlit.testing.v1.element_tree import DownloadButton


class _RecordingMediaFileManager(MediaFileManager):
    """Streamlit's own media file manager that remembers the last one created."""

    last: MediaFileManager | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _RecordingMediaFileManager.last = self


@contextmanager
def recording_media(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """While active, every AppTest run keeps its media file manager for :func:`download`."""
    monkeypatch.setattr(app_test_module, "MediaFileManager", _RecordingMediaFileManager)
    yield


def buttons(app: AppTest) -> list[DownloadButton]:
    """Every download button on the page, in order."""
    return [node for node in app.get("download_button") if isinstance(node, DownloadButton)]


def labels(app: AppTest) -> list[str]:
    """The labels of every download button on the page, in order."""
    return [button.label for button in buttons(app)]


def download(app: AppTest, label: str) -> tuple[str, bytes]:
    """``(file name, content)`` of the download button labelled ``label`` after the last run."""
    manager = _RecordingMediaFileManager.last
    assert manager is not None, "run the app inside recording_media()"
    for button in buttons(app):
        if button.label != label:
            continue
        proto = button.proto
        url = (
            manager.execute_deferred(proto.deferred_file_id)
            if proto.deferred_file_id
            else proto.url
        )
        storage = manager._storage
        assert isinstance(storage, MemoryMediaFileStorage)
        stored = storage.get_file(url.rsplit("/", 1)[-1])
        return stored.filename or "", stored.content
    raise AssertionError(f"no download button {label!r}; there are {labels(app)}")
