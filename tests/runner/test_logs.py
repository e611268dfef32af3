"""A bot's log is capped but always keeps its last traceback."""

import tracemalloc

from arena.runner.logs import CappedLog

TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "bot.py", line 9, in act\n'
    "    return 1 / 0\n"
    "ZeroDivisionError: division by zero\n"
)


def test_small_logs_are_kept_whole() -> None:
    log = CappedLog(head=1000, tail=1000)
    log.write("hello\n" + TRACEBACK + "partial line")
    assert log.text() == "hello\n" + TRACEBACK + "partial line\n"


def test_the_size_is_capped_and_the_cut_is_marked() -> None:
    log = CappedLog(head=100, tail=200)
    for number in range(1000):
        log.write(f"line {number}\n")
    text = log.text()
    assert len(text) < 400
    assert text.startswith("line 0\n")
    assert text.rstrip().endswith("line 999")
    assert "bytes of log dropped" in text


def test_the_last_traceback_survives_spam_after_it() -> None:
    log = CappedLog(head=50, tail=200)
    log.write("x" * 60 + "\n")
    log.write(TRACEBACK)
    for number in range(500):
        log.write(f"spam {number}\n")
    text = log.text()
    assert "ZeroDivisionError: division by zero" in text
    assert text.index("the last traceback") > text.index("spam 499")


def test_only_the_last_of_several_tracebacks_is_rescued() -> None:
    log = CappedLog(head=10, tail=150)
    log.write(TRACEBACK.replace("ZeroDivisionError: division by zero", "KeyError: 'first'"))
    log.write(TRACEBACK)
    log.write("spam\n" * 200)
    text = log.text()
    assert "KeyError: 'first'" not in text
    assert text.count("ZeroDivisionError") == 1


def test_a_traceback_written_a_byte_at_a_time_is_found() -> None:
    log = CappedLog(head=10, tail=50)
    for byte in ("noise\n" + TRACEBACK + "spam\n" * 30).encode():
        log.write(bytes([byte]))
    assert log.last_traceback == TRACEBACK
    assert log.text().endswith("the last traceback, kept from the dropped part ...]\n" + TRACEBACK)


def test_an_endless_line_keeps_memory_bounded() -> None:
    log = CappedLog()
    chunk = b"x" * 65536
    tracemalloc.start()
    try:
        for _ in range(200):
            log.write(chunk)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, peak
    text = log.text()
    assert len(text.encode()) <= log.limit
    assert f"[... {200 * 65536 - 16_384 - 49_152} bytes of log dropped ...]" in text


def test_an_endless_traceback_is_capped() -> None:
    log = CappedLog(head=100, tail=100, traceback=1000)
    log.write("Traceback (most recent call last):\n")
    for number in range(10_000):
        log.write(f'  File "bot.py", line {number}, in deep\n')
    traceback = log.last_traceback
    assert traceback.startswith("Traceback (most recent call last):\n")
    assert "bytes of traceback dropped" in traceback
    assert traceback.endswith('  File "bot.py", line 9999, in deep\n')
    assert len(traceback) < 1100
    assert len(log.text()) < log.limit


def test_the_text_never_exceeds_its_byte_limit() -> None:
    log = CappedLog(head=1000, tail=1000, traceback=100)
    # Invalid UTF-8 becomes U+FFFD, three bytes each: the text is cut to fit.
    log.write(b"\xff" * 10_000)
    assert len(log.text().encode()) <= log.limit
