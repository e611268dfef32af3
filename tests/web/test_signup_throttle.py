"""Sign-ups over a real server: one address makes at most ``throttle.SIGNUPS`` accounts an hour (they
were free: 40 from one address in 3 s, sybils for the ladder), refused sign-ups do not count, and
other addresses are not held up.

The server trusts ``X-Forwarded-For`` from 127.0.0.1 (as in ``test_abuse``): the test signs up from
addresses of its own."""

from __future__ import annotations

import urllib.parse

from served import Client, Reply, Web
from sqlalchemy import func, select

from arena.store.models import User
from arena.web import throttle

PASSWORD = "correct horse battery"


def sign_up(client: Client, name: str, address: str, password: str = PASSWORD) -> Reply:
    fields = {"name": name, "password": password, "csrf": client.csrf("/signup")}
    body = urllib.parse.urlencode(fields).encode()
    headers = {"Content-Type": "application/x-www-form-urlencoded", "X-Forwarded-For": address}
    return client.request("POST", "/signup", body, headers)


def test_one_address_makes_at_most_ten_accounts_an_hour(web: Web) -> None:
    client = web.client()
    # refused sign-ups (a password too short, a name taken) leave the address its ten
    assert sign_up(client, "sybil-0", "10.7.0.1", password="short").status == 400
    web.user("taken")
    assert sign_up(client, "taken", "10.7.0.1").status == 400
    statuses = [sign_up(client, f"sybil-{n}", "10.7.0.1").status for n in range(throttle.SIGNUPS + 5)]
    assert statuses == [200] * throttle.SIGNUPS + [429] * 5
    refused = sign_up(client, "sybil-99", "10.7.0.1")
    assert refused.status == 429
    wait = int({key.lower(): value for key, value in refused.headers.items()}["retry-after"])
    assert 0 < wait <= throttle.SIGNUP_WINDOW_S
    assert "too many sign-ups from this address: try again in" in refused.text
    with web.store.session() as session:
        made = select(func.count()).select_from(User).where(User.name.like("sybil-%"))
        assert session.scalar(made) == throttle.SIGNUPS
    # another address signs up as before
    assert sign_up(client, "neighbour", "10.7.0.2").status == 200
