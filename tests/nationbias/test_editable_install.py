"""The editable install (`uv sync`) is a path to the checkout, never a copy of it.

pyproject.toml's wheel target maps the card's folders beneath ``nationbias/`` with ``sources``; a
``force-include`` did the same for the wheel but was copied into site-packages by the editable install too,
a stale second tree beside the working one. Now the install is one .pth line naming the checkout: what
``import nationbias.<folder>...`` loads is the file in the checkout, as edited a moment ago.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FOLDERS = ("graphs", "retrievers", "prompts", "stores", "evals")


def test_the_install_is_editable_and_copies_no_module() -> None:
    dist = metadata.distribution("nationbias")
    direct_url = json.loads(dist.read_text("direct_url.json") or "{}")
    assert direct_url.get("dir_info", {}).get("editable") is True, direct_url
    installed = [f.as_posix() for f in dist.files or ()]
    copied = [f for f in installed if f.startswith("nationbias/") or f.endswith(".py")]
    assert not copied, f"the editable install copied {len(copied)} files into site-packages: {copied[:5]}"
    pth = [f for f in dist.files or () if f.suffix == ".pth"]
    assert len(pth) == 1, installed
    lines = Path(str(dist.locate_file(pth[0]))).read_text(encoding="utf-8").split()
    assert [Path(line).resolve() for line in lines] == [REPO]


def test_an_edit_in_the_checkout_is_what_the_import_loads(tmp_path: Path) -> None:
    """A module written into the checkout now, and an existing one, load from the checkout's folders."""
    name = f"_editable_probe_{uuid.uuid4().hex[:12]}"
    token = uuid.uuid4().hex
    probe = REPO / "stores" / f"{name}.py"
    probe.write_text(f'"""Written by {Path(__file__).name}; removed by it."""\n\nTOKEN = "{token}"\n')
    code = (
        f"import nationbias.stores.{name} as probe, nationbias.stores.config.settings as settings\n"
        "print(probe.TOKEN); print(probe.__file__); print(settings.__file__)\n"
    )
    try:
        # -I: no PYTHONPATH, no working directory on the path (only the .pth finds the checkout); -B: no .pyc
        result = subprocess.run(
            [sys.executable, "-I", "-B", "-c", code],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=tmp_path,
        )
    finally:
        probe.unlink()
    assert result.returncode == 0, result.stderr[-2000:]
    printed_token, probe_file, settings_file = result.stdout.split()
    assert printed_token == token
    assert Path(probe_file).resolve() == probe.resolve()
    assert Path(settings_file).resolve() == (REPO / "stores" / "config" / "settings.py").resolve()


def test_no_site_packages_holds_a_second_tree() -> None:
    import site

    for folder in [*site.getsitepackages(), site.getusersitepackages()]:
        for name in ("nationbias", *FOLDERS):
            assert not (Path(folder) / name).exists(), f"{folder}/{name} would shadow or double the checkout"
