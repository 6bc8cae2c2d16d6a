"""The development environment is the lock: every package requirements.lock pins for this
platform is installed at its version, and nothing else is installed (but this project and
pip). A venv made any other way, or a lock edited without `make lock`, fails here."""

from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

LOCK = Path(__file__).resolve().parent.parent / "requirements.lock"
NOT_LOCKED = {"mrvl-xdsl", "pip"}  # the project itself; pip comes with the venv


def locked_versions(text: str, environment: dict[str, str]) -> dict[str, str]:
    """name -> pinned version of the lock's requirements whose markers hold in `environment`."""
    pins = {}
    for line in text.replace("\\\n", " ").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        requirement = Requirement(line.split(" --hash", 1)[0].strip())
        if requirement.marker is None or requirement.marker.evaluate(environment):
            (spec,) = requirement.specifier
            assert spec.operator == "==", f"{requirement.name}: not pinned ({spec})"
            pins[canonicalize_name(requirement.name)] = spec.version
    return pins


def disagreements(pins: dict[str, str], installed: dict[str, str]) -> list[str]:
    """What differs between the lock's pins and the installed distributions (name -> version)."""
    problems = [f"{name}: locked {version}, installed {installed.get(name, 'nothing')}"
                for name, version in sorted(pins.items()) if installed.get(name) != version]
    problems += [f"{name} {version}: installed, not in the lock"
                 for name, version in sorted(installed.items()) if name not in pins and name not in NOT_LOCKED]
    return problems


def installed_distributions() -> dict[str, str]:
    return {canonicalize_name(d.metadata["Name"]): d.version for d in metadata.distributions()}


def test_venv_matches_the_lock():
    pins = locked_versions(LOCK.read_text(), default_environment())
    problems = disagreements(pins, installed_distributions())
    assert not problems, "the venv and requirements.lock disagree (make clean test):\n" + "\n".join(problems)


def test_disagreements_are_found():
    lock = ("numpy==2.4.6 ; python_full_version < '3.12' \\\n    --hash=sha256:00\n"
            "numpy==2.5.5 ; python_full_version >= '3.12' \\\n    --hash=sha256:11\n"
            "colorama==0.4.6 ; sys_platform == 'win32'\n"
            "onnx==1.23.2 \\\n    --hash=sha256:22\n    # via mrvl-xdsl\n")
    environment = dict(default_environment(), python_full_version="3.11.7", sys_platform="linux")
    pins = locked_versions(lock, environment)
    assert pins == {"numpy": "2.4.6", "onnx": "1.23.2"}
    assert disagreements(pins, {"numpy": "2.4.6", "onnx": "1.23.2", "pip": "23.2.1"}) == []
    assert disagreements(pins, {"numpy": "2.5.5", "onnx": "1.23.2"}) == ["numpy: locked 2.4.6, installed 2.5.5"]
    assert disagreements(pins, {"numpy": "2.4.6"}) == ["onnx: locked 1.23.2, installed nothing"]
    assert disagreements(pins, {"numpy": "2.4.6", "onnx": "1.23.2", "torch": "2.13.0"}) == [
        "torch 2.13.0: installed, not in the lock"]
