"""Bot-controlled text: control characters shown visibly, sizes cut to a byte limit."""

from arena.text import clip, escape_controls


def test_control_characters_are_written_out_but_newline_and_tab_stay() -> None:
    attack = "\x1b]0;pwned\x07\x1b[2J\tok\nnext\r\x7f\x9b"
    assert escape_controls(attack) == "\\x1b]0;pwned\\x07\\x1b[2J\tok\nnext\\x0d\\x7f\\x9b"
    assert escape_controls("plain text, même accentué") == "plain text, même accentué"


def test_clip_cuts_to_the_byte_limit_and_says_so() -> None:
    assert clip("short", 100) == "short"
    cut = clip("é" * 1000, 100)
    assert len(cut.encode()) <= 100
    assert cut.endswith(" [... 2000 bytes, cut]")
    assert cut.startswith("é" * 30)
