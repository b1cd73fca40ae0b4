"""The price table (a data file the user can edit or override) and the tokenizers that count prompts."""

from __future__ import annotations

import gzip
import hashlib
from importlib import resources
from pathlib import Path

import pytest

from nationbias.graphs.model.cost.tokens import Estimate
from nationbias.graphs.model.providers import ModelSpec
from nationbias.graphs.model.providers.base import counter_for
from nationbias.stores.config.prices import PACKAGED, price_book, read_prices
from nationbias.stores.errors import InputError

# tiktoken's own SHA-256 of the files it downloads (tiktoken_ext/openai_public.py)
TIKTOKEN_SHA256 = {
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
}


def test_the_packaged_table_loads_and_prices_the_models_the_readme_names() -> None:
    book = price_book()
    mini = book.price("openai:gpt-4o-mini")
    assert mini is not None and (mini.input, mini.output) == (0.15, 0.60)
    assert mini.cost(1_000_000, 1_000_000) == pytest.approx(0.75)
    assert book.price("local:smollm2") is not None and book.price("local:smollm2").input == 0.0  # type: ignore[union-attr]
    assert book.price("openai-compatible:qwen2.5") is None  # a server of one's own: no price to guess
    assert PACKAGED.name == "prices.toml" and PACKAGED.parent.name == "tables"


def test_a_user_file_wins_entry_by_entry_and_the_option_wins_over_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mine = tmp_path / "mine.toml"
    mine.write_text('[models."openai:gpt-4o-mini"]\ninput = 9\noutput = 10\n', encoding="utf-8")
    other = tmp_path / "other.toml"
    other.write_text('[models."openai:gpt-4o-mini"]\ninput = 1\noutput = 1\n', encoding="utf-8")
    monkeypatch.setenv("NATIONBIAS_PRICES", str(mine))
    book = price_book()
    assert book.price("openai:gpt-4o-mini").input == 9  # type: ignore[union-attr]
    assert book.price("openai:gpt-4o").input == 2.5  # type: ignore[union-attr]  # the rest: packaged
    assert price_book(other).price("openai:gpt-4o-mini").input == 1  # type: ignore[union-attr]
    forced = price_book(price_in=3, price_out=4)
    assert forced.price("openai-compatible:anything").output == 4  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[models."a:b"]\ninput = 1\n', "models.'a:b' needs both input and output"),
        ('[models."a:b"]\ninput = -1\noutput = 1\n', "models.'a:b'.input must be a number"),
        ('[models."a:b"]\ninput = "cheap"\noutput = 1\n', "models.'a:b'.input must be a number"),
        ("models = [1, 2", "cannot be read"),
        ("[other]\nx = 1\n", "has no [models"),
    ],
)
def test_a_bad_price_file_is_named_with_what_is_wrong(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "prices.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=None) as caught:
        read_prices(path)
    assert expected in str(caught.value) and str(path) in str(caught.value)
    with pytest.raises(InputError, match="does not exist"):
        price_book(tmp_path / "missing.toml")
    with pytest.raises(InputError, match=r"--price-out must be a number"):
        price_book(price_in=1, price_out=-2)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # bpe_openai's own loader, on import
@pytest.mark.parametrize("name", list(TIKTOKEN_SHA256))
def test_the_offline_encodings_are_tiktoken_s_own_files(name: str) -> None:
    data = resources.files("bpe_openai") / "data" / f"{name}.tiktoken.gz"
    assert hashlib.sha256(gzip.decompress(data.read_bytes())).hexdigest() == TIKTOKEN_SHA256[name]


def test_openai_prompts_are_counted_with_the_model_s_encoding() -> None:
    counter = counter_for(ModelSpec("openai", "gpt-4o-mini"))
    assert counter.exact and counter.name == "o200k_base"
    assert counter.count_text("hello world") == 2
    # 3 tokens frame each message ("user": 1 token, the text: 2), 3 prime the reply
    assert counter.count([{"role": "user", "content": "hello world"}]) == 3 + 1 + 2 + 3
    assert counter_for(ModelSpec("openai", "gpt-4")).name == "cl100k_base"


def test_a_model_without_a_tokenizer_is_estimated_and_says_so() -> None:
    counter = counter_for(ModelSpec("openai-compatible", "qwen2.5", "http://127.0.0.1:1/v1"))
    assert isinstance(counter, Estimate) and not counter.exact and "estimate" in counter.name
    assert counter.count_text("x" * 40) == 10


def test_the_embedded_model_is_counted_with_its_gguf_vocabulary() -> None:
    from llama_cpp import Llama

    from nationbias.graphs.model.embedded.local_model import smollm2_path

    counter = counter_for(ModelSpec("local", "smollm2"))
    assert counter.exact and "GGUF" in counter.name
    vocab = Llama(model_path=str(smollm2_path()), vocab_only=True, verbose=False)
    text = "Does France vote in favour of the draft resolution?"
    try:
        assert counter.count_text(text) == len(vocab.tokenize(text.encode(), add_bos=False)) > 5
    finally:
        vocab.close()
    messages = [{"role": "system", "content": "Vote."}, {"role": "user", "content": text}]
    assert counter.count(messages) > counter.count_text(text) + counter.count_text("Vote.")  # the template
