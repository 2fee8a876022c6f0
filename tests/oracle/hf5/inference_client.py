"""huggingface_hub's InferenceClient.summarization (the oracle venv's release) against a server.
Request: url, texts, cases {name: summarization keyword arguments}. Answer: per case, per text,
{"summary": text} or {"status": HTTP status, "error": the server's message}."""
import json
import os
import sys

# The oracle runs offline (hf5_oracle sets HF_HUB_OFFLINE), which would refuse even loopback;
# the client talks to the local server only.
os.environ["HF_HUB_OFFLINE"] = "0"
from huggingface_hub import InferenceClient  # noqa: E402
from huggingface_hub.errors import HfHubHTTPError  # noqa: E402

request = json.load(sys.stdin)
client = InferenceClient(model=request["url"])
answers = {}
for name, kwargs in request["cases"].items():
    answers[name] = []
    for text in request["texts"]:
        try:
            answers[name].append({"summary": client.summarization(text, **kwargs).summary_text})
        except HfHubHTTPError as e:
            answers[name].append({"status": e.response.status_code, "error": e.response.json()["error"]})
print(json.dumps(answers))
