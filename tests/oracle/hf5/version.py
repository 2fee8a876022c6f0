"""The versions of the second oracle's transformers and torch."""
import json

import torch
import transformers

print(json.dumps({"transformers": transformers.__version__, "torch": torch.__version__}))
