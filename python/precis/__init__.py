"""precis from Python: Hugging Face's objects, precis's C++ engine underneath.

    import precis
    tokenizer = precis.AutoTokenizer.from_pretrained("model_dir")
    summarizer = precis.pipeline("summarization", model="model_dir")
    summarizer("A long text ...", num_beams=4, max_length=60)
    precis.rouge(predictions, references, use_stemmer=True)
    precis.train(precis.Seq2SeqTrainingArguments(output_dir="out", max_steps=100),
                 model_name_or_path="model_dir", train_file="train.jsonl")
    precis.evaluate("out", "validation.jsonl", predict_with_generate=True)
    precis.card("out", datasets=["samsum"])
    precis.publish("out", "USER/NAME")
    precis.blas_report()   # the BLAS library, the core it runs (chosen at import), the CPU

Every call runs the same library as the `precis` command line: the same option names, checks
and messages (a bad one raises precis.Error, a ValueError), and the same numbers.
"""
import ctypes as _ctypes
import ctypes.util as _ctypes_util

# Open MPI's components, which MPI_Init loads under mpirun, need libmpi's symbols global (as
# mpi4py loads it). Only libmpi: the module's other libraries (OpenBLAS, OpenMP) stay local,
# away from torch's.
_libmpi = _ctypes_util.find_library("mpi")
if _libmpi:
    _ctypes.CDLL(_libmpi, mode=_ctypes.RTLD_GLOBAL)

# OpenBLAS's kernels for this CPU, chosen before the extension module loads the library.
from . import _blas  # noqa: E402
_blas_why = _blas.choose_before_load()

from . import _precis  # noqa: E402
from ._precis import Error, blas_report, hf_semantics, set_hf_semantics
_blas.warn_after_load(_blas_why, blas_report())
Error.__doc__ = """What the library raises for a bad file, option or value (a ValueError): the message the
`precis` command prints after "precis: error:", naming the file, field or option."""
from .evaluation import evaluate
from .hub import PublishResult, card, publish
from .metrics import rouge
from .pipelines import SummarizationPipeline, pipeline
from .tokenization import AutoTokenizer, BatchEncoding, PreTrainedTokenizer
from .training import Seq2SeqTrainingArguments, TrainOutput, help_training_arguments, train

__all__ = ["AutoTokenizer", "BatchEncoding", "Error", "PreTrainedTokenizer", "PublishResult",
           "Seq2SeqTrainingArguments", "SummarizationPipeline", "TrainOutput", "blas_report", "card", "evaluate",
           "help_training_arguments", "hf_semantics", "pipeline", "publish", "rouge", "set_hf_semantics", "train"]
__version__ = "0.1.0"
