"""Celery workers that run tournament matches (see ``workers/app.py``)."""
