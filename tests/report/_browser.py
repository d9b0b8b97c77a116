"""A real headless Chromium (Debian's `chromium` and `chromium-driver`) driven by Selenium, offline.

`make test` installs both packages when they are missing (as root, with apt). One browser serves a
whole test module: starting Chromium costs about a second.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage")
DESKTOP = (1280, 800)
PHONE = (390, 844)


def require_browser() -> tuple[str, str]:
    """Chromium's and chromedriver's paths. Missing, the browser tests skip on a developer's machine
    but fail under CI, where `make test` must have installed them: a skipped browser test is no test."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    driver_path = shutil.which("chromedriver")
    if binary is None or driver_path is None:
        message = "no chromium or chromedriver on PATH: `make test` installs them (apt, as root)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return binary, driver_path


@contextmanager
def open_chromium() -> Iterator[webdriver.Chrome]:
    """A fresh headless Chromium with its own profile, quit (and its profile removed) on exit."""
    binary, driver_path = require_browser()
    with tempfile.TemporaryDirectory(prefix="seka-chromium-") as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = binary
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        options.add_argument(f"--window-size={DESKTOP[0]},{DESKTOP[1]}")
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        # The driver's path is given, so Selenium Manager never tries to download one.
        driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=driver_path))
        try:
            set_viewport(driver, DESKTOP)
            yield driver
        finally:
            driver.quit()


def set_viewport(driver: webdriver.Chrome, size: tuple[int, int]) -> None:
    """Make the page's viewport exactly `size` CSS pixels (a phone's is flagged as mobile)."""
    width, height = size
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600})


def console_errors(driver: webdriver.Chrome) -> list[dict[str, Any]]:
    """The browser console's errors since the last call (reading the log empties it)."""
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def file_url(path: Path, fragment: str = "") -> str:
    return path.resolve().as_uri() + (f"#{fragment}" if fragment else "")


def overflow(driver: webdriver.Chrome) -> int:
    """How many CSS pixels the page is wider than its viewport (0 when nothing sticks out)."""
    return int(driver.execute_script(
        "return Math.max(0, document.documentElement.scrollWidth - document.documentElement.clientWidth);"))
