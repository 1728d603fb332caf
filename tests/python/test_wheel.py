"""The installed wheel (scripts/install_wheel_environment.sh; scripts/test.sh sets POOLGRAD_FROM_WHEEL=1):
the suites really import the package from the venv's site-packages, which loads the library inside
itself, and the console script poolgrad-golden works."""

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import poolgrad
from poolgrad._library import library

pytestmark = pytest.mark.skipif(os.environ.get("POOLGRAD_FROM_WHEEL") != "1",
                                reason="POOLGRAD_FROM_WHEEL=1 not set (scripts/test.sh sets it for the wheel venv)")


def test_package_and_library_come_from_the_installed_wheel():
    package = Path(poolgrad.__file__).resolve().parent
    assert package.parent == Path(sysconfig.get_paths()["platlib"]).resolve()
    assert "POOLGRAD_LIBRARY" not in os.environ and "PYTHONPATH" not in os.environ
    assert Path(library._name).resolve().parent == package
    assert (package / "torch" / "functional.py").is_file()


def test_library_needs_nothing_outside_the_package_but_system_runtimes():
    """libpoolgrad finds the Highway runtime beside itself ($ORIGIN), not in the system."""
    package = Path(poolgrad.__file__).resolve().parent
    linked = subprocess.run(["ldd", library._name], capture_output=True, text=True, check=True).stdout
    highway = [line for line in linked.splitlines() if "libhwy" in line]
    assert highway and all(str(package) in line for line in highway), linked


def test_console_script():
    script = Path(sys.executable).parent / "poolgrad-golden"
    result = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "golden" in result.stdout.lower(), result.stderr
