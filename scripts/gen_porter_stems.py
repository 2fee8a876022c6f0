"""Writes tests/unit/data/rouge_porter_stems.tsv: word<TAB>NLTK stem, the expected values of
the Porter stemmer unit test. NLTK is the reference: PorterStemmer() in its default mode
(NLTK_EXTENSIONS), as rouge_score builds it. The words are the distinct rouge_score tokens of
the first 2 MB of English text on the machine (see tests/oracle/test_rouge_corpus.py) plus
words that hit each special case; a deterministic sample keeps the file small.

    .venv/bin/python scripts/gen_porter_stems.py
"""
import pathlib
import random
import sys

from nltk.stem.porter import PorterStemmer
from rouge_score import tokenizers

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "oracle"))
from test_rouge_corpus import english_text  # noqa: E402

SPECIAL = """sky skies dying lying tying news innings inning outings outing cannings canning howe
proceed exceed succeed dies lies ties spied cried agreed feed bled hopping hoping hoped hopped
filing failing falling fizzed hissing caresses ponies caress cats generalizations oscillators
relational conditional rational valenci hesitanci digitizer conformabli radicalli differentli
vileli analogousli vietnamization predication operator feudalism decisiveness hopefulness
callousness formaliti sensitiviti sensibiliti triplicate formative formalize electriciti
electrical hopeful goodness revival allowance inference airliner gyroscopic adjustable
defensible irritant replacement adjustment dependent adoption homologou communism activate
angulariti homologous effective bowdlerize probate rate cease controll roll syzygy yyyy
happy happiness sky yay toy kayak fully logically archaeology analogies biologi theologian
sensational emotionally fallible generously really finally criticalli""".split()


def main():
    words = set(tokenizers.DefaultTokenizer(use_stemmer=False).tokenize(english_text(2_000_000)))
    words = sorted(w for w in words if len(w) > 3 and not w.isdigit())
    sample = sorted(set(random.Random(0).sample(words, min(6000, len(words)))) | set(SPECIAL))
    stemmer = PorterStemmer()
    out = ROOT / "tests" / "unit" / "data" / "rouge_porter_stems.tsv"
    out.write_text("".join(f"{w}\t{stemmer.stem(w)}\n" for w in sample))
    print(f"wrote {len(sample)} words to {out}")


if __name__ == "__main__":
    main()
