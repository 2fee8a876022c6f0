"""The model families the oracle tests check side by side: how to make a tiny random checkpoint
of each (bart_models, t5_models), a batch for it, and its probe (tests/probes/<family>_probe.cpp).
A test parametrised by FAMILY_CONFIGS runs once per family and configuration."""
from dataclasses import dataclass, field

from transformers import BartForConditionalGeneration, T5ForConditionalGeneration

import probe_support
import bart_models
import t5_models


@dataclass(frozen=True)
class Family:
    name: str
    vocab: int
    configs: dict
    make: object  # make(config_name, vocab_size) -> a model in eval mode
    random_batch: object  # random_batch(vocab_size, **lengths) -> input_ids, ..., labels
    shift_right: object  # shift_right(model, labels) -> decoder_input_ids, as HF does
    model_class: object  # the transformers class that loads a saved checkpoint
    saved_names: object  # saved_names(model, names): asserts the tensor names precis saved
    # Lengths of the forward and backward batches (T5's long enough that relative distances
    # reach the logarithmic buckets and max_distance).
    forward_lengths: dict = field(default_factory=dict)
    backward_lengths: dict = field(default_factory=dict)

    @property
    def tool(self):
        return f"{self.name}_probe"

    def probe(self, *args):
        return probe_support.probe(self.tool, *args)

    def probe_error(self, *args):
        return probe_support.probe_error(self.tool, *args)

    def run_forward(self, model_dir, batch, tmp_path):
        return probe_support.run_forward(self.tool, model_dir, batch, tmp_path)

    def run_backward(self, model_dir, batch, label_smoothing, tmp_path):
        return probe_support.run_backward(self.tool, model_dir, batch, label_smoothing, tmp_path)


def _bart_shift_right(model, labels):
    from transformers.models.bart.modeling_bart import shift_tokens_right
    return shift_tokens_right(labels, model.config.pad_token_id, model.config.decoder_start_token_id)


def _bart_saved_names(model, names):
    # Only model.shared.weight is written for the tied group, as HF does.
    assert "model.shared.weight" in names and "final_logits_bias" in names
    assert not names & {"model.encoder.embed_tokens.weight", "model.decoder.embed_tokens.weight"}
    assert ("lm_head.weight" in names) == (not model.config.tie_word_embeddings)


def _t5_saved_names(model, names):
    assert "shared.weight" in names
    assert not names & {"encoder.embed_tokens.weight", "decoder.embed_tokens.weight"}
    assert ("lm_head.weight" in names) == (not model.config.tie_word_embeddings)


BART = Family("bart", 97, bart_models.CONFIGS, bart_models.make_bart, bart_models.random_batch,
              _bart_shift_right, BartForConditionalGeneration, _bart_saved_names, forward_lengths=dict(source_len=11), backward_lengths=dict(source_len=11))
T5 = Family("t5", 89, t5_models.CONFIGS, t5_models.make_t5, t5_models.random_batch,
            lambda model, labels: model._shift_right(labels), T5ForConditionalGeneration,
            _t5_saved_names,
            forward_lengths=dict(source_len=23, target_len=17),
            backward_lengths=dict(source_len=19, target_len=13))

# (family, configuration name) for pytest.mark.parametrize, with ids "bart-narrow-gelu".
FAMILY_CONFIGS = [(f, name) for f in (BART, T5) for name in sorted(f.configs)]
FAMILY_CONFIG_IDS = [f"{f.name}-{name}" for f, name in FAMILY_CONFIGS]
