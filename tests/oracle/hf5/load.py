"""What transformers 5.x says loading a model directory: its missing and unexpected keys, and
the warnings it raises or logs (model, tokenizer, generation config). Request: model_dir."""
import io
import json
import logging
import sys
import warnings

from transformers import AutoModelForSeq2SeqLM, AutoTokenizer, GenerationConfig
from transformers.utils import logging as hf_logging

request = json.load(sys.stdin)
logged = io.StringIO()
hf_logging.set_verbosity_warning()
hf_logging.get_logger().addHandler(logging.StreamHandler(logged))
with warnings.catch_warnings(record=True) as raised:
    warnings.simplefilter("always")
    _, info = AutoModelForSeq2SeqLM.from_pretrained(request["model_dir"], output_loading_info=True)
    AutoTokenizer.from_pretrained(request["model_dir"])
    GenerationConfig.from_pretrained(request["model_dir"])
print(json.dumps({"missing": sorted(info["missing_keys"]), "unexpected": sorted(info["unexpected_keys"]),
                  "warnings": [str(w.message) for w in raised] + [l for l in logged.getvalue().splitlines() if l]}))
