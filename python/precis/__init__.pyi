# Type stubs of the package precis: every public name of __init__.py's __all__, with the
# signatures of python/precis/*.py (tests/python/test_stubs.py keeps the two in step).
import os
from typing import Any, Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Union

_Path = Union[str, "os.PathLike[str]"]
_Ids = List[int]

__version__: str

class Error(ValueError):
    """A library error, with the message the CLI prints after "precis: error:"."""

class BatchEncoding(Dict[str, Any]):
    """input_ids and attention_mask, as keys and as attributes."""
    input_ids: Any
    attention_mask: Any
    def __getattr__(self, name: str) -> Any: ...

class PreTrainedTokenizer:
    """A checkpoint directory's tokenizer (byte-level BPE or T5's), called as transformers'."""
    def __init__(self, directory: _Path) -> None: ...
    def __call__(self, text: Union[str, Sequence[str]], add_special_tokens: bool = ...,
                 padding: Union[bool, str] = ..., truncation: Optional[Union[bool, str]] = ...,
                 max_length: Optional[int] = ..., return_tensors: Optional[str] = ...,
                 return_attention_mask: bool = ...) -> BatchEncoding: ...
    def decode(self, token_ids: Iterable[int], skip_special_tokens: bool = ...,
               clean_up_tokenization_spaces: Optional[bool] = ...) -> str: ...
    def batch_decode(self, sequences: Iterable[Iterable[int]], skip_special_tokens: bool = ...,
                     clean_up_tokenization_spaces: Optional[bool] = ...) -> List[str]: ...
    @property
    def pad_token_id(self) -> int: ...
    @property
    def model_max_length(self) -> Optional[int]: ...
    def __len__(self) -> int: ...
    def save_pretrained(self, save_directory: _Path) -> None: ...

class AutoTokenizer:
    """transformers.AutoTokenizer's entry point, for local checkpoint directories."""
    @classmethod
    def from_pretrained(cls, pretrained_model_name_or_path: _Path) -> PreTrainedTokenizer: ...

class SummarizationPipeline:
    """transformers' SummarizationPipeline over precis's generate()."""
    model: str
    task: str
    batch_size: int
    def __init__(self, model: _Path, batch_size: int = ..., task: str = ..., **generate_kwargs: Any) -> None: ...
    def __call__(self, inputs: Union[str, Sequence[str]], batch_size: Optional[int] = ...,
                 truncation: bool = ..., return_text: bool = ..., return_tensors: bool = ...,
                 clean_up_tokenization_spaces: bool = ..., **generate_kwargs: Any) -> List[Any]: ...

def pipeline(task: str, model: _Path, batch_size: int = ..., **kwargs: Any) -> SummarizationPipeline:
    """transformers.pipeline("summarization", model=DIR)."""

def rouge(predictions: Iterable[str], references: Iterable[str], rouge_types: Optional[Iterable[str]] = ...,
          use_aggregator: bool = ..., use_stemmer: bool = ..., bootstrap_seed: int = ...) -> Dict[str, Any]:
    """evaluate.load("rouge").compute's keys and values."""

class TrainOutput(NamedTuple):
    """What transformers' trainer.train() returns."""
    global_step: int
    training_loss: Optional[float]
    metrics: Dict[str, Any]

class Seq2SeqTrainingArguments:
    """Every option of `precis train`, checked by its parser; attributes are the parsed values."""
    def __init__(self, output_dir: Optional[_Path] = ..., **kwargs: Any) -> None: ...
    def __getattr__(self, name: str) -> Any: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def to_json_string(self) -> str: ...

def blas_report() -> Dict[str, Any]:
    """The BLAS library, the core it runs and who chose it (at import), the CPU, the cores it could run."""

def help_training_arguments() -> str:
    """`precis train --help`."""

def set_hf_semantics(release: str) -> None:
    """Follow transformers 5 ("5", the default) or 4.44 ("4.44") where the releases differ."""

def hf_semantics() -> str:
    """The release followed: "5" or "4.44" (set_hf_semantics, else PRECIS_HF_SEMANTICS, else "5")."""

def train(args: Any = ..., callback: Optional[Union[Callable[[Dict[str, Any]], Any],
                                                    Sequence[Callable[[Dict[str, Any]], Any]]]] = ...,
          progress: Optional[bool] = ..., **kwargs: Any) -> Optional[TrainOutput]:
    """`precis train` as trainer.train(); TrainOutput on rank 0, None on the others."""

def evaluate(model: _Path, data_file: _Path, **options: Any) -> Dict[str, Any]:
    """`precis eval`'s metrics dict (eval_results.json)."""

def card(model: _Path, language: str = ..., license: Optional[str] = ..., datasets: Optional[Sequence[str]] = ...,
         tags: Optional[Sequence[str]] = ..., base_model: Optional[str] = ..., model_name: Optional[str] = ...,
         widget_text: Optional[str] = ...) -> str:
    """`precis card`: writes README.md (and loss_curve.svg); returns README.md's path."""

class PublishResult:
    """What precis.publish pushed."""
    remote: str
    branch: str
    commit: str
    pushed: bool
    files: List[str]
    lfs_files: List[str]

def publish(model: _Path, repo: _Path, branch: str = ..., commit_message: str = ..., token_env: str = ...,
            create_pr: bool = ..., progress: Optional[Callable[[str], Any]] = ...) -> PublishResult:
    """`precis publish`: git + git-lfs push of a model directory."""
