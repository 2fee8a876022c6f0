"""precis's TensorBoard event files against the reference writers: transformers' TensorBoardCallback
over torch's SummaryWriter logs the same arguments, model config and log entries, and both files
are read back with the `tensorboard` package: the same events (tag, step, float32 value, text,
plugin metadata) once wall_time is set aside, every record's masked CRC-32C as TensorBoard computes
it, and everything EventAccumulator shows. HF's default logging_dir is compared too."""
import datetime
import json
import pathlib
import socket
import struct
import sys

import pytest
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
from tensorboard.compat.proto import event_pb2
from tensorboard.compat.tensorflow_stub.pywrap_tensorflow import masked_crc32c
from torch.utils.tensorboard import SummaryWriter
from transformers import BartConfig, TrainerControl, TrainerState, TrainingArguments
from transformers.integrations import TensorBoardCallback

from conftest import run_precis
from train_support import make_job, precis_train

# Log entries as Seq2SeqTrainer puts them in log_history (with "step"), including values
# TensorBoardCallback drops (a string) and keeps (a bool is an int in Python).
LOG_HISTORY = [
    {"loss": 10.8934, "grad_norm": 3.2186543941497803, "learning_rate": 5e-05, "epoch": 0.04, "step": 1},
    {"loss": 3.1234, "grad_norm": 2.5, "learning_rate": 4.2857142857142856e-05, "epoch": 0.5, "step": 5},
    {"eval_loss": 2.4123456, "eval_rouge1": 30.5123, "eval_rouge2": 10.25, "eval_rougeL": 25.0,
     "eval_rougeLsum": 27.75, "eval_gen_len": 18.5, "eval_runtime": 1.5432, "eval_samples_per_second": 3.24,
     "eval_steps_per_second": 1.0, "epoch": 1.0, "step": 10},
    {"test_loss": 2.5, "test_rouge1": 41.32, "epoch": 1.0, "step": 10},
    {"train_runtime": 12.5, "train_samples_per_second": 9.6, "train_steps_per_second": 2.4, "total_flos": 0,
     "train_loss": 2.51234567, "epoch": 3.0, "note": "dropped: not a number", "flag": True, "step": 1 << 40},
]
# Values at float32's edges: subnormal, largest, a rounding tie region, negative zero.
EDGE_SCALARS = [("edge/tiny", 1e-45, 0), ("edge/max", 3.4028234663852886e38, 1), ("edge/third", 1 / 3, 2),
                ("edge/negzero", -0.0, 3), ("edge/negative", -123456.789, 4)]


def read_records(path):
    """The TFRecords of an event file, each CRC checked with TensorBoard's own masked_crc32c."""
    data = pathlib.Path(path).read_bytes()
    records, at = [], 0
    while at < len(data):
        header = data[at:at + 8]
        (length,) = struct.unpack("<Q", header)
        (header_crc,) = struct.unpack("<I", data[at + 8:at + 12])
        assert header_crc == masked_crc32c(header)
        body = data[at + 12:at + 12 + length]
        (body_crc,) = struct.unpack("<I", data[at + 12 + length:at + 16 + length])
        assert body_crc == masked_crc32c(body)
        records.append(event_pb2.Event.FromString(body))
        at += 16 + length
    assert at == len(data)
    return records


def comparable(events):
    """Events without what differs between two writers: the clock and the writer's name."""
    out = []
    for e in events:
        e = event_pb2.Event.FromString(e.SerializeToString())
        e.ClearField("wall_time")
        e.ClearField("source_metadata")
        out.append(e)
    return sorted(out, key=lambda e: (e.step, e.SerializeToString()))


@pytest.fixture
def both_logs(tmp_path):
    args = TrainingArguments(output_dir=str(tmp_path / "hf-out"), report_to=[], learning_rate=5e-5,
                             run_name="bart-samsum ✓ ünïcode")
    config = BartConfig(d_model=16, encoder_layers=1, decoder_layers=1, vocab_size=100)

    class Model:  # what on_train_begin reads from the model
        pass

    model = Model()
    model.config = config

    hf_dir = tmp_path / "hf"
    callback = TensorBoardCallback(tb_writer=SummaryWriter(log_dir=str(hf_dir)))
    state, control = TrainerState(), TrainerControl()
    callback.on_train_begin(args, state, control, model=model)
    for tag, value, step in EDGE_SCALARS:
        callback.tb_writer.add_scalar(tag, value, step)
    for entry in LOG_HISTORY:
        state.global_step = entry["step"]
        logs = {k: v for k, v in entry.items() if k != "step"}  # Trainer.log adds "step" afterwards
        callback.on_log(args, state, control, logs=logs)
    callback.on_train_end(args, state, control)

    precis_dir = tmp_path / "precis"
    events = [{"text": "args", "value": args.to_json_string(), "step": 0},
              {"text": "model_config", "value": config.to_json_string(), "step": 0}]
    events += [{"scalar": tag, "value": value, "step": step} for tag, value, step in EDGE_SCALARS]
    events += [{"log": entry, "step": entry["step"]} for entry in LOG_HISTORY]
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"log_dir": str(precis_dir), "events": events}))
    path = run_precis("write", script, binary="tensorboard_tool").stdout.strip()
    (hf_file,) = hf_dir.glob("events.out.tfevents.*")
    return pathlib.Path(path), hf_file


def test_event_file_name_and_first_event(both_logs):
    ours, _ = both_logs
    parts = ours.name.split(".")
    assert parts[:3] == ["events", "out", "tfevents"] and len(parts[3]) == 10 and parts[3].isdigit()
    assert ".".join(parts[4:-2]) == socket.gethostname()
    first = read_records(ours)[0]
    assert first.file_version == "brain.Event:2" and first.wall_time > 0


def test_same_events_as_tensorboard_callback(both_logs):
    ours, theirs = both_logs
    our_events, their_events = read_records(ours), read_records(theirs)
    assert len(our_events) == len(their_events)
    for a, b in zip(comparable(our_events), comparable(their_events)):
        assert a == b, f"precis:\n{a}\nSummaryWriter:\n{b}"


def test_event_accumulator_reads_every_scalar_and_text(both_logs):
    ours, theirs = both_logs
    accumulators = []
    for f in (ours, theirs):
        acc = EventAccumulator(str(f), size_guidance={"scalars": 0, "tensors": 0})
        acc.Reload()
        accumulators.append(acc)
    a, b = accumulators
    assert a.Tags()["scalars"] and sorted(a.Tags()["scalars"]) == sorted(b.Tags()["scalars"])
    assert "train/loss" in a.Tags()["scalars"] and "eval/rouge1" in a.Tags()["scalars"]
    assert "test/rouge1" in a.Tags()["scalars"] and "train/note" not in a.Tags()["scalars"]
    for tag in a.Tags()["scalars"]:
        assert [(s.step, s.value) for s in a.Scalars(tag)] == [(s.step, s.value) for s in b.Scalars(tag)], tag
    assert sorted(a.Tags()["tensors"]) == sorted(b.Tags()["tensors"]) == ["args/text_summary",
                                                                          "model_config/text_summary"]
    for tag in a.Tags()["tensors"]:
        ours_t, theirs_t = a.Tensors(tag), b.Tensors(tag)
        assert [(t.step, t.tensor_proto) for t in ours_t] == [(t.step, t.tensor_proto) for t in theirs_t]
        assert a.SummaryMetadata(tag) == b.SummaryMetadata(tag)
        assert a.SummaryMetadata(tag).plugin_data.plugin_name == "text"


def test_default_logging_dir_is_hf_default(tmp_path, monkeypatch):
    import types

    from transformers.training_args import default_logdir

    when = 1717171717  # any instant: HF's default_logdir() is run with its clock stopped there

    class StoppedClock(datetime.datetime):
        @classmethod
        def now(cls, tz=None):
            return datetime.datetime.fromtimestamp(when, tz)

    monkeypatch.setitem(sys.modules, "datetime", types.SimpleNamespace(datetime=StoppedClock))
    expected = str(tmp_path / "out" / default_logdir())
    monkeypatch.undo()
    out = run_precis("logging_dir", tmp_path / "out", when, binary="tensorboard_tool").stdout.strip()
    assert out == expected


@pytest.mark.parametrize("report_to", [None, "none"])
def test_precis_train_writes_the_logs_tensorboard_reads(tmp_path, report_to):
    """precis train writes output_dir/runs/<date>_<host>/events.out.tfevents.* with what its
    log_history holds, tagged as TensorBoardCallback tags it; report_to none writes none."""
    make_job(tmp_path)
    out = tmp_path / "out"
    overrides = {} if report_to is None else {"report_to": report_to}
    _, _, state, _ = precis_train(tmp_path, out, **overrides)
    runs = list((out / "runs").glob("*/events.out.tfevents.*")) if (out / "runs").exists() else []
    if report_to == "none":
        assert runs == []
        return
    assert len(runs) == 1 and runs[0].parent.name.endswith("_" + socket.gethostname())
    acc = EventAccumulator(str(runs[0].parent), size_guidance={"scalars": 0, "tensors": 0})
    acc.Reload()
    expected = {}
    for entry in state["log_history"]:
        for key, value in entry.items():
            if key == "step" or not isinstance(value, (int, float)):
                continue
            tag = key.replace("eval_", "eval/", 1) if key.startswith("eval_") else "train/" + key
            expected.setdefault(tag, []).append((entry["step"], struct.unpack("f", struct.pack("f", value))[0]))
    assert set(acc.Tags()["scalars"]) == set(expected)
    for tag, points in expected.items():
        assert [(e.step, e.value) for e in acc.Scalars(tag)] == points, tag
    assert {"args/text_summary", "model_config/text_summary"} <= set(acc.Tags()["tensors"])
    args_text = acc.Tensors("args/text_summary")[0].tensor_proto.string_val[0].decode()
    assert json.loads(args_text)["learning_rate"] == 1e-3
