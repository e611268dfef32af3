"""A bot's log is capped but always keeps its last traceback."""

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
