"""precis.pipeline("summarization"): transformers' SummarizationPipeline over precis's generate()."""
import os

from . import _precis


class SummarizationPipeline:
    """Summaries of texts with a checkpoint directory (BART or T5), as transformers'
    pipeline("summarization", model=DIR) gives them: config.json's prefix before every text
    (T5's "summarize: "), the checkpoint's generation config updated by config.json's
    task_specific_params for the task (bart-large-cnn's beam search), then by the call's
    generate kwargs (num_beams, max_length, min_length,
    no_repeat_ngram_size, length_penalty, do_sample, top_k, top_p, temperature, ...;
    and `seed`: the draws of torch.manual_seed(seed), as HF's pipeline samples after it)."""

    def __init__(self, model, batch_size=1, task="summarization", **generate_kwargs):
        self.model = os.fspath(model)
        self.task = task
        self._model = _precis.SummarizationModel(self.model, task)
        self.batch_size = batch_size
        self._generate_kwargs = generate_kwargs

    def __call__(self, inputs, batch_size=None, truncation=False, return_text=True, return_tensors=False,
                 clean_up_tokenization_spaces=False, **generate_kwargs):
        """A string gives a list of {"summary_text": ...} (one per returned sequence); a list of
        strings gives one such dict per string (a list per string when several sequences are
        returned). return_tensors=True gives "summary_token_ids" (generate()'s rows) instead.
        truncation=True cuts inputs to the tokenizer's model_max_length."""
        single = isinstance(inputs, str)
        texts = [inputs] if single else list(inputs)
        rows = self._model.generate(texts, {**self._generate_kwargs, **generate_kwargs},
                                    self.batch_size if batch_size is None else batch_size, bool(truncation),
                                    clean_up_tokenization_spaces, not single)
        # Text2TextGenerationPipeline's keys are "generated_*", SummarizationPipeline's "summary_*".
        name = "summary" if self.task == "summarization" else "generated"
        key = f"{name}_token_ids" if return_tensors else f"{name}_text"
        results = [[{key: ids if return_tensors else text} for ids, text in per_text] for per_text in rows]
        if single:
            return results[0]
        if all(len(r) == 1 for r in results):
            return [r[0] for r in results]
        return results


def pipeline(task, model, batch_size=1, **kwargs):
    """transformers.pipeline(task, model=DIR): task "summarization" (also "text2text-generation",
    the same here) over a local checkpoint directory. kwargs are generate kwargs for every call."""
    if task not in ("summarization", "text2text-generation"):
        raise ValueError(f'precis.pipeline: task "{task}" is not one precis runs (it runs "summarization")')
    return SummarizationPipeline(model, batch_size=batch_size, task=task, **kwargs)
