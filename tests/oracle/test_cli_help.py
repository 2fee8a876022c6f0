"""Every command's --help in one style: each option's description starts with a capital letter
(or a non-letter such as a quote), as train's table does, so `precis X --help` reads alike across
commands."""
import re

import pytest

from conftest import run_precis

COMMANDS = [["train"], ["eval"], ["generate"], ["serve"], ["card"], ["publish"], ["rouge"],
            ["rouge_tokens"], ["rouge_sentences"], ["compare"], ["data"], ["data", "debian"],
            ["tokenize"], ["tokenizer"], ["tokenizer", "train"]]

# "  --name[,--alias] [TYPE]   Description" (CLI11's layout and train's own table).
OPTION_LINE = re.compile(r"^\s+(-{1,2}[\w-]+(?:,\s*-{1,2}[\w-]+)*)(?:\s+[A-Z:<>_\[\].]+)*\s{2,}(\S.*)$")


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_option_descriptions_start_with_a_capital(command):
    out = run_precis(*command, "--help").stdout
    described = [m.groups() for m in map(OPTION_LINE.match, out.splitlines()) if m]
    assert described, out  # the pattern reads this command's help at all
    lower = [(name, text) for name, text in described if text[0].islower()]
    assert not lower, lower


def test_the_three_summary_lengths_are_apart_in_every_command():
    """eval, generate and serve take run_summarization's max_target_length and
    val_max_target_length as two options (they were one alias in eval: CLI11 refused both)."""
    for command in ("eval", "generate", "serve"):
        out = run_precis(command, "--help").stdout
        for name in ("--max_target_length", "--val_max_target_length", "--generation_max_length"):
            assert re.search(rf"^\s+{name}\b", out, re.M), (command, name)
