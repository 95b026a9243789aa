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
# the conformance suite on GPU 0, a compiled program's fused CuPy kernels against
# eager, and the benchmark's GPU workloads (W1-W3, W6) against PyTorch CUDA, eager
# and torch.compile, at sizes that fill an H200 (--scale 100: W3 at 4e8 float32
# elements, W2 a batch of 25,600, W6 3,200 matrices). Logs go to $OUT (or ./gpu_check_logs).
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
"$PY" - <<'PY' 2>&1 | tee "$LOGS/fusion_cupy.txt"
import cupy, numpy as np, torchlight as tl
from torchlight.compile.fusion import fused_steps
rng = np.random.default_rng(0)
def w3(x, w):
    return ((x * w).tanh() * x.sigmoid() + (-x * x).exp()).sum()
for dtype in (np.float32, np.float64):
    xs = [tl.tensor(cupy.asarray(rng.standard_normal(1_000_003).astype(dtype)), backend="cupy", requires_grad=True)
          for _ in range(2)]
    f = tl.compile(w3)
    f(*xs).backward()
    got = [cupy.asnumpy(x.grad.data) for x in xs]
    for x in xs:
        x.grad = None
    loss = f(*xs)
    loss.backward()
    (p,), = f.programs.values()
    kernels = sum(fused_steps(s) for s in (p.infer, p.train, p.backward, p.backward_one))
    # the loss summed by a ReductionKernel (fusion.sum_in_kernels), not written and summed
    lists = [getattr(s, "loop", s) for s in (p.infer, p.train) if s is not None]  # (a blocked list: its loop)
    reductions = sum(getattr(s.forward, "__name__", "") == "reducing" for steps in lists for s in steps)
    replay = [cupy.asnumpy(x.grad.data) for x in xs]
    err = max(float(np.max(np.abs(a - b) / (np.abs(b) + 1e-6))) for a, b in zip(replay, got))
    with tl.no_grad():
        eager = float(w3(*xs).item())
    loss_err = abs(float(loss.item()) - eager) / abs(eager)
    print(f"fused CuPy kernels, {np.dtype(dtype).name}: {kernels} kernels, {reductions} reductions, "
          f"replay vs eager max rel err {err:.1e}, loss rel err {loss_err:.1e}")
PY

timeout 200 "$PY" -m pytest tests --backend cupy -q -p no:cacheprovider -o addopts="" -rfs \
    > "$LOGS/pytest_cupy.txt" 2>&1
pytest_rc=$?
timeout 150 "$PY" -m conformance --backend cupy --device 0 --report "$LOGS/conformance_cupy.json" \
    > "$LOGS/conformance_cupy.txt" 2>&1
conformance_rc=$?
timeout 300 "$PY" -m bench --backend cupy --quick --scale 100 --torch-compile --json "$LOGS/bench_cupy.json" \
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
grep -E "^fused" "$LOGS/fusion_cupy.txt"
echo "python -m bench --backend cupy --quick --scale 100 --torch-compile: exit ${bench_rc}"
grep -E "^W|MET|MISS|/" "$LOGS/bench_cupy.txt" | head -60
tail -n 2 "$LOGS/bench_cupy.txt"
