#!/usr/bin/env bash
# One prepared GPU check for the CuPy backend (issues 4 and 7): run it once on a
# machine with an NVIDIA GPU, then paste the SUMMARY block into the closing note.
#
#   bash scripts/gpu_check.sh                 # a machine with network: installs .[test,cuda12]
#   EXTRA=cuda13 bash scripts/gpu_check.sh    # the same for a CUDA 13 driver
#   bash scripts/gpu_wheels.sh                # here, first, for a machine WITHOUT network:
#                                             # then carry .whl/ and run gpu_check.sh there
#
# With .whl/ present it installs nothing from the network: the wheels go to
# /tmp/site and torchlight runs from this checkout, on the machine's own NumPy,
# CuPy and PyTorch CUDA. Steps, each capped so the whole fits a 15-minute lease:
# show the GPU, prove CuPy sees a device, the unit tests on the cupy backend,
# the conformance suite on GPU 0, and the benchmark's GPU workloads (W1-W3, W6)
# against PyTorch CUDA. Logs go to $OUT (or ./gpu_check_logs).
set -uo pipefail
cd "$(dirname "$0")/.."
EXTRA="${EXTRA:-cuda12}"
LOGS="${OUT:-gpu_check_logs}"
PY="${PYTHON:-python3}"
mkdir -p "$LOGS"
export PYTHONUNBUFFERED=1

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1 | tee "$LOGS/nvidia-smi.txt"

if compgen -G ".whl/*.whl" > /dev/null; then
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
        .whl/*.whl > "$LOGS/pip.txt" 2>&1
    pip_rc=$?
    export PYTHONPATH="/tmp/site:$PWD${PYTHONPATH:+:$PYTHONPATH}"
    install="wheels from .whl/ (no network)"
else
    "$PY" -m pip install -q -e ".[test,${EXTRA}]" > "$LOGS/pip.txt" 2>&1
    pip_rc=$?
    install="pip install -e .[test,${EXTRA}]"
fi
"$PY" - <<'PY' 2>&1 | tee "$LOGS/cupy.txt"
import numpy, cupy, torchlight as tl
print("numpy", numpy.__version__, "cupy", cupy.__version__, "devices:", cupy.cuda.runtime.getDeviceCount())
print("available:", {k: v[0] for k, v in tl.backends.available().items()})
x = tl.tensor([1.0, 2.0], backend="cupy", device=0, requires_grad=True)
(x * x).sum().backward()
print("grad", type(x.grad.data).__name__, x.grad.device, x.grad.tolist())
PY

timeout 200 "$PY" -m pytest tests --backend cupy -q -p no:cacheprovider -o addopts="" -rfs \
    > "$LOGS/pytest_cupy.txt" 2>&1
pytest_rc=$?
timeout 150 "$PY" -m conformance --backend cupy --device 0 --report "$LOGS/conformance_cupy.json" \
    > "$LOGS/conformance_cupy.txt" 2>&1
conformance_rc=$?
timeout 200 "$PY" -m bench --backend cupy --quick --json "$LOGS/bench_cupy.json" \
    --results "$LOGS/RESULTS-cupy.md" > "$LOGS/bench_cupy.txt" 2>&1
bench_rc=$?

echo "==================== SUMMARY ===================="
echo "install (${install}): exit ${pip_rc}"
echo "pytest tests --backend cupy: exit ${pytest_rc}"
grep -E "^(FAILED|ERROR)" "$LOGS/pytest_cupy.txt" | head -40
tail -n 1 "$LOGS/pytest_cupy.txt"
echo "python -m conformance --backend cupy --device 0: exit ${conformance_rc}"
grep -iE "fail" "$LOGS/conformance_cupy.txt" | grep -v " passed, " | head -40
tail -n 1 "$LOGS/conformance_cupy.txt"
echo "python -m bench --backend cupy --quick: exit ${bench_rc}"
grep -E "^W|MET|MISS|/" "$LOGS/bench_cupy.txt" | head -40
tail -n 2 "$LOGS/bench_cupy.txt"
