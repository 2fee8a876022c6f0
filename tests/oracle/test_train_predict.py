"""`precis train --do_predict --predict_with_generate` against Seq2SeqTrainer.predict() and
run_summarization's compute_metrics (rouge_score with the stemmer, bootstrap aggregate)."""
import json

import numpy as np
import pytest
from rouge_score import rouge_scorer, scoring
from transformers import DataCollatorForSeq2Seq, GenerationConfig, Seq2SeqTrainer, Seq2SeqTrainingArguments

from conftest import run_precis
from test_train import SOURCES, make_job


# generation_config: Seq2SeqTrainingArguments.generation_config, a directory with a
# generation_config.json that replaces the model's (and is saved with it). One written by the
# user, and one derived from the model config ("_from_model_config": generate() replaces it by
# config.json's generation keys, so its settings do nothing in HF either).
USER_GENERATION = {"num_beams": 3, "no_repeat_ngram_size": 2, "length_penalty": 0.5, "repetition_penalty": 1.3}
@pytest.mark.parametrize("beams,generation_config", [(1, None), (3, None), (3, "user"), (3, "from_model_config")])
def test_predictions_and_metrics_match_seq2seq_trainer(tmp_path, beams, generation_config):
    model, tokenizer, records = make_job(tmp_path)
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
    (tmp_path / "test.jsonl").write_text((tmp_path / "train.jsonl").read_text())
    enc = tokenizer([r["dialogue"] for r in records], max_length=64, truncation=True)
    labels = tokenizer(text_target=[r["summary"] for r in records], max_length=32, truncation=True)
    features = [{"input_ids": i, "attention_mask": m, "labels": l}
                for i, m, l in zip(enc["input_ids"], enc["attention_mask"], labels["input_ids"])]
    args = Seq2SeqTrainingArguments(output_dir=str(tmp_path / "hf"), per_device_eval_batch_size=4, report_to=[],
                                    use_cpu=True, predict_with_generate=True, generation_max_length=12,
                                    generation_num_beams=beams,
                                    generation_config=None if generation_config is None else str(tmp_path / "gen"))
    trainer = Seq2SeqTrainer(model=model, args=args,
                             data_collator=DataCollatorForSeq2Seq(tokenizer, model=model, label_pad_token_id=-100))
    out = trainer.predict(features)
    preds = np.where(out.predictions != -100, out.predictions, tokenizer.pad_token_id)
    decoded = [p.strip() for p in tokenizer.batch_decode(preds, skip_special_tokens=True)]
    refs = [r["summary"].strip() for r in records]
    gen_len = round(float(np.mean([np.count_nonzero(p != tokenizer.pad_token_id) for p in preds])), 4)

    result = run_precis("train", "--model_name_or_path", tmp_path / "base", "--test_file", tmp_path / "test.jsonl",
                        "--do_predict", "--predict_with_generate", "--output_dir", tmp_path / "out",
                        "--per_device_eval_batch_size", 4, "--generation_max_length", 12,
                        "--num_beams", beams, "--max_source_length", 64, "--max_target_length", 32, "--seed", 42,
                        *extra)
    ours = json.loads((tmp_path / "out" / "predict_results.json").read_text())
    predictions = (tmp_path / "out" / "generated_predictions.txt").read_text().split("\n")
    assert predictions == decoded
    assert ours["predict_gen_len"] == gen_len
    assert abs(ours["predict_loss"] - out.metrics["test_loss"]) <= 1e-5 * out.metrics["test_loss"]
    assert ours["predict_samples"] == len(SOURCES)
    # ROUGE-1/2/L: rouge_score per pair, then the bootstrap with NumPy seeded as precis seeds it.
    scorer = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"], use_stemmer=True)
    aggregator = scoring.BootstrapAggregator()
    for ref, pred in zip(refs, decoded):
        aggregator.add_scores(scorer.score(ref, pred))
    np.random.seed(42)
    agg = aggregator.aggregate()
    for key in ["rouge1", "rouge2", "rougeL"]:
        assert ours[f"predict_{key}"] == round(agg[key].mid.fmeasure * 100, 4), key
    assert "predict_rouge1" in result.stdout


def test_precis_eval_with_generation_matches_seq2seq_trainer_evaluate(tmp_path):
    model, tokenizer, records = make_job(tmp_path)
    enc = tokenizer([r["dialogue"] for r in records], max_length=64, truncation=True)
    labels = tokenizer(text_target=[r["summary"] for r in records], max_length=32, truncation=True)
    features = [{"input_ids": i, "attention_mask": m, "labels": l}
                for i, m, l in zip(enc["input_ids"], enc["attention_mask"], labels["input_ids"])]
    args = Seq2SeqTrainingArguments(output_dir=str(tmp_path / "hf"), per_device_eval_batch_size=4, report_to=[],
                                    use_cpu=True, predict_with_generate=True, generation_max_length=10,
                                    generation_num_beams=2)
    trainer = Seq2SeqTrainer(model=model, args=args,
                             data_collator=DataCollatorForSeq2Seq(tokenizer, model=model, label_pad_token_id=-100))
    out = trainer.predict(features)
    preds = np.where(out.predictions != -100, out.predictions, tokenizer.pad_token_id)
    decoded = [p.strip() for p in tokenizer.batch_decode(preds, skip_special_tokens=True)]
    gen_len = round(float(np.mean([np.count_nonzero(p != tokenizer.pad_token_id) for p in preds])), 4)
    result = run_precis("eval", "--model", tmp_path / "base", "--data", tmp_path / "train.jsonl",
                        "--per_device_eval_batch_size", 4, "--max_source_length", 64, "--max_target_length", 32,
                        "--predict_with_generate", "--generation_max_length", 10, "--num_beams", 2,
                        "--output_dir", tmp_path / "eval")
    ours = json.loads(result.stdout)
    assert (tmp_path / "eval" / "generated_predictions.txt").read_text().split("\n") == decoded
    assert ours["eval_gen_len"] == gen_len
    assert abs(ours["eval_loss"] - out.metrics["test_loss"]) <= 1e-5 * out.metrics["test_loss"]
    assert json.loads((tmp_path / "eval" / "eval_results.json").read_text()) == ours
