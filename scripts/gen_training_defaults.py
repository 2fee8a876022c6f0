#!/usr/bin/env python3
"""Writes tests/unit/data/training_arguments_defaults.json: the defaults of
run_summarization.py's ModelArguments and DataTrainingArguments and of
transformers' Seq2SeqTrainingArguments, as `precis train` must reproduce them.

Seq2SeqTrainingArguments comes live from the installed transformers (4.44):
`Seq2SeqTrainingArguments(output_dir="out").to_dict()`, i.e. after __post_init__.
run_summarization.py is not part of the transformers package, so its two dataclasses'
defaults are written out below from examples/pytorch/summarization/run_summarization.py,
with val_max_target_length resolved as its __post_init__ does.

Keys whose value depends on the machine or the clock are listed under "environment" (the
unit test skips them): logging_dir (output_dir/runs/DATE_HOST), report_to (the installed
integrations), local_rank (set by the device setup), disable_tqdm (the logger level).

Usage: .venv/bin/python scripts/gen_training_defaults.py
"""
import json
import pathlib
import warnings

import transformers
from transformers import Seq2SeqTrainingArguments

MODEL_ARGUMENTS = {
    "model_name_or_path": None,  # required in HF; precis requires it when there is work to do
    "config_name": None,
    "tokenizer_name": None,
    "cache_dir": None,
    "use_fast_tokenizer": True,
    "model_revision": "main",
    "token": None,
    "trust_remote_code": False,
    "resize_position_embeddings": None,
}

DATA_TRAINING_ARGUMENTS = {
    "lang": None,
    "dataset_name": None,
    "dataset_config_name": None,
    "text_column": None,
    "summary_column": None,
    "train_file": None,
    "validation_file": None,
    "test_file": None,
    "overwrite_cache": False,
    "preprocessing_num_workers": None,
    "max_source_length": 1024,
    "max_target_length": 128,
    "val_max_target_length": 128,  # __post_init__: None -> max_target_length
    "pad_to_max_length": False,
    "max_train_samples": None,
    "max_eval_samples": None,
    "max_predict_samples": None,
    "num_beams": 1,
    "ignore_pad_token_for_loss": True,
    "source_prefix": None,
    "forced_bos_token": None,
}


def main():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        training = Seq2SeqTrainingArguments(output_dir="out").to_dict()
    out = {
        "transformers_version": transformers.__version__,
        "output_dir": "out",
        "environment": ["logging_dir", "report_to", "local_rank", "disable_tqdm"],
        "model_arguments": MODEL_ARGUMENTS,
        "data_training_arguments": DATA_TRAINING_ARGUMENTS,
        "seq2seq_training_arguments": training,
    }
    path = pathlib.Path(__file__).resolve().parent.parent / "tests/unit/data/training_arguments_defaults.json"
    path.write_text(json.dumps(out, indent=2, default=str) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
