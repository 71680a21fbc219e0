#!/usr/bin/env bash
# Run every benchmark: verdict parity with verl, throughput, agreement with GSM8K labels, and the
# execution engine against verl's reward managers (runner_vs_verl.py).
# Called by `make bench`. Creates .venv-verl (verl 0.9.1 and its math extras) on first use.
# Results land in bench/results/*.json; see bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${REWARDLOOP_PYTHON:-.venv/bin/python}"
if [ ! -x "$PY" ]; then
    echo "bench: $PY not found; create the dev venv first (make test / make demo do it)" >&2
    exit 1
fi

if [ ! -x .venv-verl/bin/python ] || ! .venv-verl/bin/python -c "import verl.utils.reward_score" 2>/dev/null; then
    echo "bench: creating .venv-verl with verl 0.9.1 (one-time, several minutes)"
    python3 -m venv .venv-verl
    .venv-verl/bin/pip install torch==2.13.0
    .venv-verl/bin/pip install -c bench/verl-constraints.txt 'verl[math]==0.9.1'
fi

if [ ! -d ../shared/data ]; then
    echo "bench: ../shared/data not found: parity and throughput use the procedural corpus only;" \
         "gsm8k_labels is skipped"
fi

"$PY" bench/parity_verl.py
"$PY" bench/throughput.py
"$PY" bench/gsm8k_labels.py
"$PY" bench/runner_vs_verl.py
"$PY" bench/code_sandbox.py
"$PY" bench/managers_vs_verl.py
"$PY" bench/verifier.py
"$PY" bench/real_outputs.py
"$PY" bench/external_outputs_build.py
"$PY" bench/external_outputs.py --split test --speed
"$PY" bench/grader_tests.py
"$PY" bench/prime_math_cost.py
"$PY" bench/trl_reward.py
"$PY" bench/server_load.py
"$PY" bench/reward_models.py
"$PY" bench/output_formats.py
"$PY" bench/hard_answers.py
"$PY" bench/qa_equiv.py
echo "bench: results in bench/results/"
