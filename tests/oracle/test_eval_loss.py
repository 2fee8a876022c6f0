"""`precis eval` against Seq2SeqTrainer.evaluate() with run_summarization's preprocessing."""
import json

import pytest
import torch
from transformers import AutoTokenizer, DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments

from bart_models import make_bart
from conftest import UNICODE_CORPUS, run_precis, train_tiny_bpe

DIALOGUES = [
    ("Amanda: I baked cookies. Do you want some?\nJerry: Sure!\nAmanda: I'll bring you tomorrow :-)",
     "Amanda baked cookies and will bring Jerry some tomorrow."),
    ("Olivia: Who are you voting for in this election?\nOliver: Liberals as always.\nOlivia: Me too!!",
     "Olivia and Oliver are voting for liberals in this election."),
    ("Tim: Hi, what's up?\nKim: Bad mood tbh, I was going to do lots of stuff but ended up procrastinating\n"
     "Tim: What did you plan on doing?\nKim: Oh you know, uni stuff and unfucking my room\nKim: Maybe tomorrow",
     "Kim may try the pomodoro technique recommended by Tim to get more stuff done."),
] + [(text, text[: max(1, len(text) // 3)]) for text in UNICODE_CORPUS if text.strip()]


def hf_eval_loss(model, tokenizer, records, batch_size, max_source, max_target, output_dir, prefix=""):
    """run_summarization.py's preprocess_function + Seq2SeqTrainer.evaluate()."""
    inputs = [prefix + r["dialogue"] for r in records if r["dialogue"] and r["summary"]]
    targets = [r["summary"] for r in records if r["dialogue"] and r["summary"]]
    enc = tokenizer(inputs, max_length=max_source, truncation=True)
    labels = tokenizer(text_target=targets, max_length=max_target, truncation=True)
    features = [{"input_ids": i, "attention_mask": m, "labels": l}
                for i, m, l in zip(enc["input_ids"], enc["attention_mask"], labels["input_ids"])]
    collator = DataCollatorForSeq2Seq(tokenizer, model=model, label_pad_token_id=-100)
    args = Seq2SeqTrainingArguments(output_dir=str(output_dir), per_device_eval_batch_size=batch_size,
                                    report_to=[], use_cpu=True)
    trainer = Seq2SeqTrainer(model=model, args=args, data_collator=collator, eval_dataset=features)
    return trainer.evaluate()["eval_loss"], len(features)


@pytest.mark.parametrize("batch_size,max_source,max_target,prefix", [
    (4, 64, 16, ""), (3, 12, 5, "summarize: "), (1, 120, 100, ""), (5, 128, 128, ""),
])
def test_eval_loss_equals_seq2seq_trainer(tmp_path, batch_size, max_source, max_target, prefix):
    tokenizer = train_tiny_bpe(tmp_path / "model")
    model = make_bart("narrow-gelu", len(tokenizer))
    model.save_pretrained(tmp_path / "model")
    tokenizer = AutoTokenizer.from_pretrained(tmp_path / "model")
    records = [{"dialogue": d, "summary": s} for d, s in DIALOGUES]
    records.append({"dialogue": "", "summary": "dropped: empty text"})
    with open(tmp_path / "data.jsonl", "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    ref_loss, ref_samples = hf_eval_loss(model, tokenizer, records, batch_size, max_source, max_target, tmp_path / "hf", prefix)
    out = run_precis("eval", "--model", tmp_path / "model", "--data", tmp_path / "data.jsonl",
                     "--per_device_eval_batch_size", batch_size, "--max_source_length", max_source,
                     "--max_target_length", max_target, "--source_prefix", prefix)
    ours = json.loads(out.stdout)
    assert ours["eval_samples"] == ref_samples
    assert abs(ours["eval_loss"] - ref_loss) / ref_loss <= 1e-5, (ours["eval_loss"], ref_loss)
    assert ours["eval_runtime"] > 0 and ours["eval_samples_per_second"] > 0


def test_eval_truncates_labels_to_val_max_target_length(tmp_path):
    """run_summarization evaluates with labels cut to val_max_target_length; max_target_length
    (training's) is only its default. A job's command line with both runs unchanged."""
    tokenizer = train_tiny_bpe(tmp_path / "model")
    model = make_bart("narrow-gelu", len(tokenizer))
    model.save_pretrained(tmp_path / "model")
    tokenizer = AutoTokenizer.from_pretrained(tmp_path / "model")
    records = [{"dialogue": d, "summary": s} for d, s in DIALOGUES]
    with open(tmp_path / "data.jsonl", "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    ref_val, _ = hf_eval_loss(model, tokenizer, records, 4, 64, 5, tmp_path / "hf5")
    ref_train, _ = hf_eval_loss(model, tokenizer, records, 4, 64, 128, tmp_path / "hf128")
    assert abs(ref_val - ref_train) > 1e-3 * ref_val  # the labels' length changes the loss
    common = ("eval", "--model", tmp_path / "model", "--data", tmp_path / "data.jsonl",
              "--per_device_eval_batch_size", 4, "--max_source_length", 64)
    for lengths, ref in [(("--max_target_length", 128, "--val_max_target_length", 5), ref_val),
                         (("--max_target_length", 5), ref_val), ((), ref_train)]:
        ours = json.loads(run_precis(*common, *lengths).stdout)["eval_loss"]
        assert abs(ours - ref) / ref <= 1e-5, (lengths, ours, ref)


def test_eval_reports_bad_data_with_file_and_line(tmp_path):
    tokenizer = train_tiny_bpe(tmp_path / "model")
    make_bart("narrow-gelu", len(tokenizer)).save_pretrained(tmp_path / "model")
    (tmp_path / "bad.jsonl").write_text('{"dialogue": "a", "summary": "b"}\n{"dialogue": 3, "summary": "c"}\n')
    result = run_precis("eval", "--model", tmp_path / "model", "--data", tmp_path / "bad.jsonl", check=False)
    assert result.returncode == 1
    assert "bad.jsonl:2" in result.stderr and "dialogue" in result.stderr
    result = run_precis("eval", "--model", tmp_path / "model", "--dataset_name", "samsum",
                        "--data", tmp_path / "bad.jsonl", check=False)
    assert result.returncode == 1 and "train_file" in result.stderr


def test_eval_refuses_inputs_longer_than_the_position_table(tmp_path):
    tokenizer = train_tiny_bpe(tmp_path / "model")
    make_bart("narrow-gelu", len(tokenizer)).save_pretrained(tmp_path / "model")  # 128 positions
    (tmp_path / "long.jsonl").write_text(json.dumps({"dialogue": "word " * 400, "summary": "short"}) + "\n")
    result = run_precis("eval", "--model", tmp_path / "model", "--data", tmp_path / "long.jsonl",
                        "--max_source_length", 1024, check=False)
    assert result.returncode == 1
    assert "longer than the 128 positions" in result.stderr
