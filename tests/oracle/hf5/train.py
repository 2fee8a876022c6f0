"""Seq2SeqTrainer on a saved checkpoint and records, as train_support's hf_trainer runs 4.44's in
process: here transformers 5.x's, or either release's under torchrun (data parallelism on the
CPU over gloo; the request is then a file named on the command line, and rank 0 answers).
Request: model_dir, records, args (Seq2SeqTrainingArguments overrides),
token_weighted (the loss 5.x intends under gradient accumulation: the summed token losses over
num_items_in_batch, through compute_loss_func; else the model's own loss), weights_out (a
safetensors path). Answer: per optimizer step the summed training_step losses, the log
entries, the label tokens of each micro-batch in the order trained, and max_steps."""
import json
import sys

import torch
import torch.nn.functional as F
from safetensors.torch import save_file
from transformers import (AutoModelForSeq2SeqLM, AutoTokenizer, DataCollatorForSeq2Seq, Seq2SeqTrainer,
                          Seq2SeqTrainingArguments)

torch.set_num_threads(1)
# accelerate 0.34 (beside 4.44) places a data-parallel CPU rank with torch.cpu.device_count and
# set_device, which Debian's torch 1.13 lacks: one CPU device, nothing to set.
if not hasattr(torch.cpu, "device_count"):
    torch.cpu.device_count = lambda: 1
    torch.cpu.set_device = lambda device: None
request = json.load(open(sys.argv[1])) if len(sys.argv) > 1 else json.load(sys.stdin)
tok = AutoTokenizer.from_pretrained(request["model_dir"])
model = AutoModelForSeq2SeqLM.from_pretrained(request["model_dir"])
records = request["records"]
enc = tok([r["dialogue"] for r in records], max_length=request["max_source_length"], truncation=True)
labels = tok(text_target=[r["summary"] for r in records], max_length=request["max_target_length"], truncation=True)
dataset = [{"input_ids": i, "attention_mask": m, "labels": l}
           for i, m, l in zip(enc["input_ids"], enc["attention_mask"], labels["input_ids"])]


def token_weighted(outputs, labels, num_items_in_batch=None):
    logits = outputs["logits"]
    summed = F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), labels.reshape(-1),
                             ignore_index=-100, reduction="sum")
    return summed / num_items_in_batch


micro = []


class Recording(Seq2SeqTrainer):
    def training_step(self, model, inputs, *args, **kw):
        loss = super().training_step(model, inputs, *args, **kw)
        micro.append((loss.item(), int((inputs["labels"] != -100).sum())))
        return loss


kwargs = dict(output_dir=request["output_dir"], learning_rate=1e-3, weight_decay=0.01, warmup_steps=1,
              max_grad_norm=1.0, max_steps=3, logging_steps=1, save_strategy="no", report_to=[], use_cpu=True,
              seed=7, optim="adamw_torch")
kwargs.update(request["args"])
extra = {"compute_loss_func": token_weighted} if request["token_weighted"] else {}  # 5.x only
trainer = Recording(model=model, args=Seq2SeqTrainingArguments(**kwargs), train_dataset=dataset,
                    data_collator=DataCollatorForSeq2Seq(tok, model=model, label_pad_token_id=-100), **extra)
trainer.train()
if trainer.is_world_process_zero():
    ga = trainer.args.gradient_accumulation_steps
    save_file({k: v.detach().clone().contiguous() for k, v in model.state_dict().items()}, request["weights_out"])
    print(json.dumps({"micro_batches": micro,
                      "step_losses": [sum(l for l, _ in micro[i:i + ga]) for i in range(0, len(micro), ga)],
                      "log_history": trainer.state.log_history, "max_steps": trainer.state.max_steps}),
          flush=True)
# Under torchrun every rank waits for rank 0's answer, then leaves the group together: a rank that
# exits while rank 0 still holds the group has aborted rank 0 in gloo's teardown ("terminate called
# without an active exception", Debian's torch 1.13), failing the run after its work was done.
if torch.distributed.is_available() and torch.distributed.is_initialized():
    torch.distributed.barrier()
    torch.distributed.destroy_process_group()
