"""transformers 5.x's generate() on a saved checkpoint from given ids. Request: model_dir,
input_ids, attention_mask, cases {name: generate kwargs}. Answer: per case, the rows."""
import json
import sys

import torch
from transformers import AutoModelForSeq2SeqLM

torch.set_num_threads(1)
request = json.load(sys.stdin)
model = AutoModelForSeq2SeqLM.from_pretrained(request["model_dir"]).eval()
inputs = {k: torch.tensor(request[k]) for k in ("input_ids", "attention_mask")}
answer = {}
for name, kwargs in request["cases"].items():
    with torch.no_grad():
        answer[name] = model.generate(**inputs, **kwargs, do_sample=False).tolist()
print(json.dumps(answer))
