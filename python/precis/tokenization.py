"""precis.AutoTokenizer: a checkpoint's tokenizer called as transformers' tokenizers are."""
from . import _precis


class BatchEncoding(dict):
    """input_ids and attention_mask, as keys and as attributes (transformers' BatchEncoding)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def _token_ids(ids):
    return ids.tolist() if hasattr(ids, "tolist") else list(ids)


class PreTrainedTokenizer:
    """The tokenizer of a checkpoint directory: byte-level BPE (BART: tokenizer.json, or
    vocab.json + merges.txt) or T5's (tokenizer.json's Unigram, else spiece.model), giving the
    ids transformers' AutoTokenizer gives."""

    def __init__(self, directory):
        self._tokenizer = _precis.Tokenizer(str(directory))

    def __call__(self, text, add_special_tokens=True, padding=False, truncation=None, max_length=None,
                 return_tensors=None, return_attention_mask=True):
        """Tokenizes a string or a list of strings.

        padding: False / "do_not_pad", True / "longest", or "max_length" (right, pad_token_id).
        truncation: True cuts to max_length (or model_max_length); None cuts only when max_length
        is given; False never. return_tensors: None (lists) or "np" (int64 arrays).
        Returns a BatchEncoding with input_ids and attention_mask.
        """
        single = isinstance(text, str)
        texts = [text] if single else list(text)
        if padding is True:
            padding = "longest"
        elif padding is False:
            padding = "do_not_pad"
        if isinstance(truncation, str):
            truncation = truncation != "do_not_truncate"
        input_ids, attention_mask = self._tokenizer.call(texts, add_special_tokens, truncation, max_length,
                                                         str(padding))
        if return_tensors == "np":
            import numpy
            input_ids, attention_mask = numpy.array(input_ids, dtype=numpy.int64), numpy.array(
                attention_mask, dtype=numpy.int64)
        elif return_tensors is not None:
            raise ValueError(f'return_tensors={return_tensors!r}: precis returns lists (None) or numpy arrays ("np")')
        elif single:
            input_ids, attention_mask = input_ids[0], attention_mask[0]
        out = BatchEncoding(input_ids=input_ids)
        if return_attention_mask:
            out["attention_mask"] = attention_mask
        return out

    def decode(self, token_ids, skip_special_tokens=False, clean_up_tokenization_spaces=None):
        """The text of a list of ids (a list, numpy array or tensor)."""
        return self._tokenizer.decode(_token_ids(token_ids), skip_special_tokens, clean_up_tokenization_spaces)

    def batch_decode(self, sequences, skip_special_tokens=False, clean_up_tokenization_spaces=None):
        """decode() of each row."""
        return [self.decode(s, skip_special_tokens, clean_up_tokenization_spaces) for s in sequences]

    @property
    def pad_token_id(self):
        """The id padding uses (tokenizer_config.json's pad token)."""
        return self._tokenizer.pad_token_id

    @property
    def model_max_length(self):
        """tokenizer_config.json's model_max_length; None when unbounded."""
        return self._tokenizer.model_max_length

    def __len__(self):
        """The vocabulary's size, added tokens included."""
        return len(self._tokenizer)

    def save_pretrained(self, save_directory):
        """Writes the files AutoTokenizer.from_pretrained reads back."""
        self._tokenizer.save(str(save_directory))


class AutoTokenizer:
    """transformers.AutoTokenizer's entry point."""

    @classmethod
    def from_pretrained(cls, pretrained_model_name_or_path):
        """The tokenizer of a local checkpoint directory (precis reads no hub)."""
        return PreTrainedTokenizer(pretrained_model_name_or_path)
