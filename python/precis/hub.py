"""precis.card and precis.publish: `precis card` and `precis publish` from Python."""
import os
import sys

from . import _precis

PublishResult = _precis.PublishResult
PublishResult.__doc__ = """What precis.publish pushed: remote (the URL, token redacted), branch, commit (the
branch's head after publishing), pushed (False when the branch already held these files),
files (the model directory's files published) and lfs_files (those stored as LFS objects)."""


def card(model, language="en", license=None, datasets=None, tags=None, base_model=None, model_name=None,
         widget_text=None):
    """Writes the model card of a model directory (precis.train's output_dir), as `precis card`:
    README.md with the Hugging Face Hub's YAML front matter and model-index (ROUGE from
    eval_results.json / predict_results.json), and loss_curve.svg. Returns README.md's path.

    datasets, tags: lists of ids (default: training_args.json's dataset or data file names;
    summarization, generated_from_trainer, precis). license: default apache-2.0. base_model:
    default model_name_or_path when it is a Hub id. model_name: default the directory's name.
    widget_text: the Hub widget's example input (default: the first test or validation record).
    """
    options = _precis.ModelCardOptions()
    options.language = language
    options.license = license
    options.datasets = list(datasets or [])
    options.tags = list(tags or [])
    options.base_model = base_model
    options.model_name = model_name
    options.widget_text = widget_text
    return _precis.write_model_card(os.fspath(model), options)


def _to_stderr(line):
    print(line, file=sys.stderr)


def publish(model, repo, branch="main", commit_message="", token_env="HF_TOKEN", create_pr=False,
            progress=_to_stderr):
    """Pushes a model directory to a Hugging Face Hub repository (or any git remote) with git and
    git-lfs, as `precis publish`: repo is https://huggingface.co/USER/NAME, a Hub id USER/NAME,
    or any git remote (URL, ssh, local path); one commit on branch (default message "Upload
    <directory name> with precis"); weights and TensorBoard files as LFS objects. The token is
    read from the environment variable token_env only. progress gets git's output line by line
    (default: printed to stderr; None: dropped). Returns a PublishResult.
    """
    return _precis.publish(os.fspath(model), os.fspath(repo), branch, commit_message, token_env, create_pr,
                           progress)
