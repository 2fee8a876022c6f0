"""precis.train and precis.Seq2SeqTrainingArguments: `precis train` in Seq2SeqTrainer's shapes."""
import collections
import json

from . import _precis

TrainOutput = collections.namedtuple("TrainOutput", ["global_step", "training_loss", "metrics"])
TrainOutput.__doc__ = "What transformers' trainer.train() returns: global_step, training_loss, metrics."


_PLACEHOLDER = "(given to precis.train)"


class Seq2SeqTrainingArguments:
    """Every option of `precis train` (`precis.help_training_arguments()` lists them): HF's
    Seq2SeqTrainingArguments, run_summarization's ModelArguments and DataTrainingArguments, and
    precis's own, by the same names, checked by the same parser (a bad one raises precis.Error).
    The attributes are the options after the parser's derived defaults."""

    def __init__(self, output_dir=None, **kwargs):
        settings = dict(kwargs)
        if output_dir is not None:
            settings["output_dir"] = output_dir
        # The model and the data are precis.train's arguments, as they are Seq2SeqTrainer's:
        # until then the parser's checks that they are named are met by placeholders.
        placeholders = {}
        if "model_name_or_path" not in settings and "config_name" not in settings:
            placeholders["model_name_or_path"] = _PLACEHOLDER
        # Each file the options ask for (eval_strategy: a validation file) is met the same way.
        for name in ("train_file", "validation_file", "test_file"):
            if name not in settings and "dataset_name" not in settings:
                placeholders[name] = _PLACEHOLDER + ".json"
        values = _precis.parse_training_arguments({**settings, **placeholders}, "precis.Seq2SeqTrainingArguments")
        values.update({name: None for name in placeholders})
        object.__setattr__(self, "_settings", settings)
        object.__setattr__(self, "_values", values)

    def __getattr__(self, name):
        values = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError(f"Seq2SeqTrainingArguments has no option {name!r}")

    def __setattr__(self, name, value):
        self.__init__(**{**self._settings, name: value})

    def to_dict(self):
        """Every option with its value, as training_args.json holds them."""
        return dict(self._values)

    def to_json_string(self):
        """to_dict() as indented JSON."""
        return json.dumps(self._values, indent=2)

    def __repr__(self):
        given = ", ".join(f"{k}={v!r}" for k, v in self._settings.items())
        return f"Seq2SeqTrainingArguments({given})"


def help_training_arguments():
    """`precis train --help`: every option, its default and its help text."""
    return _precis.training_arguments_help()


def _from_transformers(settings):
    """A transformers TrainingArguments' to_dict() as precis's settings. transformers 5 holds None
    where 4.44 held a default (hub_private_repo, gradient_checkpointing, ...): None there is "not
    set", and precis's default is 4.44's. 5's include_num_input_tokens_seen is "no" or "all"."""
    settings = {k: v for k, v in settings.items() if v is not None}
    seen = settings.get("include_num_input_tokens_seen")
    if seen in ("no", "all"):
        settings["include_num_input_tokens_seen"] = seen == "all"
    return settings


def _settings_of(args):
    if args is None:
        return {}
    if isinstance(args, Seq2SeqTrainingArguments):
        return dict(args._settings)
    if isinstance(args, dict):
        return dict(args)
    if hasattr(args, "to_dict"):  # transformers.(Seq2Seq)TrainingArguments, 4.44's or 5's
        return _from_transformers(args.to_dict())
    raise TypeError(f"precis.train: args must be precis.Seq2SeqTrainingArguments, a transformers "
                    f"TrainingArguments or a dict, found {type(args).__name__}")


class _ProgressBar:
    """A tqdm bar of the run's steps (the notebook's where tqdm.auto picks it)."""

    def __init__(self):
        from tqdm.auto import tqdm
        self._tqdm = tqdm
        self._bar = None

    def __call__(self, step, total_steps, first_step):
        if self._bar is None:
            self._bar = self._tqdm(total=total_steps, initial=first_step, unit="step", desc="precis train")
        self._bar.update(step - self._bar.n)

    def close(self):
        if self._bar is not None:
            self._bar.close()


def _progress_bar(settings, progress):
    if progress is False or (progress is None and settings.get("disable_tqdm")):
        return None
    try:
        return _ProgressBar()
    except ImportError:
        if progress:
            raise
        return None  # the library's own progress line on stderr


def train(args=None, callback=None, progress=None, **kwargs):
    """Trains as `precis train` with these options (and do_train), as trainer.train() would:

        precis.train(precis.Seq2SeqTrainingArguments(output_dir="out", learning_rate=5e-5),
                     model_name_or_path="base", train_file="train.jsonl")

    args: precis.Seq2SeqTrainingArguments, a transformers (Seq2Seq)TrainingArguments (read
    through its to_dict()), a dict, or None; kwargs add or override options. callback: a
    callable (or a list of them) given each log entry as a dict (logging steps, evaluations,
    the final summary). progress: a tqdm bar where tqdm is installed (None: unless
    disable_tqdm), else the plain progress line. The GIL is released while training; Ctrl-C
    stops at the end of the step, saves a checkpoint and raises KeyboardInterrupt (the same
    call resumes). Under mpirun every process makes the same call and trains data-parallel.

    Returns TrainOutput(global_step, training_loss, metrics) on rank 0 (and None on the others).
    """
    settings = _settings_of(args)
    settings.update(kwargs)
    settings["do_train"] = True
    callbacks = [] if callback is None else list(callback) if isinstance(callback, (list, tuple)) else [callback]

    def on_log(entry):
        for c in callbacks:
            c(entry)

    bar = _progress_bar(settings, progress)
    try:
        summary = _precis.train(settings, on_log if callbacks else None, bar)
    finally:
        if bar is not None:
            bar.close()
    if summary is None:
        return None
    step = summary.pop("step")
    return TrainOutput(step, summary.get("train_loss"), summary)
