"""A draft's own text freed of its page: headers and footers dropped, broken lines joined."""

from __future__ import annotations

from nationbias.stores.guard.draft_text import draft_body, unwrap


def test_draft_body_drops_the_page_around_the_draft() -> None:
    page = (
        "Pages\n\nMonday, 12 May\n\nFrench draft resolution refers Syria to the ICC\n\n"
        "The Security Council,\nRecalling its resolutions 2042 (2012) and\n2043 (2012),\n24-12345\n"
        "1.    Demands that all parties comply with their obligations under\ninternational law;\n"
        "2. Decides to remain actively seized of the matter.\nShare this page\n0 comments"
    )
    assert draft_body(page) == (
        "The Security Council,\nRecalling its resolutions 2042 (2012) and 2043 (2012),\n"
        "1. Demands that all parties comply with their obligations under international law;\n"
        "2. Decides to remain actively seized of the matter."
    )


def test_a_line_that_continues_the_one_before_is_joined() -> None:
    assert unwrap("Demands that all parties\n  comply with it.\nRecalls") == (
        "Demands that all parties comply with it.\nRecalls"
    )
