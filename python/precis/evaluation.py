"""precis.evaluate: `precis eval` (Trainer.evaluate() on a checkpoint directory) from Python."""
import os

from . import _precis


def evaluate(model, data_file, **options):
    """The metrics `precis eval --model MODEL --data DATA_FILE` writes to eval_results.json, as a
    dict: eval_loss, eval_samples, eval_runtime, eval_samples_per_second, eval_steps_per_second,
    and with predict_with_generate=True also eval_rouge1/2/L/Lsum and eval_gen_len.

    options are the command's long option names (`precis eval --help`): text_column,
    summary_column, source_prefix, max_source_length, max_target_length,
    val_max_target_length, generation_max_length, per_device_eval_batch_size,
    max_eval_samples, pad_to_max_length, predict_with_generate, num_beams, output_dir (writes
    eval_results.json and generated_predictions.txt there) and seed. The GIL is released
    while it runs; a bad file or value raises precis.Error with the command's message.
    """
    settings = _precis.EvaluationOptions()
    settings.model = os.fspath(model)
    settings.data = os.fspath(data_file)
    aliases = {"generation_num_beams": "num_beams", "validation_file": "data"}
    for name, value in options.items():
        field = aliases.get(name, name)
        if field in ("model", "data") or not hasattr(settings, field):
            raise TypeError(f"precis.evaluate: unknown option {name!r} (`precis eval --help` lists them)")
        setattr(settings, field, os.fspath(value) if isinstance(value, os.PathLike) else value)
    return _precis.evaluate(settings)
