"""Seeds written by Hugging Face for the fuzz targets (scripts/fuzz.sh runs this when the
oracle's .venv is set up): tiny BART and T5 checkpoints' config.json, generation_config.json
and model.safetensors, and their tokenizers (BartTokenizerFast's tokenizer.json, vocab.json and
merges.txt; T5's spiece.model and T5TokenizerFast's Unigram tokenizer.json), made the way the
oracle tests make theirs. Also lists, in OUT/tokenizer_dirs, the full tokenizer directories
for tokenizer_encode_fuzzer.

usage: python fuzz/make_hf_seeds.py OUT
"""
import json
import pathlib
import sys

import torch

SEP = "\n#precis-fuzz-file#\n"  # fuzz_support.h's kFileSeparator
TEXTS = [
    "Amanda: I baked cookies. Do you want some?\nJerry: Sure!\nAmanda: I'll bring you tomorrow :-)",
    "Olivia: Who are you voting for in this election?\nOliver: Liberals as always.",
    "summarize: The tower is 324 metres (1,063 ft) tall, about the same height as an 81-storey building.",
    "café naïve 你好 😀 1234 5678 — “quotes” and ‘apostrophes’",
] * 10


def add(out, target, name, data):
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data.encode() if isinstance(data, str) else data)


def read(path):
    return pathlib.Path(path).read_text(encoding="utf-8")


def joined(*paths):
    return SEP.join(read(p) if pathlib.Path(p).exists() else "" for p in paths)


def models(out, work):
    from safetensors.torch import save_file
    from transformers import BartConfig, BartForConditionalGeneration, GenerationConfig, T5Config

    torch.manual_seed(0)
    bart = BartForConditionalGeneration(BartConfig(
        vocab_size=24, d_model=4, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
        decoder_attention_heads=2, encoder_ffn_dim=4, decoder_ffn_dim=4, max_position_embeddings=6))
    bart.save_pretrained(work / "bart")
    add(out, "model_config_fuzzer", "hf-bart.json", read(work / "bart/config.json"))
    data = (work / "bart/model.safetensors").read_bytes()
    if len(data) <= 8192:
        add(out, "safetensors_fuzzer", "hf-bart.safetensors", data)
    state = bart.state_dict()
    save_file({"model.shared.weight": state["model.shared.weight"].to(torch.float16),
               "final_logits_bias": state["final_logits_bias"].to(torch.bfloat16),
               "position_ids": torch.arange(5, dtype=torch.int64),
               "mask": torch.tensor([[True, False]]),
               "half": torch.ones(2, 2, dtype=torch.float64)},
              str(work / "mixed.safetensors"), metadata={"format": "pt"})
    add(out, "safetensors_fuzzer", "hf-mixed.safetensors", (work / "mixed.safetensors").read_bytes())

    cnn = GenerationConfig(bos_token_id=0, decoder_start_token_id=2, early_stopping=True, eos_token_id=2,
                           forced_bos_token_id=0, forced_eos_token_id=2, length_penalty=2.0,
                           max_length=142, min_length=56, no_repeat_ngram_size=3, num_beams=4,
                           pad_token_id=1)
    cnn.save_pretrained(work / "bart")
    add(out, "generation_config_fuzzer", "hf-bart-large-cnn",
        joined(work / "bart/config.json", work / "bart/generation_config.json"))

    t5 = T5Config(vocab_size=32, d_model=8, d_kv=4, d_ff=8, num_layers=1, num_decoder_layers=2, num_heads=2,
                  relative_attention_num_buckets=8, relative_attention_max_distance=12,
                  feed_forward_proj="gated-gelu", tie_word_embeddings=False)
    t5.save_pretrained(work / "t5")
    add(out, "model_config_fuzzer", "hf-t5.json", read(work / "t5/config.json"))


def bart_tokenizer(out, work):
    from tokenizers import ByteLevelBPETokenizer
    from transformers import BartTokenizerFast

    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(TEXTS, vocab_size=300, min_frequency=1,
                            special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    bpe.save_model(str(work))
    fast = BartTokenizerFast(vocab_file=str(work / "vocab.json"), merges_file=str(work / "merges.txt"))
    d = work / "bart-tokenizer"
    fast.save_pretrained(str(d))
    add(out, "tokenizer_json_fuzzer", "hf-bart",
        joined(d / "tokenizer.json", d / "tokenizer_config.json", d / "special_tokens_map.json"))
    add(out, "bpe_files_fuzzer", "hf-bart", joined(d / "vocab.json", d / "merges.txt", d / "tokenizer_config.json"))
    return d


def t5_tokenizers(out, work):
    import sentencepiece as spm
    from transformers import T5Tokenizer, T5TokenizerFast

    dirs = []
    for rule in ["identity", "nmt_nfkc"]:  # identity: a small seed; nmt_nfkc: T5's own (~250 KB)
        d = work / f"spiece-{rule}"
        d.mkdir()
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(TEXTS), model_prefix=str(d / "model"), vocab_size=90,
            model_type="unigram", pad_id=0, eos_id=1, unk_id=2, bos_id=-1, character_coverage=0.98,
            normalization_rule_name=rule, minloglevel=2)
        slow = T5Tokenizer(vocab_file=str(d / "model.model"), legacy=True, extra_ids=4)
        slow.save_pretrained(str(d / "slow"))
        fast = T5TokenizerFast.from_pretrained(str(d / "slow"), from_slow=True, legacy=True)
        fast.save_pretrained(str(d / "fast"))
        (d / "fast/spiece.model").unlink(missing_ok=True)  # tokenizer.json alone, as on the Hub
        dirs += [d / "slow", d / "fast"]
        if rule == "identity":
            add(out, "spiece_model_fuzzer", "hf-t5", (d / "slow/spiece.model").read_bytes()
                + SEP.encode() + read(d / "slow/tokenizer_config.json").encode())
            add(out, "tokenizer_json_fuzzer", "hf-t5-unigram",
                joined(d / "fast/tokenizer.json", d / "fast/tokenizer_config.json",
                       d / "fast/special_tokens_map.json"))
    return dirs


def main():
    out = pathlib.Path(sys.argv[1])
    work = out / "hf-work"
    work.mkdir(parents=True, exist_ok=True)
    models(out, work)
    dirs = [bart_tokenizer(out, work)] + t5_tokenizers(out, work)
    (out / "tokenizer_dirs").write_text(":".join(str(d.resolve()) for d in dirs))


if __name__ == "__main__":
    main()
