"""precis generate against CTranslate2 on one model's beam search, fp32 and int8 (and precis's
bf16 on AMX), side by side.

Both sides get the same inputs (the first N records of a JSON lines file, cut to
--max_source_length tokens by the model's tokenizer) and the same search (--num_beams beams,
bigrams banned as the model's generation config says, --max_length tokens). precis runs as
`precis generate` (timed whole: start-up, loading, tokenizing included); CTranslate2 runs
`translate_batch` on the model converted by its own converter (timed alone: the conversion,
loading and tokenizing are not). Each configuration runs in its own process, so the peak
resident memory printed is that process's (CTranslate2's includes Python and the tokenizer).
Rounds alternate the configurations, so all see the same background load. Prints seconds,
memory, the summaries equal to precis fp32's, and the ratios.

Needs ctranslate2 and transformers (the bench venv: scripts/bench-venv.sh or any venv with
both); the precis binary from --precis.

  python bench/beam_search_ct2.py --model out/demo/model \
      --data out/demo/debian-synopses/test.jsonl --text_column package_and_description
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

CT2_WORKER = r"""
import json, sys, time
import ctranslate2
from transformers import AutoTokenizer
model, ct2_dir, data, column, samples, max_source, beams, no_repeat, max_length, threads, compute, out = sys.argv[1:]
tok = AutoTokenizer.from_pretrained(model)
texts = [json.loads(l)[column] for l in open(data)][: int(samples)]
ids = tok(texts, truncation=True, max_length=int(max_source))["input_ids"]
source = [tok.convert_ids_to_tokens(i) for i in ids]
translator = ctranslate2.Translator(ct2_dir, device="cpu", intra_threads=int(threads), compute_type=compute)
start = time.time()
results = translator.translate_batch(source, max_batch_size=32, beam_size=int(beams),
    no_repeat_ngram_size=int(no_repeat), max_decoding_length=int(max_length) - 1,
    length_penalty=1.0, target_prefix=[[tok.bos_token]] * len(source))
seconds = time.time() - start
with open(out, "w") as f:
    for r in results:
        text = tok.decode(tok.convert_tokens_to_ids(r.hypotheses[0]), skip_special_tokens=True)
        f.write(json.dumps({"summary_text": text}) + "\n")
print(json.dumps({"seconds": seconds}))
"""


def convert(model, ct2_dir):
    """CTranslate2's own converter; its BART loader needs normalize_before in config.json."""
    import ctranslate2

    staged = tempfile.mkdtemp()
    for name in os.listdir(model):
        if os.path.isfile(os.path.join(model, name)):
            shutil.copy(os.path.join(model, name), staged)
    config = json.load(open(os.path.join(staged, "config.json")))
    config.setdefault("normalize_before", False)
    json.dump(config, open(os.path.join(staged, "config.json"), "w"))
    ctranslate2.converters.TransformersConverter(staged).convert(ct2_dir, force=True)
    shutil.rmtree(staged)


def timed(argv, env, stdout_path):
    """Runs argv under /usr/bin/time; returns (wall seconds, peak RSS MB, stdout text)."""
    with tempfile.NamedTemporaryFile("r") as t, open(stdout_path, "w") as out:
        start = time.time()
        subprocess.run(["/usr/bin/time", "-f", "%M", "-o", t.name] + argv, env=env, stdout=out,
                       stderr=subprocess.DEVNULL, check=True)
        wall = time.time() - start
        rss_mb = int(t.read().strip().splitlines()[-1]) / 1024
    return wall, rss_mb


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--text_column", required=True)
    ap.add_argument("--samples", type=int, default=1000)
    ap.add_argument("--max_source_length", type=int, default=40)
    ap.add_argument("--num_beams", type=int, default=8)
    ap.add_argument("--no_repeat_ngram_size", type=int, default=2)
    ap.add_argument("--max_length", type=int, default=32)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--precis", default="build/precis")
    ap.add_argument("--configs", default="precis fp32,precis int8,precis bf16,CTranslate2 fp32,CTranslate2 int8",
                    help="which to run (precis bf16 runs fp32 where the CPU has no AMX: leave it out there)")
    ap.add_argument("--ct2_dir", default=None, help="converted model (made here when absent)")
    args = ap.parse_args()

    work = tempfile.mkdtemp()
    ct2_dir = args.ct2_dir or os.path.join(work, "ct2")
    if not os.path.exists(os.path.join(ct2_dir, "model.bin")):
        convert(args.model, ct2_dir)
    inputs = os.path.join(work, "inputs.jsonl")
    with open(args.data) as f, open(inputs, "w") as out:
        for i, line in enumerate(f):
            if i == args.samples:
                break
            out.write(line)

    def precis_run(threads, quantization, int8_kernel=None):
        out = os.path.join(work, f"precis_{quantization}_{int8_kernel}_{threads}.jsonl")
        argv = [args.precis, "generate", "--model", args.model, "--input", inputs,
                "--text_column", args.text_column, "--max_source_length", str(args.max_source_length),
                "--num_beams", str(args.num_beams), "--no_repeat_ngram_size", str(args.no_repeat_ngram_size),
                "--max_length", str(args.max_length), "--batch_size", "32", "--quantization", quantization]
        env = dict(os.environ, OMP_NUM_THREADS=str(threads))
        if int8_kernel:
            env["PRECIS_CPU_INT8"] = int8_kernel
        wall, rss = timed(argv, env, out)
        return wall, rss, out

    def ct2_run(threads, compute):
        out = os.path.join(work, f"ct2_{compute}_{threads}.jsonl")
        log = os.path.join(work, "ct2_stdout.json")
        argv = [sys.executable, "-c", CT2_WORKER, args.model, ct2_dir, inputs, args.text_column,
                str(args.samples), str(args.max_source_length), str(args.num_beams),
                str(args.no_repeat_ngram_size), str(args.max_length), str(threads), compute, out]
        _, rss = timed(argv, dict(os.environ, OMP_NUM_THREADS=str(threads)), log)
        return json.load(open(log))["seconds"], rss, out

    # precis int8 runs the CPU's best int8 kernel; "precis int8 vnni" the AVX512-VNNI one (on an
    # AMX CPU, what AMX-INT8 is measured against).
    configs = [("precis fp32", precis_run, "none"), ("precis int8", precis_run, "int8"),
               ("precis int8 vnni", lambda t, q: precis_run(t, q, "avx512-vnni"), "int8"),
               ("precis bf16", precis_run, "bf16"),
               ("CTranslate2 fp32", ct2_run, "float32"), ("CTranslate2 int8", ct2_run, "int8")]
    wanted = args.configs.split(",")
    unknown = [c for c in wanted if c not in [name for name, _, _ in configs]]
    if unknown:
        sys.exit(f"--configs: unknown {unknown}")
    configs = [c for c in configs if c[0] in wanted]
    threads = [int(t) for t in args.threads.split(",")]
    seconds = {}
    rss = {}
    outputs = {}
    for r in range(args.rounds):
        for t in threads:
            for name, run, setting in configs:
                wall, mb, out = run(t, setting)
                seconds.setdefault((name, t), []).append(wall)
                rss[(name, t)] = max(rss.get((name, t), 0), mb)
                outputs[(name, t)] = [json.loads(l)["summary_text"] for l in open(out)]
                print(f"round {r + 1}, {t} thread(s): {name} {wall:.2f} s, {mb:.0f} MB", flush=True)

    print(f"\n{args.samples} inputs, {args.num_beams} beams, no_repeat_ngram_size {args.no_repeat_ngram_size}, "
          f"max_length {args.max_length}, batch 32")
    print("| | " + " | ".join(f"{t} thread(s)" for t in threads) + " | peak RSS | equal to precis fp32 |")
    print("|---|" + "---|" * len(threads) + "---|---|")
    names = [name for name, _, _ in configs]
    reference_name = "precis fp32" if "precis fp32" in names else names[0]
    reference = outputs[(reference_name, threads[0])]
    for name in names:
        times = " | ".join(" / ".join(f"{s:.2f}" for s in seconds[(name, t)]) + " s" for t in threads)
        equal = sum(a == b for a, b in zip(outputs[(name, threads[0])], reference))
        print(f"| {name} | {times} | {rss[(name, threads[0])]:.0f} MB | {equal}/{len(reference)} equal to {reference_name} |")
    best = {k: min(v) for k, v in seconds.items()}
    for t in threads:
        ratios = [f"{a} / {b} speed {best[(b, t)] / best[(a, t)]:.2f}x"
                  for a, b in [("precis fp32", "CTranslate2 fp32"), ("precis int8", "CTranslate2 int8"),
                               ("precis int8", "precis fp32"), ("precis int8", "precis int8 vnni")]
                  if a in names and b in names]
        print(f"{t} thread(s): " + ", ".join(ratios))
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
