"""Time to score the oracle's prediction/reference pairs: precis rouge vs rouge_score, in the
same run, same machine, same pairs (tests/oracle/test_rouge_corpus.py), use_stemmer=True.
rouge_score is timed in-process (scoring only, the Python tokenizer and stemmer included);
precis is timed end to end as a process (start, read files, score, bootstrap, print).

    PRECIS_BUILD_DIR=build .venv/bin/python bench/rouge_bench.py [--repeat 3]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "oracle"))
from test_rouge_corpus import rouge_pairs  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from rouge_score import rouge_scorer, scoring
    import numpy as np

    pairs = rouge_pairs()
    build = pathlib.Path(os.environ.get("PRECIS_BUILD_DIR", ROOT / "build"))
    tmp = pathlib.Path(tempfile.mkdtemp())
    (tmp / "p.jsonl").write_text("".join(json.dumps(p) + "\n" for p, _ in pairs))
    (tmp / "r.jsonl").write_text("".join(json.dumps(r) + "\n" for _, r in pairs))
    cmd = [str(build / "precis"), "rouge", "--predictions", str(tmp / "p.jsonl"), "--references", str(tmp / "r.jsonl")]

    best_py = best_py_agg = best_cpp = float("inf")
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)
        scores = [scorer.score(r, p) for p, r in pairs]
        t1 = time.perf_counter()
        aggregator = scoring.BootstrapAggregator()
        for s in scores:
            aggregator.add_scores(s)
        np.random.seed(0)
        aggregator.aggregate()
        t2 = time.perf_counter()
        best_py, best_py_agg = min(best_py, t1 - t0), min(best_py_agg, t2 - t0)
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        best_cpp = min(best_cpp, time.perf_counter() - t0)
    print(f"pairs: {len(pairs)} (best of {args.repeat})")
    print(f"rouge_score scoring:              {best_py:8.3f} s")
    print(f"rouge_score scoring + bootstrap:  {best_py_agg:8.3f} s")
    print(f"precis rouge (process, all of it): {best_cpp:8.3f} s")
    print(f"speed-up vs scoring + bootstrap:  {best_py_agg / best_cpp:8.1f}x")


if __name__ == "__main__":
    main()
