"""`precis train --do_predict --predict_with_generate` against Seq2SeqTrainer.predict() and
run_summarization's compute_metrics (rouge_score with the stemmer, bootstrap aggregate), on
a model whose predictions differ from input to input and end by EOS as well as at max length,
with references that overlap them, so that every ROUGE and gen_len is informative."""
import json
import re

import numpy as np
import pytest
from rouge_score import rouge_scorer, scoring
from transformers import (BartForConditionalGeneration, DataCollatorForSeq2Seq, GenerationConfig, Seq2SeqTrainer,
                          Seq2SeqTrainingArguments)

from conftest import run_precis
from train_support import SOURCES, features, make_predict_job

ROUGE_KEYS = ["rouge1", "rouge2", "rougeL", "rougeLsum"]


def summarization_metrics(out, tokenizer, seed):
    """run_summarization's compute_metrics on Seq2SeqTrainer.predict()'s output, with the
    bootstrap's NumPy seeded as precis seeds it; also the decoded predictions and the per-row
    scores."""
    preds = np.where(out.predictions != -100, out.predictions, tokenizer.pad_token_id)
    labels = np.where(out.label_ids != -100, out.label_ids, tokenizer.pad_token_id)
    decoded = [p.strip() for p in tokenizer.batch_decode(preds, skip_special_tokens=True)]
    refs = [r.strip() for r in tokenizer.batch_decode(labels, skip_special_tokens=True)]
    # nltk.sent_tokenize only splits after ".", "!" or "?": with none, each text is one sentence.
    assert not any(re.search(r"[.!?]", t) for t in decoded + refs)
    scorer = rouge_scorer.RougeScorer(ROUGE_KEYS, use_stemmer=True)
    rows = [scorer.score(ref, pred) for ref, pred in zip(refs, decoded)]
    aggregator = scoring.BootstrapAggregator()
    for row in rows:
        aggregator.add_scores(row)
    np.random.seed(seed)
    agg = aggregator.aggregate()
    metrics = {key: round(agg[key].mid.fmeasure * 100, 4) for key in ROUGE_KEYS}
    lengths = [np.count_nonzero(p != tokenizer.pad_token_id) for p in preds]
    metrics["gen_len"] = float(np.mean(lengths))  # not rounded by compute_metrics
    return metrics, decoded, rows, lengths


def assert_metrics_equal(ours, want, prefix):
    """ROUGE as compute_metrics rounds it (4 digits); gen_len is np.mean's, unrounded."""
    for key, value in want.items():
        assert ours[f"{prefix}_{key}"] == value, (key, ours[f"{prefix}_{key}"], value)


def assert_informative(metrics, decoded, rows, lengths, max_length):
    """The case can tell right from wrong: the predictions differ, some end by EOS before max
    length and some do not, every ROUGE is above 0 and differs between rows, and rougeLsum's
    split into lines changes at least one row's score."""
    assert len(set(decoded)) >= 3, decoded
    assert min(lengths) < max_length and len(set(lengths)) > 1, lengths
    assert all(metrics[key] > 0 for key in ROUGE_KEYS), metrics
    for key in ROUGE_KEYS:
        assert len({round(r[key].fmeasure, 6) for r in rows}) > 1, key
    assert any(abs(r["rougeL"].fmeasure - r["rougeLsum"].fmeasure) > 1e-3 for r in rows)


def trainer_predict(tmp_path, job, tokenizer, records, max_length, beams, generation_config=None):
    """Seq2SeqTrainer(predict_with_generate=True).predict() on the job's model and records,
    fp32 on the CPU, batches of 4."""
    model = BartForConditionalGeneration.from_pretrained(job / "base").eval()
    args = Seq2SeqTrainingArguments(output_dir=str(tmp_path / "hf"), per_device_eval_batch_size=4, report_to=[],
                                    use_cpu=True, predict_with_generate=True, generation_max_length=max_length,
                                    generation_num_beams=beams, generation_config=generation_config)
    trainer = Seq2SeqTrainer(model=model, args=args,
                             data_collator=DataCollatorForSeq2Seq(tokenizer, model=model, label_pad_token_id=-100))
    return trainer.predict(features(tokenizer, records))


@pytest.fixture(scope="module")
def predict_job(tmp_path_factory):
    directory = tmp_path_factory.mktemp("predict_job")
    tokenizer, records = make_predict_job(directory)
    return directory, tokenizer, records


# generation_config: Seq2SeqTrainingArguments.generation_config, a directory with a
# generation_config.json that replaces the model's (and is saved with it). One written by the
# user, and one derived from the model config ("_from_model_config": generate() replaces it by
# config.json's generation keys, so its settings do nothing in HF either).
USER_GENERATION = {"num_beams": 3, "no_repeat_ngram_size": 2, "length_penalty": 0.5, "repetition_penalty": 1.3}
@pytest.mark.parametrize("beams,generation_config", [(1, None), (3, None), (3, "user"), (3, "from_model_config")])
def test_predictions_and_metrics_match_seq2seq_trainer(tmp_path, predict_job, beams, generation_config):
    job, tokenizer, records = predict_job
    model = BartForConditionalGeneration.from_pretrained(job / "base").eval()
    extra = []
    if generation_config is not None:
        (tmp_path / "gen").mkdir()
        if generation_config == "user":
            tokens = {k: getattr(model.generation_config, k) for k in
                      ["bos_token_id", "eos_token_id", "pad_token_id", "decoder_start_token_id", "forced_eos_token_id"]}
            GenerationConfig(**tokens, **USER_GENERATION).save_pretrained(tmp_path / "gen")
        else:
            derived = GenerationConfig.from_model_config(model.config)
            derived.update(**USER_GENERATION)
            derived.save_pretrained(tmp_path / "gen")
        extra = ["--generation_config", tmp_path / "gen"]
    out = trainer_predict(tmp_path, job, tokenizer, records, 12, beams,
                          None if generation_config is None else str(tmp_path / "gen"))
    want, decoded, rows, lengths = summarization_metrics(out, tokenizer, seed=42)
    print(f"beams {beams}, {generation_config}: lengths {lengths}, {want}")
    assert_informative(want, decoded, rows, lengths, max_length=12)

    result = run_precis("train", "--model_name_or_path", job / "base", "--test_file", job / "data.jsonl",
                        "--do_predict", "--predict_with_generate", "--output_dir", tmp_path / "out",
                        "--per_device_eval_batch_size", 4, "--generation_max_length", 12,
                        "--num_beams", beams, "--max_source_length", 64, "--max_target_length", 32, "--seed", 42,
                        *extra)
    ours = json.loads((tmp_path / "out" / "predict_results.json").read_text())
    predictions = (tmp_path / "out" / "generated_predictions.txt").read_text().split("\n")
    assert predictions == decoded
    assert abs(ours["predict_loss"] - out.metrics["test_loss"]) <= 1e-5 * out.metrics["test_loss"]
    assert ours["predict_samples"] == len(SOURCES)
    assert_metrics_equal(ours, want, "predict")  # predict_rouge1/2/L/Lsum and predict_gen_len
    assert "predict_rouge1" in result.stdout


def test_precis_eval_with_generation_matches_seq2seq_trainer_evaluate(tmp_path, predict_job):
    job, tokenizer, records = predict_job
    out = trainer_predict(tmp_path, job, tokenizer, records, 10, 2)
    want, decoded, rows, lengths = summarization_metrics(out, tokenizer, seed=42)  # precis eval's default --seed
    print(f"eval: lengths {lengths}, {want}")
    assert_informative(want, decoded, rows, lengths, max_length=10)
    result = run_precis("eval", "--model", job / "base", "--data", job / "data.jsonl",
                        "--per_device_eval_batch_size", 4, "--max_source_length", 64, "--max_target_length", 32,
                        "--predict_with_generate", "--generation_max_length", 10, "--num_beams", 2,
                        "--output_dir", tmp_path / "eval")
    ours = json.loads(result.stdout)
    assert (tmp_path / "eval" / "generated_predictions.txt").read_text().split("\n") == decoded
    assert abs(ours["eval_loss"] - out.metrics["test_loss"]) <= 1e-5 * out.metrics["test_loss"]
    assert_metrics_equal(ours, want, "eval")
    assert json.loads((tmp_path / "eval" / "eval_results.json").read_text()) == ours


def test_bf16_predictions_are_generated_in_fp32(tmp_path, predict_job):
    """Seq2SeqTrainer.prediction_step computes the loss under the compute_loss_context_manager
    (bf16 autocast) and calls generate() outside it (transformers 4.44 trainer_seq2seq.py): so
    `precis train --bf16 --do_predict` on the CPU predicts what fp32 generate() does."""
    job, tokenizer, records = predict_job
    out = trainer_predict(tmp_path, job, tokenizer, records, 12, 3)
    _, decoded, _, _ = summarization_metrics(out, tokenizer, seed=42)
    result = run_precis("train", "--model_name_or_path", job / "base", "--test_file", job / "data.jsonl",
                        "--do_predict", "--predict_with_generate", "--output_dir", tmp_path / "out",
                        "--per_device_eval_batch_size", 4, "--generation_max_length", 12, "--num_beams", 3,
                        "--max_source_length", 64, "--max_target_length", 32, "--bf16")
    assert "--bf16 on the CPU" in result.stderr, result.stderr
    assert (tmp_path / "out" / "generated_predictions.txt").read_text().split("\n") == decoded
