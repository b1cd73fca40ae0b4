"""The llama.cpp the install built is portable: no AMX and no AVX-512 kernels, whatever the build CPU had.

A native build (``-march=native``) made on an AMX or AVX-512 machine fails here, unless the user
opted in with ``NATIONBIAS_LLAMA_NATIVE=1`` (docs/models.md: "A native llama.cpp build").
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
import tomllib
from pathlib import Path

NATIVE = os.environ.get("NATIONBIAS_LLAMA_NATIVE", "").strip() == "1"
OUTSIDE_PORTABLE = re.compile(r"\b(AMX\w*|AVX512\w*|AVX_VNNI)\s*=\s*1")
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def system_info() -> str:
    """``llama_print_system_info()`` in a child process (this one never loads llama.cpp for a study)."""
    code = "import llama_cpp; print(llama_cpp.llama_print_system_info().decode())"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout


def test_the_installed_library_has_no_kernel_outside_the_portable_set() -> None:
    info = system_info()
    assert "CPU :" in info, info
    if NATIVE:  # opted in: whatever this CPU has is allowed
        return
    found = OUTSIDE_PORTABLE.findall(info)
    assert found == [], f"not a portable build (NATIONBIAS_LLAMA_NATIVE=1 if you chose native): {info}"
    if platform.machine().lower() in ("x86_64", "amd64"):
        assert all(f"{f} = 1" in info for f in ("AVX2", "FMA", "F16C")), info  # x86-64-v3, not less


def test_the_shipped_build_flags_are_the_portable_ones() -> None:
    settings = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    args = settings["tool"]["uv"]["extra-build-variables"]["llama-cpp-python"]["CMAKE_ARGS"].split()
    if NATIVE:
        assert "-DGGML_NATIVE=ON" in args
        return
    assert "-DGGML_NATIVE=OFF" in args
    assert {"-DGGML_AVX2=ON", "-DGGML_FMA=ON", "-DGGML_F16C=ON"} <= set(args)
    assert {"-DGGML_AVX512=OFF", "-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF"} <= set(
        args
    )
