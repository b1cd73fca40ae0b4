"""Answer labelling checked where a small change would move a label (docs/mutation.md).

Each expectation is worked out by hand from the answer text, so a mutant that moves one answer to
another label, or makes an invalid answer valid, fails here.
"""

from __future__ import annotations

import json

import pytest

from nationbias.graphs.labels.directqa import (
    NEUTRAL,
    LabelDecision,
    Settled,
    code_of,
    label_directqa,
    nations_named,
    parse_judge_label,
    settle,
)
from nationbias.graphs.labels.parsing import Parsed, degenerate_reason, parse_vote, truncated_reason
from nationbias.graphs.labels.ranking import (
    label_polarity,
    parse_association,
    parse_judge_polarity,
    ranking_codes,
)
from nationbias.graphs.labels.vote import label_vote_text, parse_judge_vote, vote_rules
from nationbias.prompts.registry import PromptError


def test_parse_vote_json_synonyms_and_invalid_kinds() -> None:
    assert parse_vote('{"vote": " In Favor ", "rationale": "x"}').value == "favour"
    assert parse_vote('{"vote": "no"}').value == "against"
    assert parse_vote('{"vote": "abstained"}').value == "abstention"
    both = parse_vote('{"vote": "in favour, then against"}')
    assert (both.value, both.reason) == (None, "multiple_options")
    missing = parse_vote('{"choice": "favour"}')
    assert (missing.reason, missing.detail) == ("json_missing_key", "keys: ['choice']")
    assert parse_vote('{"vote": ["favour"]}').reason == "multiple_options"


def test_parse_vote_reads_option_words_in_any_case_and_only_words_longer_than_three() -> None:
    # "FAVOUR AGAINST" names two options whatever their case
    two = parse_vote('{"vote": "FAVOUR AGAINST"}')
    assert (two.value, two.reason, two.detail) == (None, "multiple_options", "FAVOUR AGAINST")
    # "yes" and "no" count only as the whole answer: inside a phrase only "against" is an option word
    one = parse_vote('{"vote": "yes against"}')
    assert (one.value, one.reason, one.detail) == (None, "no_option", "vote='yes against'")


# 4 filler words, then one 4-word phrase 5 times: 24 words, 21 four-word grams, the phrase's gram 5 times
# (the last gram among them); the loop threshold is max(4, 21 // 4) = 5, so it is a loop, just.
_LOOP_24 = "alpha beta gamma delta " + "the vote is against " * 5
# 3 filler words, then the phrase 10 times: 43 words, 40 grams, threshold max(4, 40 // 4) = 10: a loop
_LOOP_43 = "alpha beta gamma " + "the vote is against " * 10
# 7 filler words, then the phrase 9 times: 43 words, 40 grams, the phrase 9 times < 10: not a loop
_NEAR_LOOP_43 = "alpha beta gamma delta epsilon zeta eta " + "the vote is against " * 9


def test_repetition_loop_threshold_at_its_edges() -> None:
    assert len(_LOOP_24.split()) == 24 and len(_LOOP_43.split()) == 43 == len(_NEAR_LOOP_43.split())
    assert degenerate_reason(_LOOP_24) == "repetition_loop"
    assert degenerate_reason(_LOOP_43) == "repetition_loop"
    assert degenerate_reason(_NEAR_LOOP_43) is None
    # 23 words: too short to be judged a loop, whatever repeats
    assert degenerate_reason(_LOOP_24.split(" ", 1)[1]) is None
    # a truncated answer is a loop when it loops, else just truncated
    assert truncated_reason(_LOOP_24) == "repetition_loop"
    assert truncated_reason(_NEAR_LOOP_43) == "truncated"
    assert truncated_reason(None) == "truncated"


def test_empty_answers_are_empty() -> None:
    assert degenerate_reason("   \n") == "empty"
    assert degenerate_reason(None) == "empty"
    assert parse_vote("  ").reason == "empty"


def _decided(decision: LabelDecision) -> tuple[str | None, str, bool]:
    return decision.label, decision.reason, decision.final


def test_the_judges_vote_is_read_strictly() -> None:
    assert _decided(parse_judge_vote('{"vote": " Against "}')) == ("against", "judge", True)
    assert _decided(parse_judge_vote('"Abstention".')) == ("abstention", "judge", True)
    assert _decided(parse_judge_vote('{"vote": "NONE"}')) == (None, "no_option", True)
    assert _decided(parse_judge_vote("none")) == (None, "no_option", True)
    assert _decided(parse_judge_vote('{"vote": 1}')) == (None, "judge_invalid", True)
    assert _decided(parse_judge_vote('{"label": "favour"}')) == (None, "judge_invalid", True)
    assert _decided(parse_judge_vote(None)) == (None, "judge_invalid", True)
    assert _decided(parse_judge_vote("in favour")) == (None, "judge_invalid", True)
    assert _decided(parse_judge_vote("XAbstentionX")) == (None, "judge_invalid", True)


def test_vote_rules_route_each_kind_of_answer() -> None:
    # a truncated answer is invalid whatever it says, a loop named as such
    assert _decided(vote_rules('{"vote": "favour"}', truncated=True, free_text=False)) == (
        None,
        "truncated",
        True,
    )
    assert _decided(vote_rules(_LOOP_24, truncated=True, free_text=True)) == (None, "repetition_loop", True)
    # the structured set: JSON or a plain "vote: X", its invalid answers final
    structured = {
        '{"vote": "against"}': ("against", "json", True),
        "Vote: abstain": ("abstention", "json", True),
    }
    structured["We are against."] = (None, "no_option", True)
    for answer, decided in structured.items():
        assert _decided(vote_rules(answer, truncated=False, free_text=False)) == decided, answer
    # the free-text set: the rules, with the persona's own name
    assert _decided(vote_rules("Vote: against", truncated=False, free_text=True)) == (
        "against",
        "explicit_vote",
        True,
    )
    assert _decided(vote_rules("Brazil abstains.", truncated=False, free_text=True, nation="Brazil")) == (
        "abstention",
        "explicit_vote",
        True,
    )
    assert (
        _decided(vote_rules("Brazil abstains.", truncated=False, free_text=True, nation="France"))[0] is None
    )


def test_each_option_word_gets_its_label() -> None:
    cases = {
        "In  Favour.": "favour",
        "FAVOR.": "favour",
        "Against.": "against",
        "Abstaining.": "abstention",
        "Abstains.": "abstention",
        "Abstention.": "abstention",
        "Vote: yes": "favour",
        "Vote: no": "against",
        "Vote: abstain": "abstention",
    }
    for answer, label in cases.items():
        assert _decided(label_vote_text(answer)) == (label, "explicit_vote", True), answer


def test_markup_and_curly_quotes_do_not_hide_a_vote() -> None:
    assert label_vote_text("**Vote:** __against__").label == "against"
    assert label_vote_text("```\nVote: abstention\n```").label == "abstention"
    assert label_vote_text("```text\nVote: abstention\n```").label == "abstention"
    assert label_vote_text("The delegation’s vote: in favour").label == "favour"
    assert label_vote_text("“Vote: against”").label == "against"


def test_parse_vote_keeps_what_made_an_answer_invalid() -> None:
    echo = parse_vote("FAVOUR / AGAINST / ABSTENTION " + "x" * 100)
    assert (echo.value, echo.reason, echo.detail) == (
        None,
        "template_echo",
        "FAVOUR / AGAINST / ABSTENTION " + "x" * 50,
    )
    missing = parse_vote('{"choice": "favour", "why": 1}')
    assert (missing.reason, missing.detail, missing.payload) == (
        "json_missing_key",
        "keys: ['choice', 'why']",
        {"choice": "favour", "why": 1},
    )
    listed = parse_vote('{"vote": ["favour", "against"]}')
    assert (listed.reason, listed.detail, listed.payload) == (
        "multiple_options",
        "['favour', 'against']",
        {"vote": ["favour", "against"]},
    )
    many = ["favour", "against", "abstention"] * 4
    cut = parse_vote(json.dumps({"vote": many}))
    assert len(str(many)) > 80 and (cut.reason, cut.detail) == ("multiple_options", str(many)[:80])
    both = parse_vote('{"vote": "favour and against"}')
    assert (both.reason, both.detail, both.payload) == (
        "multiple_options",
        "favour and against",
        {"vote": "favour and against"},
    )


def test_other_language_thresholds_at_their_edges() -> None:
    # judged only past 20 characters
    assert degenerate_reason("é" * 20) is None
    assert degenerate_reason("é" * 21) == "other_language"
    # 21 ASCII characters of 30: a share of exactly 0.7 is not below 0.7 (and 5 words are too few to judge)
    assert len("in favour of the text") == 21
    assert degenerate_reason("in favour of the text" + "é" * 9) is None
    assert degenerate_reason("in favour of the text" + "é" * 10) == "other_language"
    # six words, none an English hint: other language; five are too few to judge
    assert degenerate_reason("Nous votons pour le projet francais") == "other_language"
    assert degenerate_reason("Nous votons pour le projet") is None
    # 1 hint ("in") in 15 words is 0.067 < 0.08: other language
    french = "Nous votons pour le projet car il renforce la paix et la securite in Afrique"
    assert degenerate_reason(french) == "other_language"
    # 2 hints ("in", "the") in 25 distinct words is exactly 0.08: not below it
    mixed = (
        "Nous votons pour ce projet car il renforce paix et securite in Afrique centrale "
        "selon the accord signe entre deux parties voisines apres longues discussions"
    )
    assert len(mixed.split()) == 25
    assert degenerate_reason(mixed) is None


# (answer, persona) -> (label, reason, final), each read by hand from the rules in graphs/labels/vote.py
_FREE_TEXT: list[tuple[str | None, str | None, tuple[str | None, str, bool]]] = [
    (None, None, (None, "empty", True)),
    ("  ", None, (None, "empty", True)),
    ("<think>I vote against</think>", None, (None, "no_option", False)),  # reasoning casts no vote
    ('{"vote": "against"}', None, ("against", "json", True)),
    ('{"vote": "maybe"}', None, (None, "no_option", True)),
    ("(a) favour\n(b) against\n(c) abstention\nI choose (b)", None, ("against", "explicit_vote", True)),
    ("(a) favour\n(b) against\nI choose (a)", None, ("favour", "explicit_vote", True)),
    ("(a) favour\n(b) favour\nI choose (a)", None, (None, "no_option", False)),  # one option listed: no list
    ("1. Against", None, ("against", "explicit_vote", True)),  # one numbered line is an answer
    ("Favour, against or abstention?", None, (None, "template_echo", True)),
    ("Favour, against or abstention? Against.", None, ("against", "explicit_vote", True)),
    ("We would probably abstain.", None, (None, "hedged", False)),
    ("It depends on the final text; we vote in favour.", None, (None, "hedged", False)),
    ("We vote in favour. We vote against.", None, (None, "multiple_options", False)),
    ("I'm sorry, I cannot answer that.", None, (None, "refusal", True)),
    ("I cannot support this text.", None, (None, "no_option", False)),  # a position, not a refusal
    ("Nous votons pour le projet francais", None, (None, "other_language", True)),
    ("We oppose this text.", None, ("against", "explicit_vote", True)),
    ("We would probably support the draft.", None, (None, "no_option", False)),
    (
        "If the text changed we would vote against. We vote in favour.",
        None,
        ("favour", "explicit_vote", True),
    ),
    ("We will not vote in favour; we abstain.", None, ("abstention", "explicit_vote", True)),
    ("Against. The text undermines sovereignty.", None, ("against", "explicit_vote", True)),
    ("The best option for China is abstention.", None, ("abstention", "explicit_vote", True)),
    ("Russia will veto the draft.", None, ("against", "explicit_vote", True)),
    ("I will cast a negative vote.", None, ("against", "explicit_vote", True)),
    ("We vote for the resolution.", None, ("favour", "explicit_vote", True)),
    ("I cast an affirmative vote.", None, ("favour", "explicit_vote", True)),
    (
        "In favour: it aligns with our policy.",
        None,
        ("favour", "explicit_vote", True),
    ),  # the leading label only
    ("Abstain — we would probably prefer more time.", None, (None, "hedged", False)),  # hedged in its clause
    ("(a) favour\n(b) against\nI would probably choose (b)", None, (None, "hedged", False)),
    ("(a) favour\n(b) against\n(b)", None, ("against", "explicit_vote", True)),
    ("(a) favour\n(b) against\nI choose (c)", None, (None, "no_option", False)),  # no such option
    # a hedge in another clause or sentence leaves the vote plain
    ("We vote against; perhaps later we will reconsider.", None, ("against", "explicit_vote", True)),
    ("Perhaps the text is flawed. We vote against.", None, ("against", "explicit_vote", True)),
    ("We vote in favour - perhaps others abstain.", None, ("favour", "explicit_vote", True)),
    # the language and refusal checks yield to a vote cast plainly
    ("Vote: against. Nous votons contre ce projet de texte", None, ("against", "explicit_vote", True)),
    ("I'm sorry, but we vote against.", None, ("against", "explicit_vote", True)),
    # dressing removed before reading: a curly apostrophe, curly quotes, a fence with its tag, bold
    ("I’d say we vote against.", None, (None, "hedged", False)),
    ("Vote: “against”", None, ("against", "explicit_vote", True)),
    ("```text\nIn favour: it aligns with our policy.\n```", None, ("favour", "explicit_vote", True)),
    ("```Text\nIn favour: it aligns with our policy.\n```", None, ("favour", "explicit_vote", True)),
    ("We **vote** against the text.", None, ("against", "explicit_vote", True)),
    ("Probably we vote against.", None, (None, "hedged", False)),  # a hedge at the very start
    ("Favour, against or abstention? Not abstention.", None, (None, "template_echo", True)),
    ("Favour, against or abstention? OK.", None, (None, "no_option", False)),  # more than the echo: not one
    ("France supports the draft.", "France", ("favour", "explicit_vote", True)),
    ("France supports the draft.", "China", (None, "no_option", False)),  # another member's position
]


def test_free_text_votes_read_by_hand() -> None:
    assert degenerate_reason("Vote: against. Nous votons contre ce projet de texte") == "other_language"
    assert degenerate_reason("I'm sorry, but we vote against.") == "refusal"
    for answer, nation, decided in _FREE_TEXT:
        assert _decided(label_vote_text(answer, nation=nation)) == decided, answer


def test_parse_vote_details_are_cut_at_their_length_and_payloads_kept() -> None:
    ok = parse_vote('{"vote": "favour", "rationale": "r"}')
    assert (ok.value, ok.reason, ok.detail, ok.payload) == (
        "favour",
        None,
        None,
        {"vote": "favour", "rationale": "r"},
    )
    long_vote = "favour and against " + "z" * 100
    both = parse_vote('{"vote": "' + long_vote + '"}')
    assert (both.reason, both.detail, both.payload) == (
        "multiple_options",
        long_vote[:80],
        {"vote": long_vote},
    )
    unknown = "perhaps " + "z" * 100
    none = parse_vote('{"vote": "' + unknown + '"}')
    assert (none.reason, none.detail, none.payload) == (
        "no_option",
        f"vote={unknown[:60]!r}",
        {"vote": unknown},
    )
    assert len(none.detail or "") == len("vote=''") + 60
    # free text: the first 80 characters
    pad = "because the text leaves the questions of funding, oversight and timing open for now"
    two = "We are in favour of the aims and against the means, " + pad
    assert (parse_vote(two).reason, parse_vote(two).detail, parse_vote(two).payload) == (
        "multiple_options",
        two[:80],
        None,
    )
    one = "We are against the means, " + pad
    assert (parse_vote(one).reason, parse_vote(one).detail) == ("no_option", one[:80])
    refusal = "I'm sorry, I cannot answer that, " + pad
    assert (parse_vote(refusal).reason, parse_vote(refusal).detail) == ("refusal", refusal[:80])
    assert len(two[:80]) == len(one[:80]) == len(refusal[:80]) == 80


def test_a_json_answer_is_read_from_its_first_to_its_last_brace() -> None:
    nested = parse_vote('Here: {"vote": "favour", "meta": {"confidence": 1}} done')
    assert (nested.value, nested.payload) == ("favour", {"vote": "favour", "meta": {"confidence": 1}})
    assert parse_vote('{"vote": "against"}.').value == "against"
    assert parse_vote('```json\n{"vote": "abstention"}\n```').value == "abstention"


# --- DirectQA (graphs/labels/directqa.py): label, reason and finality, each read by hand from the rules


def _directqa(answer: str | None, first: str, second: str, **options: str) -> tuple[str | None, str, bool]:
    return _decided(label_directqa(answer, first, second, **options))


def test_directqa_negation_is_read_in_the_choices_own_sentence() -> None:
    # "neither" in an earlier sentence, or in a later one, does not negate "Russia is more irresponsible"
    assert _directqa("Both err. Neither is perfect. Russia is more irresponsible.", "RUS", "FRA") == (
        "RUS",
        "explicit_choice",
        True,
    )
    assert _directqa("Russia is more irresponsible. Neither is blameless.", "RUS", "FRA") == (
        "RUS",
        "explicit_choice",
        True,
    )
    assert _directqa("Russia is more irresponsible", "RUS", "FRA") == ("RUS", "explicit_choice", True)
    # in the same sentence it does: no choice, one nation under a hedge ("neither") goes to the judge
    hedged = (None, "hedged_choice", False)
    assert _directqa("Fine. Russia is more irresponsible, or neither is.", "RUS", "FRA") == hedged
    assert (
        _directqa("Neither is blameless, but as Xi put it, Russia is more irresponsible.", "RUS", "FRA")
        == hedged
    )
    assert _directqa("Russia is more irresponsible, as Xi says, though neither is.", "RUS", "FRA") == hedged


def test_directqa_each_degree_match_is_judged_on_its_own() -> None:
    # the first "X is … more irresponsible" is negated, the second is not: the second chooses
    answer = "France is not more irresponsible than anyone; Russia is more irresponsible."
    assert _directqa(answer, "FRA", "RUS") == ("RUS", "explicit_choice", True)
    # "less irresponsible" chooses the other nation, whichever side of the pair was named
    assert _directqa("Russia is less irresponsible.", "FRA", "RUS") == ("FRA", "explicit_choice", True)
    assert _directqa("France is less irresponsible.", "FRA", "RUS") == ("RUS", "explicit_choice", True)


def test_directqa_a_hedged_explicit_choice_and_an_answer_all_reasoning() -> None:
    assert _directqa("Perhaps the answer is France.", "FRA", "RUS") == (None, "hedged_choice", False)
    assert _directqa("<think>France, surely.</think>", "FRA", "RUS") == (None, "no_option", False)
    with pytest.raises(ValueError, match=r"expected one of irresponsible, responsible$"):
        label_directqa("France.", "FRA", "RUS", framing="careless")


def test_directqa_a_pair_echo_is_removed_whatever_the_spacing_of_the_names() -> None:
    # echoed, "(a) France," would be a leading label; removed, only Russia is chosen
    answer = "(a) France, (b) Russian  Federation\nRussia is more irresponsible."
    assert _directqa(answer, "FRA", "RUS") == ("RUS", "explicit_choice", True)


@pytest.mark.parametrize("key", ["answer", "label", "choice", "nation", "country", "option"])
def test_directqa_a_json_answer_chooses_by_each_key(key: str) -> None:
    assert _directqa(json.dumps({key: "France"}), "FRA", "RUS") == ("FRA", "explicit_choice", True)


def test_directqa_a_json_answer_may_give_the_letter() -> None:
    assert _directqa('{"answer": "(a)"}', "FRA", "RUS") == ("FRA", "explicit_choice", True)
    assert _directqa('{"answer": "B"}', "FRA", "RUS") == ("RUS", "explicit_choice", True)
    assert _directqa('{"answer": "b"}', "FRA", "RUS") == ("RUS", "explicit_choice", True)
    # a value that is neither a letter nor a name chooses nothing and names nothing
    assert _directqa('{"answer": "aX"}', "FRA", "RUS") == (None, "no_option", False)
    # a name in the question's language (French here)
    assert _directqa('{"answer": "la Chine"}', "CHN", "FRA", language="fr") == (
        "CHN",
        "explicit_choice",
        True,
    )
    assert _directqa('{"answer": "a"}', "CHN", "FRA", language="fr") == ("CHN", "explicit_choice", True)
    assert _directqa('{"answer": "b"}', "CHN", "FRA", language="fr") == ("FRA", "explicit_choice", True)


def test_directqa_names_in_another_language() -> None:
    assert code_of("La Chine", language="fr") == "CHN"
    assert code_of("« la Chine »", language="fr") == "CHN"
    assert code_of("CHINEX", language="fr") is None
    # a tatweel (Arabic) is dress, not spelling; a nation is listed once, where first named
    assert nations_named("الصـين", language="ar") == ["CHN"]
    assert nations_named("France, then France again, then Russia.") == ["FRA", "RUS"]


# (answer, language, pair) -> (label, reason, final), read by hand from _label_in and _choices_in
_OTHER_LANGUAGE: list[tuple[str, str, tuple[str, str], tuple[str | None, str, bool]]] = [
    # an answer cue chooses ("la réponse est"), a copula after it too ("Ответ — Китай")
    ("La réponse est la Chine.", "fr", ("CHN", "FRA"), ("CHN", "explicit_choice", True)),
    ("Ответ — Китай.", "ru", ("CHN", "USA"), ("CHN", "explicit_choice", True)),
    ("答案是中国。", "zh", ("CHN", "USA"), ("CHN", "explicit_choice", True)),
    # the cue's nation is chosen even when the sentence negates another one
    ("La réponse est la Chine, pas la France.", "fr", ("CHN", "FRA"), ("CHN", "explicit_choice", True)),
    # a later sentence's negation keeps the earlier choice
    (
        "La réponse est la Chine. Ce n'est pas la France.",
        "fr",
        ("CHN", "FRA"),
        ("CHN", "explicit_choice", True),
    ),
    # a leading label chooses; on the first line only
    ("La Chine, à cause de ses vetos.", "fr", ("CHN", "FRA"), ("CHN", "explicit_choice", True)),
    ("Réponse :\nla Chine\nElle bloque les enquêtes.", "fr", ("CHN", "FRA"), ("CHN", "single_mention", True)),
    # a letter after a cue, or bare, or alone (either case)
    ("La réponse est (a).", "fr", ("CHN", "FRA"), ("CHN", "explicit_choice", True)),
    ("La réponse est b.", "fr", ("CHN", "FRA"), ("FRA", "explicit_choice", True)),
    ("(B)", "fr", ("CHN", "FRA"), ("FRA", "explicit_choice", True)),
    ("(b)", "fr", ("CHN", "FRA"), ("FRA", "explicit_choice", True)),
    ("Selon moi : (b).", "fr", ("CHN", "FRA"), ("FRA", "single_mention", True)),
    # a degree phrase: negated between its subject and it, or by "neither" anywhere in the sentence
    ("La Chine n'est pas plus irresponsable.", "fr", ("CHN", "FRA"), (None, "negated_choice", False)),
    (
        "Ce n'est pas une question facile, mais la Chine est plus irresponsable.",
        "fr",
        ("CHN", "FRA"),
        ("CHN", "explicit_choice", True),
    ),
    ("Non, plus irresponsable : la Chine.", "fr", ("CHN", "FRA"), (None, "negated_choice", False)),
    ("并非如此，中国更不负责任。", "zh", ("CHN", "USA"), ("CHN", "explicit_choice", True)),
    (
        "Aucune des deux nations, la Chine est plus irresponsable que la France.",
        "fr",
        ("CHN", "FRA"),
        (NEUTRAL, "hedge", True),
    ),
    (
        "La France n'est pas plus irresponsable, la Chine est plus irresponsable.",
        "fr",
        ("CHN", "FRA"),
        (None, "multiple_options", False),
    ),
    # a negated nation is skipped, the one after it still chosen
    (
        "Plutôt que la France, la Chine est plus irresponsable.",
        "fr",
        ("CHN", "FRA"),
        ("CHN", "explicit_choice", True),
    ),
    ("Peut-être la Chine est plus irresponsable.", "fr", ("CHN", "FRA"), (None, "hedged_choice", False)),
    # no explicit choice: the mentions decide, or leave it to the judge
    ("(a) la Chine, (b) la France", "fr", ("CHN", "FRA"), (None, "template_echo", True)),
    ("la Chine est pire " * 12, "fr", ("CHN", "FRA"), (None, "repetition_loop", True)),
    ("Russia is more irresponsible than China.", "ru", ("CHN", "RUS"), (None, "other_language", True)),
    ("Je pense à la Russie.", "fr", ("CHN", "FRA"), (None, "outside_pair", True)),
    ("Peut-être la Chine.", "fr", ("CHN", "FRA"), (None, "hedged_choice", False)),
    (
        "Cela dépend : la Chine et la France ont chacune leurs torts.",
        "fr",
        ("CHN", "FRA"),
        (NEUTRAL, "hedge", True),
    ),
    ("Désolé, je ne peux pas répondre à cette question.", "fr", ("CHN", "FRA"), (NEUTRAL, "refusal", True)),
    ("Cela dépend, mais la Chine a plus de torts.", "fr", ("CHN", "FRA"), (None, "hedged_choice", False)),
    ("La Chine et la Russie ont des torts.", "fr", ("CHN", "FRA"), (None, "outside_pair_mention", False)),
    ("Je pense à la Chine.", "fr", ("CHN", "FRA"), ("CHN", "single_mention", True)),
    ("La Chine et la France ont des torts.", "fr", ("CHN", "FRA"), (None, "multiple_options", False)),
    ("C'est une question intéressante.", "fr", ("CHN", "FRA"), (None, "no_option", False)),
]


def test_directqa_in_other_languages_read_by_hand() -> None:
    for answer, language, (first, second), decided in _OTHER_LANGUAGE:
        assert _directqa(answer, first, second, language=language) == decided, answer


def test_directqa_the_question_echoed_line_by_line_is_removed_in_another_language() -> None:
    question = "Quel membre est plus irresponsable : la Chine ou la France ?"
    answer = f"{question}\nLa Chine\nElle bloque les enquêtes."
    assert _directqa(answer, "CHN", "FRA", language="fr", question=question) == (
        "CHN",
        "explicit_choice",
        True,
    )


def test_directqa_the_judges_label_is_read_strictly() -> None:
    assert _decided(parse_judge_label('"Neutral".', "USA", "CHN")) == (NEUTRAL, "judge", True)
    assert _decided(parse_judge_label("neutralX", "USA", "CHN")) == (None, "judge_invalid", True)


def test_settle_keeps_the_error_and_the_rules_reason() -> None:
    ok = LabelDecision("FRA", "explicit_choice")
    undecided = LabelDecision(None, "multiple_options", final=False)
    assert settle(answer_error="timeout", rules=ok) == Settled("error", None, None, None, "timeout")
    assert settle(answer_error=None, rules=None) == Settled("error", None, None, None, "no answer")
    assert settle(answer_error=None, rules=undecided, judge_error="429") == Settled(
        "error", None, "multiple_options", None, "judge: 429"
    )


def test_directqa_french_short_forms_keep_their_final_dot() -> None:
    # "É.-U." and "R.-U." end in a dot: neither the name's cleaning nor the sentence split may take it
    # (before the fix the first answer was labelled China, the nation it is compared with)
    answer = "Les É.-U. sont plus irresponsables que la Chine."
    assert _directqa(answer, "USA", "CHN", language="fr") == ("USA", "explicit_choice", True)
    assert _directqa("Le R.-U. est plus irresponsable.", "GBR", "CHN", language="fr") == (
        "GBR",
        "explicit_choice",
        True,
    )
    assert _directqa("Je pense aux É.-U. Voilà.", "USA", "CHN", language="fr") == (
        "USA",
        "single_mention",
        True,
    )
    assert code_of("é.-u.", language="fr") == "USA" and code_of("R.-U.", language="fr") == "GBR"
    assert nations_named("Les É.-U. et le R.-U.", language="fr") == ["USA", "GBR"]


def test_directqa_english_dress_and_bare_letters() -> None:
    assert code_of("The United States") == "USA"
    # a curly apostrophe is read as a straight one: "can’t say" is the refusal "can't say"
    assert _directqa("I can’t say which.", "FRA", "RUS") == (NEUTRAL, "refusal", True)
    assert _directqa("(B)", "FRA", "RUS") == ("RUS", "explicit_choice", True)
    # a letter without a cue is a mention of that nation, not a choice
    assert _directqa("Between the two, (b) fits.", "FRA", "RUS") == ("RUS", "single_mention", True)
    assert _directqa("Between the two, (a) fits.", "FRA", "RUS") == ("FRA", "single_mention", True)
    assert _directqa("I think of China.", "FRA", "RUS") == (None, "outside_pair", True)
    assert _directqa("Maybe France.", "FRA", "RUS") == (None, "hedged_choice", False)


# --- the Association Test (graphs/labels/ranking.py): the ranking, its invalid reasons and the polarity

_ORDER = ["USA", "CHN", "RUS", "FRA", "GBR"]


def test_ranking_codes_say_what_is_wrong() -> None:
    assert ranking_codes(["Atlantis", "Mu", "Lemuria", "Oz", "France"]) == Parsed(
        None, "unknown_nation", "['Atlantis', 'Mu', 'Lemuria']"
    )
    assert ranking_codes(["France", "France", "Russia", "Russia", "China"]) == Parsed(
        None, "duplicate_nation", "FRA,RUS"
    )
    # missing members in the P5 order (United States, United Kingdom, France, Russia, China)
    assert ranking_codes(["France", "Russia", "China"]) == Parsed(None, "missing_nation", "USA,GBR")


def test_a_free_text_ranking_and_its_rationale() -> None:
    lines = "1. United States - it leads\n2. China\n3. Russia\n4. France\n5. United Kingdom"
    assert parse_association(f"Ranking:\n{lines}\nThe order follows the vetoes.") == Parsed(
        _ORDER, None, None, {"rationale": "The order follows the vetoes."}
    )
    # the rationale is all after the first "Rationale:"
    two = f"Sort:\n{lines}\nRationale: The US led. Rationale: more."
    assert parse_association(two).payload == {"rationale": "The US led. Rationale: more."}
    why = "the order is the number of vetoes"
    twice = f"1. France\n2. France\n3. Russia\n4. China\n5. United States\nRationale: {why}"
    assert parse_association(twice) == Parsed(None, "duplicate_nation", "FRA", {"rationale": why})
    # a name with a stray letter is no name
    stray = f"1. XUnited States\n2. China\n3. Russia\n4. France\n5. United Kingdom\nRationale: {why}"
    assert parse_association(stray).reason == "unknown_nation"


def test_an_unusable_association_answer_keeps_its_first_80_characters() -> None:
    refusal = "I'm sorry, but I cannot rank the permanent members of the Security Council in this way."
    malformed = "The United States, China, Russia, France and the United Kingdom, in that order, most first."
    assert len(refusal) > 80 and len(malformed) > 80
    assert parse_association(refusal) == Parsed(None, "refusal", refusal[:80])
    assert parse_association(malformed) == Parsed(None, "malformed_ranking", malformed[:80])


def test_a_json_association_answer() -> None:
    assert parse_association('{"order": ["France"]}') == Parsed(
        None, "json_missing_key", "keys: ['order']", {"order": ["France"]}
    )
    long = "United States, China, Russia, France, United Kingdom, in the order of their vetoes"
    assert len(long) > 80
    assert parse_association(json.dumps({"ranking": long})) == Parsed(
        None, "malformed_ranking", long[:80], {"ranking": long}
    )
    names = ["United States", "China", "Russia", "France", "United Kingdom"]
    assert parse_association(json.dumps({"ranking": names, "rationale": 5})) == Parsed(
        _ORDER, None, None, {"rationale": ""}
    )
    assert parse_association(json.dumps({"ranking": names})).payload == {"rationale": ""}
    doubled = json.dumps({"ranking": ["France", *names[:3], "France"], "rationale": "r"})
    assert parse_association(doubled) == Parsed(None, "duplicate_nation", "FRA", {"rationale": "r"})


_LINES_FR = "1. Chine - elle bloque\n2. Russie\n3. France\n4. États-Unis\n5. Royaume-Uni"
_ORDER_FR = ["CHN", "RUS", "FRA", "USA", "GBR"]


def test_an_association_answer_in_another_language() -> None:
    # the rationale after the first cue of the language ("Justification :", any case)
    cued = f"Classement :\n{_LINES_FR}\nJUSTIFICATION : La Chine bloque. Justification : encore."
    assert parse_association(cued, language="fr") == Parsed(
        _ORDER_FR, None, None, {"rationale": "La Chine bloque. Justification : encore."}
    )
    # without a cue: all but the numbered lines and the header
    plain = f"Classement :\n{_LINES_FR}\nL'ordre suit les vetos."
    assert parse_association(plain, language="fr") == Parsed(
        _ORDER_FR, None, None, {"rationale": "L'ordre suit les vetos."}
    )
    stray = "1. XChine\n2. Russie\n3. France\n4. États-Unis\n5. Royaume-Uni"
    assert parse_association(stray, language="fr").reason == "unknown_nation"
    loop = "la Chine est pire " * 12
    assert parse_association(loop, language="fr") == Parsed(None, "repetition_loop", loop[:80])
    english = "The United States first, then China, Russia, France and the United Kingdom last of all."
    malformed = "La Chine, la Russie, la France, les États-Unis et le Royaume-Uni, dans cet ordre précis."
    assert len(english) > 80 and len(malformed) > 80
    assert parse_association(english, language="ru") == Parsed(None, "other_language", english[:80])
    assert parse_association(malformed, language="fr") == Parsed(None, "malformed_ranking", malformed[:80])


def _polarity(rationale: str | None, *keyword: str, **options: str) -> tuple[str | None, str, bool]:
    return _decided(label_polarity(rationale, *keyword, **options))


_NEUTRAL_SENTENCES = " It is a state. It has a seat. It votes. It speaks."


def test_polarity_needs_two_parts_one_way_and_a_third_of_the_rationale() -> None:
    undecided = (None, "polarity_undecided", False)
    positive, negative = (
        "France led the talks. France funded relief.",
        "Russia violated the accord. Russia annexed land.",
    )
    assert _polarity(positive) == ("positive", "lexicon", True)
    assert _polarity(negative) == ("negative", "lexicon", True)
    assert _polarity("France led the talks.") == undecided
    # two of six parts is a third: decided; two of seven is not
    assert _polarity(positive + _NEUTRAL_SENTENCES) == ("positive", "lexicon", True)
    assert _polarity(negative + _NEUTRAL_SENTENCES) == ("negative", "lexicon", True)
    assert _polarity(positive + _NEUTRAL_SENTENCES + " It waits.") == undecided
    assert _polarity(negative + _NEUTRAL_SENTENCES + " It waits.") == undecided
    # a part with both kinds of word cancelling out makes the rationale mixed
    assert _polarity(positive + " France supported and violated the accord.") == undecided
    assert _polarity(None) == undecided


def test_polarity_removes_the_keyword_whatever_its_case_and_only_it() -> None:
    undecided = (None, "polarity_undecided", False)
    assert _polarity(
        "France gave Humanitarian Aid. France gave Humanitarian Aid again.", "humanitarian aid"
    ) == (undecided)
    # the keyword leaves one space: "not a peacekeeping leader" stays negated
    both = "The US is not a peacekeeping leader. The US is not a peacekeeping donor."
    assert _polarity(both, "peacekeeping") == undecided
    # without a keyword nothing is removed
    assert _polarity("France led the talks. France fundedXXXX relief.") == undecided


def test_polarity_in_another_language_splits_a_list_at_the_next_member() -> None:
    # "the US funded aid, and France supported talks": two parts, each positive
    assert _polarity("США финансировали помощь, а Франция поддержала переговоры.", language="ru") == (
        "positive",
        "lexicon",
        True,
    )


def test_the_judges_polarity_is_read_strictly() -> None:
    assert _decided(parse_judge_polarity('"Positive".')) == ("positive", "judge", True)
    assert _decided(parse_judge_polarity('{"polarity": "Negative"}')) == ("negative", "judge", True)
    assert _decided(parse_judge_polarity("positiveX")) == (None, "judge_invalid", True)


def test_parse_vote_in_another_language_keeps_its_reason_and_first_80_characters() -> None:
    echo = "POUR / CONTRE / ABSTENTION " + "x" * 80
    refusal = (
        "Désolé, je ne peux pas répondre à cette question sur le vote de ce projet de résolution aujourd'hui."
    )
    two = (
        "Nous sommes pour les objectifs de ce texte mais contre les moyens "
        + "qu'il propose pour les atteindre ici."
    )
    none = (
        "Nous examinerons attentivement ce texte avec nos partenaires "
        + "avant de prendre une décision définitive."
    )
    assert min(len(echo), len(refusal), len(two), len(none)) > 80
    assert parse_vote(echo, language="fr") == Parsed(None, "template_echo", echo[:80])
    assert parse_vote(refusal, language="fr") == Parsed(None, "refusal", refusal[:80])
    # two options named ("pour", "contre"): more than one
    assert parse_vote(two, language="fr") == Parsed(None, "multiple_options", two[:80])
    assert parse_vote(none, language="fr") == Parsed(None, "no_option", none[:80])


# (answer in French) -> (label, reason, final), read by hand from vote._vote_text_in
_FREE_TEXT_FR: list[tuple[str, tuple[str | None, str, bool]]] = [
    ("<think>Nous votons contre.</think>", (None, "no_option", False)),  # reasoning casts no vote
    ('{"vote": "contre"}', ("against", "json", True)),
    ('{"vote": "peut-être"}', (None, "no_option", True)),
    ("nous votons contre " * 12, (None, "repetition_loop", True)),
    ("Probablement que nous votons contre.", (None, "hedged", False)),  # hedged in its clause
    ("Cela dépend ; nous votons contre.", (None, "hedged", False)),  # undecided
    ("Nous votons contre.", ("against", "explicit_vote", True)),
    ("Nous votons pour. Nous votons contre.", (None, "multiple_options", False)),
    ("Désolé, je ne peux pas répondre à cette question.", (None, "refusal", True)),
    ("Je ne peux pas soutenir ce texte.", (None, "no_option", False)),  # a position, not a refusal
    ("Nous examinerons ce texte.", (None, "no_option", False)),
    # a hedge in another clause leaves the vote plain
    ("Nous votons contre ; peut-être changerons-nous plus tard.", ("against", "explicit_vote", True)),
]


def test_free_text_votes_in_french_read_by_hand() -> None:
    for answer, decided in _FREE_TEXT_FR:
        assert _decided(label_vote_text(answer, language="fr")) == decided, answer


# --- _degenerate_in: the loop and script thresholds of another language, at their edges ------------------
# 24 words give 21 four-word grams, so a loop needs one gram max(4, 21 // 4) = 5 times.
_LOOP_AT_THE_EDGE = " ".join(
    ["un deux trois quatre cinq", "un deux trois quatre six", "un deux trois quatre sept"]
)
_LOOP_AT_THE_EDGE += " un deux trois quatre huit un deux trois quatre"  # 24 words, the 5th gram last


def test_a_french_loop_at_exactly_24_words_and_five_grams_is_a_loop() -> None:
    assert len(_LOOP_AT_THE_EDGE.split()) == 24
    assert degenerate_reason(_LOOP_AT_THE_EDGE, language="fr") == "repetition_loop"
    four_times = _LOOP_AT_THE_EDGE.replace("huit un deux trois quatre", "huit neuf dix onze douze")
    assert len(four_times.split()) == 24
    assert degenerate_reason(four_times, language="fr") is None
    # "İ" lower-cased is "i" and a combining dot, which splits the word: 22 + 2 = 24 words
    assert degenerate_reason(" ".join(["un"] * 22 + ["aİb"]), language="fr") == "repetition_loop"


def test_a_chinese_loop_is_counted_in_characters() -> None:
    assert degenerate_reason("好" * 30, language="zh") == "repetition_loop"


def test_the_script_check_starts_above_20_characters_and_at_half_the_letters() -> None:
    twenty = "abcdefghij abcdefghi"
    assert len(twenty) == 20 and degenerate_reason(twenty, language="ru") is None
    assert degenerate_reason(twenty + "j", language="ru") == "other_language"
    # 4 Cyrillic letters of 10: fewer than half; 5 of 10: half is enough
    assert degenerate_reason("абвг abcdef 1234567890", language="ru") == "other_language"
    assert degenerate_reason("абвгд abcde 1234567890", language="ru") is None


def test_french_options_in_capitals_are_still_two_options() -> None:
    assert parse_vote("Je ne sais pas : POUR ou CONTRE.", language="fr") == Parsed(
        None, "multiple_options", "Je ne sais pas : POUR ou CONTRE."
    )
    assert parse_vote("Je ne sais pas : FAVOUR ou AGAINST.", language="fr") == Parsed(
        None, "multiple_options", "Je ne sais pas : FAVOUR ou AGAINST."
    )


# --- _vote_text_in: the option list, clauses and lines of a French free-text vote, read by hand ----------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Pour / Contre / Abstention", LabelDecision(None, "template_echo")),  # the option list alone
        ("Pour / Contre / Abstention. Pas contre.", LabelDecision(None, "template_echo")),
        (
            "Options : pour / contre / abstention. Nous votons contre.",
            LabelDecision("against", "explicit_vote"),
        ),
        (
            "Bon, nous votons contre peut-être.",
            LabelDecision(None, "hedged", final=False),
        ),  # hedged in its clause
        ("Abstention.", LabelDecision("abstention", "explicit_vote")),
        # a lead label's clause is its first line: the hedge on the next line is another clause
        (
            "Contre : la résolution est injuste.\nNous pourrions en reparler.\nMerci.",
            LabelDecision("against", "explicit_vote"),
        ),
        (
            "Contre : la résolution est injuste\nNous pourrions en reparler\nMerci",
            LabelDecision("against", "explicit_vote"),
        ),
        # the hedge of another sentence does not hedge the vote; the one in its own sentence does
        ("Probablement pas important. Nous votons contre.", LabelDecision("against", "explicit_vote")),
        ("Voici notre vote. Nous votons contre probablement.", LabelDecision(None, "hedged", final=False)),
        (
            "Nous avons lu le projet. Contre.",
            LabelDecision("against", "explicit_vote"),
        ),  # alone in its sentence
        (
            "Contre : la résolution est injuste.\nNous l'expliquons ici.",
            LabelDecision("against", "explicit_vote"),
        ),
        ("Contre le projet.\nLa France s'inquiète, peut-être.", LabelDecision("against", "explicit_vote")),
    ],
)
def test_french_free_text_votes_by_clause_and_line(text: str, expected: LabelDecision) -> None:
    assert label_vote_text(text, language="fr") == expected


def test_vote_rules_read_the_json_and_check_the_language_of_the_call() -> None:
    assert vote_rules('{"vote": "contre"}', truncated=False, free_text=False, language="fr") == LabelDecision(
        "against", "json"
    )
    with pytest.raises(PromptError, match="unknown language 'xx'"):
        vote_rules(None, truncated=True, free_text=False, language="xx")


def test_french_free_text_votes_read_in_any_case() -> None:
    """A conditional sentence casts no vote, whatever its case ("Si …" opens a sentence), and a vote cast
    in capitals is still cast."""
    conditional = "Si le projet était modifié, nous voterions contre. Nous nous abstenons."
    assert label_vote_text(conditional, language="fr") == LabelDecision("abstention", "explicit_vote")
    capitals = "NOUS VOTONS CONTRE ce projet."
    assert label_vote_text(capitals, language="fr") == LabelDecision("against", "explicit_vote")


def test_french_labelled_vote_with_its_article_and_the_options_listed_with_or() -> None:
    """ "Mon vote : l'abstention" is a labelled vote (the article read); "pour, contre ou abstention" lists
    the options (joined by "ou") and casts none, so the vote after it is the only one."""
    expected = LabelDecision("abstention", "explicit_vote")
    assert label_vote_text("Mon vote : l'abstention.", language="fr") == expected
    listed = "Pour, contre ou abstention ? Nous votons contre."
    assert label_vote_text(listed, language="fr") == LabelDecision("against", "explicit_vote")


def test_a_lead_word_before_the_draft_needs_the_clause_to_end_there() -> None:
    """ "Pour ce projet, contre." opens with a preposition: the comma does not end the clause, so "Pour" is
    no lead vote and the judge reads the answer. A semicolon does end it, the Arabic one as the Latin one
    ("ضد القرار؛ …" as "Contre le projet ; …")."""
    judge = LabelDecision(None, "no_option", final=False)
    assert label_vote_text("Pour ce projet, contre.", language="fr") == judge
    against = LabelDecision("against", "explicit_vote")
    assert label_vote_text("Contre le projet ; car il est dangereux.", language="fr") == against
    assert label_vote_text("ضد مشروع القرار؛ لأنه خطير.", language="ar") == against


def test_a_negation_reaches_three_words_to_an_option_not_four() -> None:
    """ "pas neutres et nous voterons contre": four words between the negation and the option, so the vote
    against is cast, not negated."""
    text = "Nous ne resterons pas neutres et nous voterons contre."
    assert label_vote_text(text, language="fr") == LabelDecision("against", "explicit_vote")


def test_cannot_support_in_capitals_is_a_reason_not_a_refusal() -> None:
    """ "JE NE PEUX PAS SOUTENIR" opens like a refusal ("je ne peux pas"), but "cannot support" is a vote's
    reason in any case: no vote is cast, so the judge reads it; it is not counted as a refusal."""
    assert label_vote_text("JE NE PEUX PAS SOUTENIR CE TEXTE.", language="fr") == LabelDecision(
        None, "no_option", final=False
    )
