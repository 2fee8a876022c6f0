"""precis.card against `precis card` (whose card the oracle test test_model_card holds to
Trainer.create_model_card and the Hub's parser): the same README.md and loss_curve.svg, byte
for byte, from two copies of one model directory, and the command's messages as precis.Error."""
import pytest

import precis
from conftest import run_precis
from test_model_card import hand_made_dir

OPTIONS = dict(language="de", license="mit", datasets=["knkarthick/samsum", "other/set"],
               tags=["summarization", "dialogue"], base_model="facebook/bart-base", model_name="bart-tiny",
               widget_text="Anna: Lunch?\nBen: Sure, at noon.")


def cli_args(options):
    args = []
    for name, value in options.items():
        flag = {"datasets": "--dataset", "tags": "--tag"}.get(name, f"--{name}")
        for v in value if isinstance(value, list) else [value]:
            args += [flag, v]
    return args


@pytest.mark.parametrize("options", [{}, OPTIONS], ids=["defaults", "every-option"])
def test_card_equals_precis_card(tmp_path, options):
    (tmp_path / "cli").mkdir()
    (tmp_path / "py").mkdir()
    cli_dir, py_dir = hand_made_dir(tmp_path / "cli"), hand_made_dir(tmp_path / "py")  # both "bart-samsum"
    run_precis("card", "--model", cli_dir, *cli_args(options))
    assert precis.card(py_dir, **options) == str(py_dir / "README.md")
    for name in ("README.md", "loss_curve.svg"):
        assert (py_dir / name).read_bytes() == (cli_dir / name).read_bytes(), name
    assert ("license: mit" in (py_dir / "README.md").read_text()) == bool(options)


def test_errors_are_the_commands(tmp_path):
    d = hand_made_dir(tmp_path)
    (d / "eval_results.json").write_text('{"eval_loss": ')
    r = run_precis("card", "--model", d, check=False)
    assert r.returncode != 0
    with pytest.raises(precis.Error) as e:
        precis.card(d)
    assert str(e.value) == r.stderr.strip().removeprefix("precis: error: ")
    assert "eval_results.json" in str(e.value)
