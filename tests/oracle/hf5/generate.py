"""transformers 5.x's generate() and decode on a saved checkpoint. Request: model_dir, texts,
max_source, batch_size, cases {name: generate kwargs}, decode_kwargs (optional). Answer: per
case, the generated rows (ids, padding included) and their texts."""
import json
import sys

import torch
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

torch.set_num_threads(1)
request = json.load(sys.stdin)
tok = AutoTokenizer.from_pretrained(request["model_dir"])
model = AutoModelForSeq2SeqLM.from_pretrained(request["model_dir"]).eval()
texts, batch = request["texts"], request["batch_size"]
answer = {}
for name, kwargs in request["cases"].items():
    rows = []
    for begin in range(0, len(texts), batch):
        enc = tok(texts[begin:begin + batch], padding=True, truncation=True,
                  max_length=request["max_source"], return_tensors="pt")
        with torch.no_grad():
            rows += model.generate(**enc, **kwargs).tolist()
    answer[name] = {"ids": rows,
                    "texts": [tok.decode(r, skip_special_tokens=True, **request.get("decode_kwargs", {}))
                              for r in rows]}
print(json.dumps(answer))
