"""The model card's training results table next to Hugging Face's: the card
Trainer.create_model_card writes for a log history, a card's "### Training results" table read
back as rows, and log histories shaped as precis's trainer_state.json holds them."""
import json


def hf_model_card(out_dir, log_history):
    """The README.md Trainer.create_model_card writes into out_dir for `log_history` (what it
    does with trainer_state.json's log history), as text."""
    from transformers import Seq2SeqTrainer, Seq2SeqTrainingArguments

    from bart_models import make_bart

    out_dir.mkdir(parents=True, exist_ok=True)
    args = Seq2SeqTrainingArguments(output_dir=str(out_dir), report_to=[], use_cpu=True)
    trainer = Seq2SeqTrainer(model=make_bart("narrow-gelu", 600), args=args)
    trainer.state.log_history = log_history
    trainer.create_model_card(license="apache-2.0")
    return (out_dir / "README.md").read_text()


def results_table(card):
    """The "### Training results" table of a card as (markdown text, header, rows of cells);
    None when the section holds no table (HF's card of a run without evaluation)."""
    heading = "### Training results\n\n"
    assert heading in card, "no training results section"
    lines = []
    for line in card[card.index(heading) + len(heading):].split("\n"):
        if not line.startswith("|"):
            break
        lines.append(line)
    if not lines:
        return None
    cells = [[c.strip() for c in line.strip("|").split("|")] for line in lines]
    return "\n".join(lines) + "\n", cells[0], cells[2:]


def table_records(header, rows):
    """Each row as {column: cell}: the table's content whatever the column order."""
    return [dict(zip(header, row)) for row in rows]


def logged_losses(log_history):
    """The training-loss entries before the final summary, as HF's parse_log_history reads them."""
    entries = []
    for entry in log_history:
        if "train_runtime" in entry:
            break
        if "loss" in entry:
            entries.append(entry)
    return entries


def regular_log_history(every, last, evaluate_every=None, steps_per_epoch=1000):
    """A log history as precis train writes it to trainer_state.json (keys sorted, losses rounded
    to 4 digits as Trainer logs them): a falling training loss every `every` steps up to `last`,
    with ROUGE evaluations every `evaluate_every` steps, and the final summary entry."""
    history = []
    for step in range(1, last + 1):
        epoch = round(step / steps_per_epoch, 4)
        if step % every == 0:
            history.append({"epoch": epoch, "grad_norm": 1.0 + 1000.0 / (step + 7), "learning_rate": 1e-3 * (1 - step / last),
                            "loss": round(3.0 + 7.0 * 25 / (step + 25) + 0.01 * (step % 7), 4), "step": step})
        if evaluate_every and step % evaluate_every == 0:
            history.append({"epoch": epoch, "eval_gen_len": 12.0 + step % 5, "eval_loss": 3.5 + 30.0 / (step + 10),
                            "eval_rouge1": 20.0 + step / 100, "eval_rouge2": 5.123456, "eval_rougeL": 18.0,
                            "eval_rougeLsum": 18.5 + step / 1000, "eval_runtime": 1.25,
                            "eval_samples_per_second": 80.0, "eval_steps_per_second": 2.5, "step": step})
    history.append({"epoch": round(last / steps_per_epoch, 4), "step": last, "total_flos": 0.0, "train_loss": 4.0,
                    "train_runtime": 900.0, "train_samples_per_second": 170.0, "train_steps_per_second": 5.5})
    return json.loads(json.dumps(history, sort_keys=True))
