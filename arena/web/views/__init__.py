"""What the pages and the JSON API show, read from the store once for both.

Every function takes an open session and the viewer (``None`` when signed out) and returns pydantic
models: the API returns them as JSON (and they document it in OpenAPI), the pages render them.
Owner-only things (a bot's logs and sources) are decided here, in one place: ``common.can_see_private``.
A module per subject: ``games``, ``ladder``, ``bots``, ``sources``, ``matches``, ``replays`` and
``tournaments``; ``common`` holds what they share.
"""
