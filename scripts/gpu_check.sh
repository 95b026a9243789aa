#!/usr/bin/env bash
# One prepared GPU check for the CuPy backend (issue 4): run it once on a machine
# with an NVIDIA GPU, then paste the SUMMARY block into the issue's closing note.
#
#   bash scripts/gpu_check.sh            # installs .[test,cuda12] (CUDA 12 driver)
#   EXTRA=cuda13 bash scripts/gpu_check.sh   # for a CUDA 13 driver
#
# Steps: show the GPU, install torchlight with its test extra and one CuPy wheel,
# prove CuPy sees a device, run the unit tests on the cupy backend, run the
# conformance suite on GPU 0. Logs go to $OUT (or ./gpu_check_logs).
set -uo pipefail
cd "$(dirname "$0")/.."
EXTRA="${EXTRA:-cuda12}"
LOGS="${OUT:-gpu_check_logs}"
mkdir -p "$LOGS"

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | tee "$LOGS/nvidia-smi.txt"

python -m pip install -q -e ".[test,${EXTRA}]" > "$LOGS/pip.txt" 2>&1
pip_rc=$?
python - <<'PY' 2>&1 | tee "$LOGS/cupy.txt"
import cupy, torchlight as tl
print("cupy", cupy.__version__, "devices:", cupy.cuda.runtime.getDeviceCount())
print("available:", {k: v[0] for k, v in tl.backends.available().items()})
x = tl.tensor([1.0, 2.0], backend="cupy", device=0, requires_grad=True)
(x * x).sum().backward()
print("grad", type(x.grad.data).__name__, x.grad.device, x.grad.tolist())
PY

timeout 240 python -m pytest tests --backend cupy -q -p no:cacheprovider -o addopts="" -rfs \
    > "$LOGS/pytest_cupy.txt" 2>&1
pytest_rc=$?
timeout 240 python -m conformance --backend cupy --device 0 --report "$LOGS/conformance_cupy.json" \
    > "$LOGS/conformance_cupy.txt" 2>&1
conformance_rc=$?

echo "==================== SUMMARY ===================="
echo "pip install .[test,${EXTRA}]: exit ${pip_rc}"
echo "pytest tests --backend cupy: exit ${pytest_rc}"
grep -E "^(FAILED|ERROR)" "$LOGS/pytest_cupy.txt" | head -40
tail -n 1 "$LOGS/pytest_cupy.txt"
echo "python -m conformance --backend cupy --device 0: exit ${conformance_rc}"
grep -iE "fail" "$LOGS/conformance_cupy.txt" | head -40
tail -n 1 "$LOGS/conformance_cupy.txt"
