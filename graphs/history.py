"""The rehearsal history as the vote prompts show it (paper Appendix A.2, Eq. 8; Appendix F, Table 15)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nationbias.stores.domain import DEFAULT_LANGUAGE

NO_HISTORY = "(none: no earlier text passed the retriever's threshold)"

# The history's own words in each prompt language (--language; prompts/registry.py): the English ones are
# the paper's and the back-translation of the others. The entries (summaries, votes, reflections, labels)
# stay as recorded. Like the templates, not yet reviewed by a native speaker.
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "none": NO_HISTORY,
        "previous": "- previous vote prediction:",
        "rehearsal": "Rehearsal",
        "summary": "Summary",
        "action_items": "Action items",
        "action_item": "Action Item",
        "my_vote": "My vote / Ground Truth",
        "reflection": "Reflection",
        "rehearsal_resolution": "Rehearsal Resolution",
    },
    "fr": {
        "none": "(aucun : aucun texte antérieur n'a atteint le seuil du moteur de recherche)",
        "previous": "- prédiction de vote antérieure :",
        "rehearsal": "Répétition",
        "summary": "Résumé",
        "action_items": "Mesures proposées",
        "action_item": "Mesure proposée",
        "my_vote": "Mon vote / Vote réel",
        "reflection": "Réflexion",
        "rehearsal_resolution": "Résolution de répétition",
    },
    "es": {
        "none": "(ninguno: ningún texto anterior alcanzó el umbral del buscador)",
        "previous": "- predicción de voto anterior:",
        "rehearsal": "Ensayo",
        "summary": "Resumen",
        "action_items": "Medidas propuestas",
        "action_item": "Medida propuesta",
        "my_vote": "Mi voto / Voto real",
        "reflection": "Reflexión",
        "rehearsal_resolution": "Resolución de ensayo",
    },
    "ru": {
        "none": "(нет: ни один более ранний текст не достиг порога поиска)",
        "previous": "- прежний прогноз голосования:",
        "rehearsal": "Репетиция",
        "summary": "Краткое содержание",
        "action_items": "Предлагаемые меры",
        "action_item": "Предлагаемая мера",
        "my_vote": "Мой голос / Реальный голос",
        "reflection": "Размышление",
        "rehearsal_resolution": "Репетиционная резолюция",
    },
    "zh": {
        "none": "（无：没有更早的文本达到检索阈值）",
        "previous": "- 以往投票预测：",
        "rehearsal": "预演",
        "summary": "摘要",
        "action_items": "行动事项",
        "action_item": "行动事项",
        "my_vote": "我的投票 / 真实投票",
        "reflection": "反思",
        "rehearsal_resolution": "预演决议",
    },
    "ar": {
        "none": "(لا شيء: لم يبلغ أي نص سابق عتبة أداة الاسترجاع)",
        "previous": "- توقع التصويت السابق:",
        "rehearsal": "تمرين",
        "summary": "الملخص",
        "action_items": "الإجراءات المقترحة",
        "action_item": "الإجراء المقترح",
        "my_vote": "صوتي / التصويت الفعلي",
        "reflection": "التأمل",
        "rehearsal_resolution": "قرار التمرين",
    },
}


def _one_line(text: object) -> str:
    """A field on one line: a summary or a model's reflection with line breaks would put blank lines
    inside the prompt's history list."""
    return " ".join(str(text).split())


def _rendered(
    history: list[dict[str, Any]],
    *,
    reflexion: bool,
    heading: Callable[[dict[str, Any]], str],
    action_items: str,
    language: str = DEFAULT_LANGUAGE,
) -> str:
    """One block per rehearsal: ``heading``, summary, action items (named ``action_items``), the vote
    beside the real one and, with reflexion, the reflection; the prompt sets differ only in the two.
    The blocks follow one another without blank lines: each starts with its heading."""
    words = WORDS[language]
    if not history:
        return words["none"]
    blocks = []
    for entry in history:
        lines = [heading(entry)]
        if entry.get("summary"):
            lines.append(f"{words['summary']} : {_one_line(entry['summary'])}")
        if entry.get("action_items"):
            lines.append(f"{words[action_items]} : {_one_line(entry['action_items'])}")
        lines.append(f"{words['my_vote']}: {entry['predicted']} / {entry['truth']}")
        if reflexion and entry.get("reflection"):
            lines.append(f"{words['reflection']}: {_one_line(entry['reflection'])}")
        blocks.append("\n".join(lines))
    return "\n".join(blocks)


def _structured_heading(entry: dict[str, Any], rehearsal: str = "Rehearsal") -> str:
    """ "Rehearsal <label> (<date>, <outcome>)"; the date once only, when the label already names it
    (an Assembly roll call: "roll call 936 of 1966-12-07")."""
    date = "" if entry["date"] in entry["label"] else f"{entry['date']}, "
    return f"{rehearsal} {entry['label']} ({date}{entry['outcome']})"


def history_text(history: list[dict[str, Any]], *, reflexion: bool, language: str = DEFAULT_LANGUAGE) -> str:
    """The structured set's history block of the rehearsal and final prompts, in the prompts' language."""
    rehearsal = WORDS[language]["rehearsal"]
    return _rendered(
        history,
        reflexion=reflexion,
        heading=lambda entry: _structured_heading(entry, rehearsal),
        action_items="action_items",
        language=language,
    )


def history_block(history: list[dict[str, Any]], *, reflexion: bool, language: str = DEFAULT_LANGUAGE) -> str:
    """The structured rehearsal prompt's optional section, ending in a line break (the template puts
    it at the start of the context's line): nothing at all, not a blank line, before the first rehearsal."""
    if not history:
        return ""
    text = history_text(history, reflexion=reflexion, language=language)
    return WORDS[language]["previous"] + "\n" + text + "\n"


def paper_history_text(
    history: list[dict[str, Any]], *, reflexion: bool, language: str = DEFAULT_LANGUAGE
) -> str:
    """The paper set's history, in Table 15's words ("Rehearsal Resolution : 2334", "Summary : …").

    The table prints no action items; Eq. 8 puts them in the history, so they are shown as
    Appendix C names the field ("Action Item").
    """
    heading = WORDS[language]["rehearsal_resolution"]
    return _rendered(
        history,
        reflexion=reflexion,
        heading=lambda entry: f"{heading} : {entry.get('symbol') or entry['label']}",
        action_items="action_item",
        language=language,
    )
