"""A faked SageMaker training container on this machine: an /opt/ml tree per host (moved by
SAGEMAKER_BASE_DIR, as AWS's toolkit allows), with hyperparameters.json in either of the
estimators' encodings, resourceconfig.json, the train / validation / test / model channels,
and `precis train` run in it as the service runs the image (`train`, no other argument)."""
import json
import shutil
import subprocess

from conftest import precis_binary
from process_support import ENV
from train_support import MAX_SOURCE_LENGTH, MAX_TARGET_LENGTH, write_records

# The SageMaker tutorial's hyperparameter dict (README.md), with the tiny model's lengths and
# a short run added. fp16 is left out: these tests run on the CPU, which trains in fp32 only.
TUTORIAL = {
    "model_name_or_path": "facebook/bart-large-cnn",
    "dataset_name": "samsum",
    "do_train": True,
    "do_eval": True,
    "do_predict": True,
    "predict_with_generate": True,
    "per_device_train_batch_size": 4,
    "per_device_eval_batch_size": 4,
    "learning_rate": 5e-5,
    "num_train_epochs": 3,
    "seed": 7,
    "output_dir": "/opt/ml/model",
}
TINY = {"max_source_length": MAX_SOURCE_LENGTH, "max_target_length": MAX_TARGET_LENGTH,
        "val_max_target_length": 16, "logging_steps": 1, "learning_rate": 1e-3}


def python_str(value):
    """str() of a Python value, as the generic Estimator encodes a hyperparameter."""
    if isinstance(value, bool):
        return "True" if value else "False"
    return str(value)


def encode(hyperparameters, encoding):
    """hyperparameters.json's text: every value json.dumps'd (framework estimators) or str()'d
    (the generic Estimator)."""
    if encoding == "json":
        return json.dumps({k: json.dumps(v) for k, v in hyperparameters.items()})
    return json.dumps({k: python_str(v) for k, v in hyperparameters.items()})


def make_host(root, job_dir, hyperparameters, encoding="json", host="algo-1", hosts=("algo-1",),
              interface="eth0", channels=("train", "validation", "test", "model")):
    """root/opt/ml for one host: its config files and channels (the tiny job of make_job in
    job_dir); returns the base directory."""
    base = root / "opt" / "ml"
    config = base / "input" / "config"
    config.mkdir(parents=True)
    (config / "hyperparameters.json").write_text(encode(hyperparameters, encoding))
    (config / "resourceconfig.json").write_text(json.dumps(
        {"current_host": host, "hosts": list(hosts), "network_interface_name": interface}))
    (config / "inputdataconfig.json").write_text(json.dumps(
        {c: {"TrainingInputMode": "File", "S3DistributionType": "FullyReplicated"} for c in channels if c != "model"}))
    data = base / "input" / "data"
    for channel in channels:
        if channel == "model":
            shutil.copytree(job_dir / "base", data / "model")
        else:
            (data / channel).mkdir(parents=True)
            shutil.copy(job_dir / "train.jsonl", data / channel / f"{channel}.jsonl")
    return base


def sagemaker_env(base, **extra):
    return dict(ENV, SAGEMAKER_BASE_DIR=str(base), **extra)


def run_train(base, *args, timeout=600, **extra_env):
    """`precis train` as SageMaker runs the image: no argument but `train`."""
    return subprocess.run([precis_binary(), "train", *map(str, args)], capture_output=True, text=True,
                          env=sagemaker_env(base, **extra_env), timeout=timeout)


def config_file_job(job_dir, out, **extra):
    """The tutorial's job as a --config file, with the channels' files named."""
    job = dict(TUTORIAL, **TINY, **extra)
    del job["dataset_name"]
    job.update(model_name_or_path=str(job_dir / "base"), train_file=str(job_dir / "train.jsonl"),
               validation_file=str(job_dir / "train.jsonl"), test_file=str(job_dir / "train.jsonl"),
               output_dir=str(out))
    path = job_dir / f"job-{out.name}.json"
    path.write_text(json.dumps(job))
    return path
