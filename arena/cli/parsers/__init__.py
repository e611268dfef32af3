"""The ``arena`` command's arguments: one module per command group, each with ``register(name,
parser)``, which loads nothing that the group's commands need only to run."""
