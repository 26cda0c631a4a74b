"""Shared fixtures: a live server for a Starlette app, a headless Chromium page, a local Ray.

Browser tests use Debian's ``chromium`` (``/usr/bin/chromium``) driven by Playwright; the
browser is never downloaded. Without it they skip locally, and fail under CI (``CI`` set),
where ``.ci/run`` installs it. Ray tests likewise skip without the ``ray`` extra and fail
under CI.
"""

from __future__ import annotations

import importlib
import os
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """Run ``app`` with uvicorn on a free localhost port in a thread; yields its base URL."""
    import uvicorn

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def live_server() -> Iterator[Callable[[Any], str]]:
    """``live_server(app) -> base_url``: serves apps until the test ends."""
    stack: list[Any] = []

    def start(app: Any) -> str:
        ctx = serve(app)
        stack.append(ctx)
        return ctx.__enter__()

    yield start
    for ctx in reversed(stack):
        ctx.__exit__(None, None, None)


def _browser_missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[dev]')"
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        return f"no Chromium at {CHROMIUM} (apt-get install -y chromium)"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium per test module (skips locally without it; fails under CI)."""
    missing = _browser_missing()
    if missing:
        skip_or_fail(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page (its own context: no shared cookies or storage) with a 10 s timeout."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def skip_or_fail(reason: str) -> None:
    """An optional dependency is missing: skip locally, fail under CI (which installs them all)."""
    if os.environ.get("CI"):
        pytest.fail(f"CI runs these tests: {reason}")
    pytest.skip(reason)


def need_module(name: str, install: str) -> Any:
    """Import an optional module, or skip/fail (:func:`skip_or_fail`) naming its install line."""
    try:
        return importlib.import_module(name)
    except ImportError:
        skip_or_fail(f"{name} is not installed: {install}")


def need_ray() -> Any:
    """The ``ray`` module (the ``ray`` extra)."""
    return need_module("ray", "pip install -e '.[ray]'")


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    """One local Ray (2 CPUs, no dashboard, no usage stats) per test module; yields ``ray``."""
    ray = need_ray()
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        yield ray
    finally:
        ray.shutdown()
