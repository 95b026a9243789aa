#!/usr/bin/env bash
# Fetch, here, the wheels a GPU machine without network lacks: torchlight's
# pure-Python dependencies (its image already has NumPy, CuPy, PyTorch CUDA,
# pytest, hypothesis, safetensors, scikit-learn, tqdm and threadpoolctl).
# They land in .whl/ (ignored by git); carry that folder to the GPU run, where
# scripts/gpu_check.sh installs them with --no-index.
#
#   bash scripts/gpu_wheels.sh            # for the GPU machine's Python 3.12
#   PYVER=3.13 bash scripts/gpu_wheels.sh
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .whl
python3 -m pip download -q --no-deps --only-binary=:all: --python-version "${PYVER:-3.12}" \
    --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 -d .whl \
    "array-api-compat>=1.12" "array-api-strict>=2.3"
ls -l .whl
