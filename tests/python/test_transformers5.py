"""The package beside transformers 5 (.venv-hf5, the second oracle's environment, with the
package this build made on its path): precis.train takes a 5.x Seq2SeqTrainingArguments object
(to_dict() holds None where 4.44 held defaults, and 5's new names) and gives `precis train`'s
weights bit for bit; precis.pipeline("summarization") works where 5 removed the task."""
import json
import os
import subprocess
import textwrap

from safetensors.torch import load_file

from conftest import PACKAGE_PARENT
from hf5_oracle import oracle_python
from train_support import MAX_SOURCE_LENGTH, MAX_TARGET_LENGTH, make_job, precis_train

SCRIPT = """
import json, sys
sys.path.insert(0, {package!r})
import precis, transformers
args = transformers.Seq2SeqTrainingArguments(
    output_dir={out!r}, per_device_train_batch_size=6, learning_rate=1e-3, weight_decay=0.01, warmup_steps=1,
    max_grad_norm=1.0, max_steps=3, logging_steps=1, save_strategy="no", use_cpu=True, seed=7, optim="adamw_torch")
result = precis.train(args, **{files!r})
summary = precis.pipeline("summarization", model={out!r})("Amanda: I baked cookies. Do you want some?")
try:
    transformers.pipeline("summarization")
    removed = False
except KeyError:
    removed = True
print(json.dumps({{"version": transformers.__version__, "global_step": result.global_step,
                  "summary": summary, "transformers_summarization_removed": removed}}))
"""


def test_precis_under_transformers_5(tmp_path):
    make_job(tmp_path)
    files = dict(model_name_or_path=str(tmp_path / "base"), train_file=str(tmp_path / "train.jsonl"),
                 max_source_length=MAX_SOURCE_LENGTH, max_target_length=MAX_TARGET_LENGTH)
    out = tmp_path / "python5"
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent(SCRIPT.format(package=PACKAGE_PARENT, out=str(out), files=files)))
    # Without PRECIS_HF_SEMANTICS: the package follows 5 by default.
    env = {k: v for k, v in os.environ.items() if k != "PRECIS_HF_SEMANTICS" and not k.startswith("PYTHON")}
    env["OMP_NUM_THREADS"] = "1"
    result = subprocess.run([oracle_python("5"), str(script)], capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    answer = json.loads(result.stdout.strip().splitlines()[-1])
    assert answer["version"] == "5.23.0" and answer["global_step"] == 3
    assert answer["transformers_summarization_removed"]
    assert isinstance(answer["summary"][0]["summary_text"], str)
    cli, _, _, _ = precis_train(tmp_path, tmp_path / "cli", hf_semantics="5")
    ours = load_file(str(out / "model.safetensors"))
    assert ours.keys() == cli.keys()
    assert all(ours[k].equal(cli[k]) for k in ours), "precis.train under 5 differs from precis train --hf_semantics 5"


def test_set_hf_semantics_chooses_the_release_followed(tmp_path, tiny_bpe_dir):
    # test_hf_semantics's beam-search model and settings, one text at a time: 5.x stops earlier.
    import torch
    import precis
    from bart_models import CNN, TEXTS, save_model
    from hf5_oracle import run_hf5
    model, tok = save_model(tiny_bpe_dir, tmp_path / "silu", "silu-positions", 0, 6.0, **CNN)
    texts = [t for t in TEXTS if len(tok(t)["input_ids"]) <= 40]  # the model's 40 positions
    settings = dict(early_stopping=False)
    with torch.no_grad():
        v4 = [model.generate(**tok(t, return_tensors="pt"), **settings)[0].tolist() for t in texts]
    v5 = run_hf5("generate.py", dict(model_dir=str(tmp_path / "silu"), texts=texts, max_source=40, batch_size=1,
                                     cases={"c": settings}))["c"]["ids"]
    assert v4 != v5
    before = precis.hf_semantics()
    try:
        for release, ref in (("4.44", v4), ("5", v5)):
            precis.set_hf_semantics(release)
            assert precis.hf_semantics() == release
            summarizer = precis.pipeline("summarization", model=tmp_path / "silu")
            rows = summarizer(texts, return_tensors=True, **settings)
            assert [r["summary_token_ids"] for r in rows] == ref, release
    finally:
        precis.set_hf_semantics(before)
