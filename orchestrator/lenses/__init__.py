"""Lens swarms (plan ``kind: lens``, docs/swarm.md): the same question to several members in parallel, their
answers validated (:mod:`answers`), clustered and counted without a model (:mod:`clusters`), then written
up by a clean-context merger that sees each member's findings fenced as that member's data (:mod:`merger`).
:mod:`swarm` runs the members and puts it together; the runner only supplies how one member runs."""
