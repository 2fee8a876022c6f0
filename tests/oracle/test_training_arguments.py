"""precis's step accounting and learning-rate schedules against transformers' own.

Schedules: `transformers.get_scheduler(...)` on a real torch optimizer, read with
`get_last_lr()` before each update (LambdaLR, stepped after every update), against
tests/probes/training_args_tool's learning_rate_at() at every update of the run and a few
past its end.

Step accounting: a real `Trainer` (4.44) on a one-weight model and a list dataset of N
examples; a callback stops it at on_train_begin, when the Trainer has computed max_steps and
the epochs, resolved the logging/eval/save intervals and built its scheduler. Warmup and the
schedule horizon are read from the scheduler's own lambda (the keywords the Trainer passed),
len(train_dataloader) from the Trainer's dataloader; num_update_steps_per_epoch, which the
Trainer keeps in a local, is recomputed with 4.44's formula and checked through max_steps.
"""
import json
import math
import warnings

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from conftest import run_precis  # noqa: E402


def precis_json(*args):
    return json.loads(run_precis(*args, binary="training_args_tool").stdout)


# --------------------------------------------------------------------------------------------
# Learning-rate schedules

SCHEDULE_CASES = [
    # (scheduler, learning_rate, total updates, warmup updates)
    (name, lr, total, warmup)
    for name in ("linear", "cosine", "constant", "constant_with_warmup")
    for (lr, total, warmup) in ((5e-5, 50, 10), (3e-4, 50, 0), (1e-3, 7, 3), (2e-5, 1, 0),
                                (5e-5, 693, 70))
]


def hf_schedule(name, lr, total, warmup):
    param = torch.nn.Parameter(torch.zeros(1))
    optimizer = torch.optim.AdamW([param], lr=lr)
    scheduler = transformers.get_scheduler(
        name, optimizer, num_warmup_steps=warmup, num_training_steps=total)
    lrs = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(total + 3):
            lrs.append(scheduler.get_last_lr()[0])
            optimizer.step()
            scheduler.step()
    return lrs


@pytest.mark.parametrize("name,lr,total,warmup", SCHEDULE_CASES)
def test_schedule_equals_get_scheduler(name, lr, total, warmup):
    expected = hf_schedule(name, lr, total, warmup)
    ours = precis_json("schedule", "--lr_scheduler_type", name, "--learning_rate", repr(lr),
                       "--total", total, "--warmup_count", warmup)["lr"]
    assert len(ours) == len(expected)
    for step, (a, b) in enumerate(zip(ours, expected)):
        assert a == pytest.approx(b, rel=1e-12, abs=0), f"update {step}: {a} != {b}"


# --------------------------------------------------------------------------------------------
# Step accounting

class _Stop(Exception):
    pass


class _StopAtTrainBegin(transformers.TrainerCallback):
    def __init__(self):
        self.state = None

    def on_train_begin(self, args, state, control, **kwargs):
        self.state = state
        raise _Stop()


class _OneWeight(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(1, 1)

    def forward(self, x, labels=None):
        return {"loss": ((self.linear(x) - labels) ** 2).mean()}


def hf_step_accounting(tmp_path, num_examples, options):
    data = [{"x": torch.tensor([1.0]), "labels": torch.tensor([0.0])}] * num_examples
    args = transformers.TrainingArguments(
        output_dir=str(tmp_path), use_cpu=True, report_to="none", **options)
    callback = _StopAtTrainBegin()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer = transformers.Trainer(model=_OneWeight(), args=args, train_dataset=data,
                                       callbacks=[callback])
        with pytest.raises(_Stop):
            trainer.train()
    state = callback.state
    keywords = trainer.lr_scheduler.lr_lambdas[0].keywords
    len_dataloader = len(trainer.get_train_dataloader())
    result = {
        "len_dataloader": len_dataloader,
        # trainer.py 4.44 _inner_training_loop
        "num_update_steps_per_epoch": max(len_dataloader // args.gradient_accumulation_steps, 1),
        "max_steps": state.max_steps,
        "num_train_epochs": state.num_train_epochs,
        "warmup_steps": keywords["num_warmup_steps"],
        "logging_steps": state.logging_steps,
        "save_steps": state.save_steps,
    }
    assert keywords["num_training_steps"] == state.max_steps
    assert args.get_warmup_steps(state.max_steps) == keywords["num_warmup_steps"]
    if args.eval_steps is not None:
        result["eval_steps"] = state.eval_steps
    return result


STEP_CASES = [
    # (num_examples, TrainingArguments options)
    (100, {}),
    (100, {"per_device_train_batch_size": 8, "gradient_accumulation_steps": 4,
           "warmup_ratio": 0.1}),
    (10, {"gradient_accumulation_steps": 4, "num_train_epochs": 2.5, "warmup_ratio": 0.06}),
    (1000, {"per_device_train_batch_size": 16, "gradient_accumulation_steps": 3,
            "num_train_epochs": 0.5, "warmup_ratio": 0.1}),
    (100, {"gradient_accumulation_steps": 2, "max_steps": 25, "warmup_ratio": 0.2}),
    (7, {"per_device_train_batch_size": 2, "max_steps": 10, "warmup_steps": 3}),
    (64, {"num_train_epochs": 1, "warmup_steps": 7, "logging_steps": 0.1, "save_steps": 0.25,
          "eval_steps": 0.05}),
    (100, {"gradient_accumulation_steps": 3, "num_train_epochs": 2,
           "dataloader_drop_last": True, "logging_steps": 5}),
    (14732, {"per_device_train_batch_size": 4, "gradient_accumulation_steps": 4,
             "num_train_epochs": 3.0, "warmup_ratio": 0.05, "save_steps": 0.3}),
    (3, {"per_device_train_batch_size": 8, "gradient_accumulation_steps": 16,
         "num_train_epochs": 1.7}),
]


@pytest.mark.parametrize("num_examples,options", STEP_CASES)
def test_step_accounting_equals_trainer(tmp_path, num_examples, options):
    expected = hf_step_accounting(tmp_path, num_examples, options)
    argv = ["steps", "--num_examples", num_examples]
    for key, value in options.items():
        argv += [f"--{key}", str(value)]
    ours = precis_json(*argv)
    assert ours == expected
    # Sanity of the reference itself: the Trainer's epochs-based horizon formula.
    if options.get("max_steps", -1) <= 0:
        epochs = options.get("num_train_epochs", 3.0)
        assert expected["max_steps"] == math.ceil(epochs * expected["num_update_steps_per_epoch"])
