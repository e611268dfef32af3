"""The web app: ladders, bot pages, replays, tournaments and submissions, plus a JSON API."""
