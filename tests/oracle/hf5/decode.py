"""transformers 5.x's tokenizer.decode. Request: tokenizer_dir, ids (rows), cases {name: decode
kwargs}. Answer: per case, the texts."""
import json
import sys

from transformers import AutoTokenizer

request = json.load(sys.stdin)
tok = AutoTokenizer.from_pretrained(request["tokenizer_dir"])
print(json.dumps({name: [tok.decode(row, **kwargs) for row in request["ids"]]
                  for name, kwargs in request["cases"].items()}))
